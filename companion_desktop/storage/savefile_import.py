"""Save file import: all-or-nothing, in one ``Database.session()``.

``replace`` deletes the character, facts, sessions, turns, completed events and
familiarity records, then inserts the file's. ``merge`` never duplicates a fact
(same category and normalized text), turn (same ``createdAt``, role and content),
session (same ``startedAt``) or completed event (same ``eventId`` and
``completedAt``), within the file too; it keeps the current character (and
familiarity record) unless it has no interactions yet. Imported facts carry no
embedding, so the background backfill rebuilds them. Any error rolls back.

A replace first makes an automatic backup (``storage.backup``; no backup, no
replace) and, in its transaction, gives the data a new generation token
(``backup.data_generation``): a running app notices it at its next turn and starts
a new session on the new data instead of writing into the old one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..engine.character import CharacterState, MoodState
from ..engine.familiarity import Familiarity
from . import repository
from .backup import REASON_REPLACE, BackupError, auto_backup, new_generation
from .db import Database
from .models import (
    CharacterRow,
    CompletedEventRow,
    FactRow,
    RelationshipRow,
    SessionRow,
    TurnRow,
)  # fmt: skip
from .savefile_schema import (
    CharacterModel,
    CompletedEventModel,
    FactModel,
    RelationshipModel,
    SaveFile,
    SessionModel,
    TurnModel,
)  # fmt: skip

KINDS = ("character", "relationship", "facts", "sessions", "turns", "completed_events")
_CHUNK = 500
_CHARACTER_FIELDS = tuple(f.name for f in fields(CharacterState) if f.name != "mood")
_RELATIONSHIP_FIELDS = tuple(f.name for f in fields(Familiarity) if f.name != "score")


@dataclass(frozen=True)
class ImportSummary:
    """Per kind (``KINDS``): records imported, and records skipped as duplicates or kept."""

    mode: str
    imported_at: datetime
    imported: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    skipped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))


def fact_key(category: str, content: str) -> tuple[str, str]:
    """Duplicate key of a fact: category plus case-folded (NFKC), space-collapsed text
    without trailing punctuation."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", content).casefold())
    text = " ".join(folded.split())
    while text and unicodedata.category(text[-1]).startswith("P"):
        text = text[:-1].rstrip()
    return category, text


def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for start in range(0, len(values), _CHUNK):
        yield values[start : start + _CHUNK]


def _existing(session: Session, column: Any, keys: Iterable[Any], *extra: Any) -> list[Any]:
    """Rows (``column`` plus ``extra`` columns) whose ``column`` is one of ``keys``."""
    found: list[Any] = []
    for chunk in _chunks(list(set(keys))):
        found.extend(session.execute(select(column, *extra).where(column.in_(chunk))))
    return found


def import_save(
    db: Database, save: SaveFile, mode: Literal["merge", "replace"], now: datetime
) -> ImportSummary:
    """Import in one transaction. ``replace`` wipes the saved kinds first; ``merge``
    skips duplicates and keeps a character (and familiarity) that has interactions."""
    if mode not in ("merge", "replace"):
        raise ValueError(f"mode must be 'merge' or 'replace', not {mode!r}")
    summary = ImportSummary(mode=mode, imported_at=now)
    data = save.data
    if mode == "replace":
        try:
            auto_backup(db.path.parent, REASON_REPLACE, now)
        except BackupError as error:
            raise BackupError(f"{error}. Nothing was imported: a replace runs only after "
                              "what it replaces is backed up.") from error
    with db.session() as session:
        if mode == "replace":
            for model in (TurnRow, SessionRow, FactRow, CompletedEventRow, CharacterRow):
                session.execute(delete(model))
            session.execute(delete(RelationshipRow))
            new_generation(session, now)
        session_ids = _import_sessions(session, data.sessions, summary)
        _import_turns(session, data.conversation_turns, session_ids, summary)
        _import_facts(session, data.facts, summary)
        _import_events(session, data.completed_events, summary)
        _import_character(session, data.character, summary)
        _import_relationship(session, data.relationship, summary)
    return summary


def _count(summary: ImportSummary, kind: str, imported: bool) -> None:
    (summary.imported if imported else summary.skipped)[kind] += 1


