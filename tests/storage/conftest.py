"""Fixtures for storage tests: a fresh data folder and database per test (real SQLite)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from companion_desktop.storage.db import Database

NOW = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)


@pytest.fixture
def now() -> datetime:
    return NOW


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def db(data_dir: Path) -> Iterator[Database]:
    database = Database.open(data_dir)
    yield database
    database.close()


@pytest.fixture
def make_db(tmp_path: Path) -> Iterator[Callable[[str], Database]]:
    """Open more databases, each in its own folder under tmp_path."""
    opened: list[Database] = []

    def make(name: str) -> Database:
        database = Database.open(tmp_path / name)
        opened.append(database)
        return database

    yield make
    for database in opened:
        database.close()


def dump_tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (alembic_version included), read with plain sqlite3."""
    conn = sqlite3.connect(path)
    try:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        return {
            name: conn.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall() for name in names
        }
    finally:
        conn.close()


@pytest.fixture
def table_dump() -> Callable[[Path], dict[str, list[tuple[Any, ...]]]]:
    return dump_tables


def _populate(database: Database, now: datetime) -> None:
    """A companion with history: character, familiarity, sessions, turns, facts, events."""
    from datetime import timedelta

    from companion_desktop.engine.character import MoodState, new_character
    from companion_desktop.engine.familiarity import Familiarity
    from companion_desktop.storage import repository as repo
    from companion_desktop.storage.models import FactRow

    day = timedelta(days=1)
    with database.session() as session:
        state = new_character(now - 10 * day).copy(
            name="Mika",
            affection=320,
            trust=41,
            intimacy=22,
            comfort=38,
            respect=19,
            relationship_stage="close_friend",
            mood=MoodState("playful", 66, "curious", ["a joke", "tea"]),
            total_interactions=140,
            days_known=10,
            current_streak=3,
            longest_streak=5,
            streak_last_date="2024-04-30",
            last_interaction=now - day,
            last_decay_at=now - day,
            completed_events=["first_meeting", "first_joke"],
            extensions={"likes": ["rain"]},
            updated_at=now - day,
        )
        repo.save_character(session, state)
        repo.save_familiarity(
            session,
            Familiarity(
                score=44.5, total_interactions=140, positive_interactions=90,
                negative_interactions=3, avg_message_length=61.25, conversation_depth_avg=7.5,
                shared_references={"jokes": ["404 life not found"]},
                first_interaction_at=now - 10 * day, last_interaction_at=now - day,
            ),
        )  # fmt: skip
        first = repo.add_session(
            session, now - 2 * day, ended_at=now - 2 * day + timedelta(hours=1),
            summary="tea and rain", key_topics=["tea", "rain"], emotional_arc="calm",
            state_snapshot={"mood": "content", "affection": 300}, message_count=2,
        )  # fmt: skip
        second = repo.start_session(session, now - day)
        repo.add_turn(
            session, first, "user", "I love rainy days.", now - 2 * day, {"sentiment": 0.6}
        )
        repo.add_turn(session, first, "assistant", "Me too!", now - 2 * day + timedelta(seconds=5))
        repo.add_turn(session, second, "user", "Morning!", now - day)
        repo.add_turn(session, None, "system", "She waved.", now - day + timedelta(seconds=1))
        fact = repo.add_fact(
            session, "User loves rainy days.", "user", now - 2 * day, 72, 0.9, "chat"
        )
        row = session.get(FactRow, fact)
        assert row is not None
        row.embedding, row.embedding_model = b"\x01" * 1536, "minilm-v2"
        repo.add_fact(
            session, "We laughed about 404 life not found.", "shared_experience", now - day,
            reference_count=4, last_accessed=now,
        )  # fmt: skip
        repo.add_fact(session, "User trusts her with secrets.", "relationship", now - day, 88, 0.6)
        repo.add_completed_event(session, "first_meeting", now - 10 * day, "milestone", 0, "met")
        repo.add_completed_event(
            session, "first_joke", now - 2 * day, "random", 1, "laughed", {"affection": 5}
        )


@pytest.fixture
def populated(db: Database, now: datetime) -> Database:
    _populate(db, now)
    return db


def _logical_view(database: Database) -> dict[str, Any]:
    """The saved kinds without row ids (turns point at their session's start time)."""
    from companion_desktop.storage import repository as repo
    from companion_desktop.storage.models import CompletedEventRow

    with database.read_session() as session:
        sessions = repo.list_sessions(session)
        started = {s.id: s.started_at for s in sessions}
        turns = [
            (started.get(t.session_id or -1), t.role, t.content, t.created_at, t.meta)
            for t in repo.recent_turns(session, limit=10_000)
        ]
        facts = [
            (f.content, f.category, f.importance, f.confidence, f.source, f.reference_count,
             f.created_at, f.last_accessed)
            for f in repo.list_facts(session)
        ]  # fmt: skip
        events = [
            (e.event_id, e.event_type, e.choice_index, e.outcome, e.state_changes, e.completed_at)
            for e in session.query(CompletedEventRow).order_by(CompletedEventRow.id)
        ]
        return {
            "character": repo.load_character(session),
            "familiarity": repo.load_familiarity(session),
            "sessions": [s.__class__(**{**vars(s), "id": 0}) for s in sessions],
            "turns": turns,
            "facts": facts,
            "events": events,
        }


@pytest.fixture(name="populate")
def populate_fixture() -> Callable[[Database, datetime], None]:
    return _populate


@pytest.fixture(name="logical_view")
def logical_view_fixture() -> Callable[[Database], dict[str, Any]]:
    return _logical_view
