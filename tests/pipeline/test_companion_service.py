"""The state service over a real database: loads, turns in one transaction, tracking."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.engine.state_updates import LlmSuggestion, MoodChange
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from tests.conftest import T0

HAPPY = "Thank you, I love talking with you!"


@pytest.fixture
def service(tmp_path):
    db = Database.open(tmp_path / "data")
    yield CompanionService(db)
    db.close()


def session_id(service):
    with service.db.session() as s:
        return repository.start_session(s, T0)


def test_user_turn_saves_state_familiarity_and_both_messages(service):
    sid = session_id(service)
    out = service.commit_user_turn(sid, HAPPY, "Aww, me too!", None, T0)
    loaded = service.load(T0).state
    assert loaded.total_interactions == 1 and loaded.affection == out.state.affection > 0
    assert service.familiarity().total_interactions == 1
    with service.db.read_session() as s:
        turns = repository.recent_turns(s)
    assert [(t.role, t.content) for t in turns] == [("user", HAPPY), ("assistant", "Aww, me too!")]


def test_conversation_turns_feed_the_depth_bonus(service):
    sid = session_id(service)
    for i in range(5):
        service.commit_user_turn(sid, "ok", "mm", None, T0 + timedelta(minutes=i))
    rel = service.familiarity()
    assert rel.conversation_depth_avg == pytest.approx((1 + 2 + 3 + 4 + 5) / 5)


def test_tracking_off_freezes_familiarity_but_not_the_state(service):
    service.set_tracking(False)
    service.commit_user_turn(None, HAPPY, "hi", None, T0)
    assert service.familiarity().total_interactions == 0
    assert service.load(T0).state.total_interactions == 1
    service.set_tracking(True)
    service.commit_user_turn(None, HAPPY, "hi", None, T0)
    assert service.familiarity().total_interactions == 1


def test_a_failing_turn_writes_nothing(service, monkeypatch):
    sid = session_id(service)
    before = service.load(T0).state

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(repository, "add_turn", broken)
    with pytest.raises(RuntimeError):
        service.commit_user_turn(sid, HAPPY, "hi", None, T0)
    monkeypatch.undo()
    assert service.load(T0).state == before
    assert service.familiarity().total_interactions == 0


def test_system_turn_keeps_the_away_clock(service):
    service.commit_user_turn(None, HAPPY, "hi", None, T0)
    state = service.load(T0).state
    later = T0 + timedelta(days=4)
    suggestion = LlmSuggestion(mood_change=MoodChange("playful", 5), affection_delta=20)
    service.commit_system_turn(None, "Reminder: stretch", "Time to stretch!", suggestion, later)
    after = service.load(T0 + timedelta(minutes=1)).state  # before the absence: no decay yet
    assert after.last_interaction == state.last_interaction
    assert after.total_interactions == 1 and after.affection == state.affection
    assert after.mood.primary == "playful"
    assert service.familiarity().total_interactions == 1


def test_load_brings_days_known_up_to_date(service):
    service.load(T0)
    assert service.load(T0 + timedelta(days=3)).state.days_known == 3
    # and it is saved: a load with the clock set back does not lower it
    assert service.load(T0).state.days_known == 3
