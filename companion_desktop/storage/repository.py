"""Rows <-> engine dataclasses and records. Every function works inside a caller's Session.

Nothing here commits: the caller's ``Database.session()`` is the transaction.
``now`` arguments are timezone-aware datetimes.
"""

from __future__ import annotations

import copy
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..engine.character import CharacterState, MoodState, new_character
from ..engine.familiarity import Familiarity
from .facts import (  # noqa: F401 - the fact rows live in storage.facts; callers use either
    add_fact,
    bump_references,
    count_stale_facts,
    delete_fact,
    fact_vectors,
    get_fact,
    list_facts,
    set_fact_embedding,
    stale_facts,
    update_fact,
)
from .models import CharacterRow, CompletedEventRow, RelationshipRow, SessionRow, TurnRow
from .records import SessionRecord, TurnRecord

CHARACTER_ID = 1

# ---------------------------------------------------------------- character

_CHARACTER_FIELDS = (
    "name", "system_prompt", "app_mode", "relationship_stage", "saved_dating_sim_stage",
    "last_interaction", "last_decay_at", "first_met", "days_known", "total_interactions",
    "current_streak", "longest_streak", "streak_last_date", "created_at", "updated_at",
)  # fmt: skip
_STATS = ("energy", "affection", "trust", "intimacy", "comfort", "respect")
_CHARACTER_JSON = ("extensions", "personality", "completed_events")


def load_character(session: Session) -> CharacterState | None:
    """The companion, or None before the first save."""
    row = session.get(CharacterRow, CHARACTER_ID)
    if row is None:
        return None
    values: dict[str, Any] = {name: getattr(row, name) for name in _CHARACTER_FIELDS + _STATS}
    values.update({name: copy.deepcopy(getattr(row, name)) for name in _CHARACTER_JSON})
    mood = MoodState(
        primary=row.mood_primary,
        intensity=row.mood_intensity,
        secondary=row.mood_secondary,
        causes=list(row.mood_causes),
    )
    return CharacterState(mood=mood, **values)


def save_character(session: Session, state: CharacterState) -> None:
    """Insert or update the single companion row (stats rounded to whole points)."""
    row = session.get(CharacterRow, CHARACTER_ID)
    if row is None:
        row = CharacterRow(id=CHARACTER_ID)
        session.add(row)
    for name in _CHARACTER_FIELDS:
        setattr(row, name, getattr(state, name))
    for name in _STATS:
        setattr(row, name, int(round(getattr(state, name))))
    for name in _CHARACTER_JSON:
        setattr(row, name, copy.deepcopy(getattr(state, name)))
    row.mood_primary = state.mood.primary
    row.mood_intensity = int(round(state.mood.intensity))
    row.mood_secondary = state.mood.secondary
    row.mood_causes = list(state.mood.causes)


def load_or_create_character(session: Session, now: datetime) -> CharacterState:
    """The companion; a new one met at ``now`` is saved first when there is none."""
    state = load_character(session)
    if state is None:
        state = new_character(now)
        save_character(session, state)
    return state


# -------------------------------------------------------------- familiarity

_FAMILIARITY_FIELDS = (
    "total_interactions", "positive_interactions", "negative_interactions",
    "avg_message_length", "conversation_depth_avg", "first_interaction_at",
    "last_interaction_at",
)  # fmt: skip


def _familiarity_row(session: Session, scope: int | None) -> RelationshipRow | None:
    column = RelationshipRow.scope
    condition = column.is_(None) if scope is None else column == scope
    return session.scalars(select(RelationshipRow).where(condition)).first()


def load_familiarity(session: Session, scope: int | None = None) -> Familiarity | None:
    """The familiarity record of ``scope`` (None = the global one the desktop uses)."""
    row = _familiarity_row(session, scope)
    if row is None:
        return None
    values = {name: getattr(row, name) for name in _FAMILIARITY_FIELDS}
    return Familiarity(
        scope=row.scope,
        score=row.relationship_score,
        shared_references=copy.deepcopy(row.shared_references),
        **values,
    )


def save_familiarity(session: Session, rel: Familiarity) -> None:
    """Insert or update the record of ``rel.scope`` (score 0-100)."""
    row = _familiarity_row(session, rel.scope)
    if row is None:
        row = RelationshipRow(scope=rel.scope)
        session.add(row)
    for name in _FAMILIARITY_FIELDS:
        setattr(row, name, getattr(rel, name))
    row.relationship_score = float(rel.score)
    row.shared_references = copy.deepcopy(rel.shared_references)
    session.flush()