def _import_sessions(
    session: Session, sessions: list[SessionModel], summary: ImportSummary
) -> dict[int, int]:
    """Insert new sessions (same ``startedAt`` = duplicate); returns file id -> database id."""
    starts = [item.started_at for item in sessions]
    by_start = dict(_existing(session, SessionRow.started_at, starts, SessionRow.id))
    ids: dict[int, int] = {}
    for item in sessions:
        target = by_start.get(item.started_at)
        _count(summary, "sessions", target is None)
        if target is None:
            target = repository.add_session(
                session, item.started_at, ended_at=item.ended_at, summary=item.summary,
                key_topics=item.key_topics, emotional_arc=item.emotional_arc,
                state_snapshot=item.state_snapshot, message_count=item.message_count,
            )  # fmt: skip
            by_start[item.started_at] = target
        if item.id is not None:
            ids.setdefault(item.id, target)
    return ids


def _import_turns(
    session: Session, turns: list[TurnModel], session_ids: dict[int, int], summary: ImportSummary
) -> None:
    """Insert new turns (same ``createdAt`` + role + content = duplicate)."""
    rows = _existing(
        session, TurnRow.created_at, [t.created_at for t in turns], TurnRow.role, TurnRow.content
    )
    seen = {tuple(row) for row in rows}
    for turn in turns:
        key = (turn.created_at, turn.role, turn.content)
        _count(summary, "turns", key not in seen)
        if key in seen:
            continue
        seen.add(key)
        target = None if turn.session_id is None else session_ids.get(turn.session_id)
        repository.add_turn(
            session, target, turn.role, turn.content, turn.created_at, turn.metadata
        )


def _import_facts(session: Session, facts: list[FactModel], summary: ImportSummary) -> None:
    """Insert new facts without vectors (same category + normalized text = duplicate)."""
    rows = session.execute(select(FactRow.category, FactRow.content))
    seen = {fact_key(category, content) for category, content in rows}
    for fact in facts:
        key = fact_key(fact.category, fact.content)
        _count(summary, "facts", key not in seen)
        if key in seen:
            continue
        seen.add(key)
        repository.add_fact(
            session, fact.content, fact.category, fact.created_at,
            importance=fact.importance, confidence=fact.confidence, source=fact.source,
            reference_count=fact.reference_count, last_accessed=fact.last_accessed,
        )  # fmt: skip


def _import_events(
    session: Session, events: list[CompletedEventModel], summary: ImportSummary
) -> None:
    """Insert new completed events (same ``eventId`` + ``completedAt`` = duplicate)."""
    rows = _existing(
        session, CompletedEventRow.completed_at, [e.completed_at for e in events],
        CompletedEventRow.event_id,
    )  # fmt: skip
    seen = {(event_id, completed_at) for completed_at, event_id in rows}
    for event in events:
        key = (event.event_id, event.completed_at)
        _count(summary, "completed_events", key not in seen)
        if key in seen:
            continue
        seen.add(key)
        repository.add_completed_event(
            session, event.event_id, event.completed_at, event_type=event.event_type,
            choice_index=event.choice_index, outcome=event.outcome,
            state_changes=event.state_changes,
        )  # fmt: skip


def _import_character(
    session: Session, model: CharacterModel | None, summary: ImportSummary
) -> None:
    """Take the file's character unless ours has interactions (a replace wiped ours)."""
    if model is None:
        return
    current = repository.load_character(session)
    take = current is None or current.total_interactions == 0
    _count(summary, "character", take)
    if take:
        values = {name: getattr(model, name) for name in _CHARACTER_FIELDS}
        mood = MoodState(
            primary=model.mood.primary,
            intensity=model.mood.intensity,
            secondary=model.mood.secondary,
            causes=list(model.mood.causes),
        )
        repository.save_character(session, CharacterState(mood=mood, **values))


def _import_relationship(
    session: Session, model: RelationshipModel | None, summary: ImportSummary
) -> None:
    """Take the file's familiarity record unless ours (same scope) has interactions."""
    if model is None:
        return
    current = repository.load_familiarity(session, model.scope)
    take = current is None or current.total_interactions == 0
    _count(summary, "relationship", take)
    if take:
        values = {name: getattr(model, name) for name in _RELATIONSHIP_FIELDS}
        repository.save_familiarity(
            session, Familiarity(score=model.relationship_score, **values)
        )
