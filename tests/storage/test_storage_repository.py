"""Rows <-> engine dataclasses: every field survives a round trip."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sqlalchemy import select

from companion_desktop.engine.character import CharacterState, MoodState, new_character
from companion_desktop.engine.familiarity import Familiarity
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import CompletedEventRow, FactRow
from companion_desktop.storage.records import FactRecord, TurnRecord

TOKYO = timezone(timedelta(hours=9))


def _full_character(now: datetime) -> CharacterState:
    return CharacterState(
        first_met=datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=TOKYO),
        created_at=datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
        updated_at=now,
        name="Mika",
        system_prompt="You are Mika.",
        extensions={"soul": {"likes": ["rain", "tea"]}, "version": 2},
        mood=MoodState(
            primary="flustered", intensity=73, secondary="happy", causes=["a", "b", "c", "d", "e"]
        ),
        energy=64,
        affection=612,
        trust=55,
        intimacy=41,
        comfort=60,
        respect=33,
        app_mode="companion",
        relationship_stage="companion",
        saved_dating_sim_stage="dating",
        personality={"openness": 30, "romanticStyle": "bold", "communicationAdaptations": ["x"]},
        last_interaction=now - timedelta(hours=5),
        last_decay_at=now - timedelta(hours=1),
        days_known=120,
        total_interactions=2048,
        current_streak=7,
        longest_streak=30,
        streak_last_date="2024-04-30",
        completed_events=["first_meeting", "confession_accepted"],
    )


def test_character_round_trip_every_field(db: Database, now: datetime) -> None:
    state = _full_character(now)
    with db.session() as session:
        assert repo.load_character(session) is None
        repo.save_character(session, state)
    with db.read_session() as session:
        loaded = repo.load_character(session)
    assert loaded == state
    assert loaded is not None
    assert loaded.first_met.tzinfo is not None and loaded.first_met.utcoffset() == timedelta(0)
    assert loaded.mood.causes == ["a", "b", "c", "d", "e"]


def test_character_update_keeps_one_row_and_rounds_stats(db: Database, now: datetime) -> None:
    with db.session() as session:
        state = repo.load_or_create_character(session, now)
    assert state == new_character(now)
    changed = state.copy(affection=412.6, trust=9.4)  # type: ignore[arg-type]
    changed.mood.causes.append("a kind word")
    with db.session() as session:
        repo.save_character(session, changed)
    with db.read_session() as session:
        loaded = repo.load_or_create_character(session, now + timedelta(days=1))
        assert session.connection().exec_driver_sql(
            "SELECT count(*) FROM character_state"
        ).scalar() == 1
    assert (loaded.affection, loaded.trust) == (413, 9)
    assert isinstance(loaded.affection, int)
    assert loaded.mood.causes == ["a kind word"]
    assert loaded.first_met == now


def test_familiarity_round_trip_global_and_scoped(db: Database, now: datetime) -> None:
    global_rel = Familiarity(
        scope=None,
        score=47.25,
        total_interactions=80,
        positive_interactions=50,
        negative_interactions=4,
        avg_message_length=83.5,
        conversation_depth_avg=6.2,
        shared_references={"jokes": ["the coffee incident"], "nicknames": ["debug buddy"]},
        first_interaction_at=now - timedelta(days=30),
        last_interaction_at=now,
    )
    scoped = Familiarity(scope=42, score=5.0, total_interactions=2)
    with db.session() as session:
        assert repo.load_familiarity(session) is None
        repo.save_familiarity(session, global_rel)
        repo.save_familiarity(session, scoped)
    with db.session() as session:
        assert repo.load_familiarity(session) == global_rel
        assert repo.load_familiarity(session, 42) == scoped
        repo.save_familiarity(session, Familiarity(scope=None, score=48.0))
        count = session.connection().exec_driver_sql("SELECT count(*) FROM familiarity").scalar()
        assert count == 2
    with db.read_session() as session:
        assert repo.load_familiarity(session) == Familiarity(scope=None, score=48.0)
        assert repo.load_or_create_familiarity(session, 7) == Familiarity(scope=7)


def test_sessions_and_turns(db: Database, now: datetime) -> None:
    with db.session() as session:
        first = repo.start_session(session, now)
        ids = [
            repo.add_turn(session, first, role, f"message {i}", now + timedelta(seconds=i), meta)
            for i, (role, meta) in enumerate(
                [("user", {"sentiment": 0.5}), ("assistant", None), ("system", {"event": "x"})]
            )
        ]
        orphan = repo.add_turn(session, None, "user", "no session", now + timedelta(seconds=9))
        repo.end_session(session, first, now + timedelta(minutes=5))
    with db.read_session() as session:
        assert repo.count_session_turns(session, first) == 3
        recent = repo.recent_turns(session, limit=2)
        assert [t.id for t in recent] == [ids[2], orphan]
        everything = repo.recent_turns(session)
        [record] = repo.list_sessions(session)
    assert everything[0] == TurnRecord(
        id=ids[0], session_id=first, role="user", content="message 0", created_at=now,
        meta={"sentiment": 0.5},
    )  # fmt: skip
    assert [t.created_at for t in everything] == sorted(t.created_at for t in everything)
    assert record.ended_at == now + timedelta(minutes=5)
    assert record.message_count == 3


def test_facts_and_completed_events(db: Database, now: datetime) -> None:
    with db.session() as session:
        fact_id = repo.add_fact(session, "User has a cat named Miso.", "user", now, 70, 0.9, "chat")
        session.get(FactRow, fact_id).embedding = b"\x00" * 16  # type: ignore[union-attr]
        repo.add_fact(session, "We watched a film.", "shared_experience", now + timedelta(1))
        event_id = repo.add_completed_event(
            session, "first_date", now, "milestone", 1, "accepted", {"affection": 10}
        )
    with db.read_session() as session:
        facts = repo.list_facts(session)
        row = session.execute(
            select(CompletedEventRow).where(CompletedEventRow.id == event_id)
        ).scalar_one()
    assert facts[0] == FactRecord(
        id=fact_id, content="User has a cat named Miso.", category="user", importance=70.0,
        confidence=0.9, created_at=now, source="chat", has_embedding=True,
    )  # fmt: skip
    assert facts[1].importance == 50 and facts[1].confidence == 0.8
    assert facts[1].has_embedding is False
    assert (row.event_id, row.choice_index) == ("first_date", 1)
    assert row.state_changes == {"affection": 10}