def load_or_create_familiarity(session: Session, scope: int | None = None) -> Familiarity:
    """The record of ``scope``; a zeroed one is saved first when there is none."""
    rel = load_familiarity(session, scope)
    if rel is None:
        rel = Familiarity(scope=scope)
        save_familiarity(session, rel)
    return rel


# ------------------------------------------------------- sessions and turns


def add_session(
    session: Session,
    started_at: datetime,
    *,
    ended_at: datetime | None = None,
    summary: str | None = None,
    key_topics: list[str] | tuple[str, ...] = (),
    emotional_arc: str | None = None,
    state_snapshot: dict[str, Any] | None = None,
    message_count: int = 0,
) -> int:
    """A session row with every field given; returns its id."""
    row = SessionRow(
        started_at=started_at,
        ended_at=ended_at,
        summary=summary,
        key_topics=list(key_topics),
        emotional_arc=emotional_arc,
        state_snapshot=copy.deepcopy(state_snapshot),
        message_count=message_count,
    )
    session.add(row)
    session.flush()
    return row.id


def start_session(session: Session, now: datetime) -> int:
    """A new app-run session started at ``now``; returns its id."""
    return add_session(session, now)


def end_session(session: Session, session_id: int, now: datetime) -> None:
    """Mark the session ended at ``now`` and store its turn count."""
    row = session.get(SessionRow, session_id)
    if row is None:
        raise KeyError(f"no session {session_id}")
    row.ended_at = now
    row.message_count = count_session_turns(session, session_id)


def list_sessions(session: Session) -> list[SessionRecord]:
    """Every session, oldest first."""
    rows = session.scalars(select(SessionRow).order_by(SessionRow.started_at, SessionRow.id))
    return [_session_record(row) for row in rows]


def _session_record(row: SessionRow) -> SessionRecord:
    return SessionRecord(
        id=row.id,
        started_at=row.started_at,
        ended_at=row.ended_at,
        summary=row.summary,
        key_topics=tuple(row.key_topics),
        emotional_arc=row.emotional_arc,
        state_snapshot=copy.deepcopy(row.state_snapshot),
        message_count=row.message_count,
    )


def last_turn_id(session: Session, role: str) -> int | None:
    """The id of the newest stored message of ``role`` (in this transaction too)."""
    return session.scalar(
        select(TurnRow.id).where(TurnRow.role == role).order_by(TurnRow.id.desc()).limit(1)
    )


def add_turn(
    session: Session,
    session_id: int | None,
    role: str,
    content: str,
    now: datetime,
    meta: dict[str, Any] | None = None,
) -> int:
    """Store one message (role user, assistant or system) at ``now``; returns its id."""
    row = TurnRow(
        session_id=session_id, role=role, content=content, meta=copy.deepcopy(meta), created_at=now
    )
    session.add(row)
    session.flush()
    return row.id


def recent_turns(session: Session, limit: int = 20) -> list[TurnRecord]:
    """The ``limit`` newest turns, oldest first."""
    query = select(TurnRow).order_by(TurnRow.created_at.desc(), TurnRow.id.desc()).limit(limit)
    rows = list(session.scalars(query))
    rows.reverse()
    return [
        TurnRecord(
            id=row.id,
            session_id=row.session_id,
            role=row.role,
            content=row.content,
            created_at=row.created_at,
            meta=copy.deepcopy(row.meta),
        )
        for row in rows
    ]


def count_session_turns(session: Session, session_id: int) -> int:
    """How many turns belong to the session."""
    query = select(func.count()).select_from(TurnRow).where(TurnRow.session_id == session_id)
    return int(session.scalar(query) or 0)


# ------------------------------------------------------------------- events


def session_turns(session: Session, session_id: int) -> list[TurnRecord]:
    """Every turn of one session, oldest first."""
    query = (
        select(TurnRow).where(TurnRow.session_id == session_id)
        .order_by(TurnRow.created_at, TurnRow.id)
    )  # fmt: skip
    return [
        TurnRecord(id=row.id, session_id=row.session_id, role=row.role, content=row.content,
                   created_at=row.created_at, meta=copy.deepcopy(row.meta))
        for row in session.scalars(query)
    ]


def add_completed_event(
    session: Session,
    event_id: str,
    now: datetime,
    event_type: str | None = None,
    choice_index: int | None = None,
    outcome: str | None = None,
    state_changes: dict[str, Any] | None = None,
) -> int:
    """Record that ``event_id`` played at ``now`` and the choice taken; returns the row id."""
    row = CompletedEventRow(
        event_id=event_id,
        event_type=event_type,
        choice_index=choice_index,
        outcome=outcome,
        state_changes=copy.deepcopy(state_changes),
        completed_at=now,
    )
    session.add(row)
    session.flush()
    return row.id
