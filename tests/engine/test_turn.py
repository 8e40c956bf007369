"""A turn's effect on the state: user turns, Companion Mode, system events."""

from __future__ import annotations

from datetime import timedelta

from companion_desktop.engine.character import new_character
from companion_desktop.engine.familiarity import Familiarity
from companion_desktop.engine.state_updates import LlmSuggestion, MoodChange, SharedReference
from companion_desktop.engine.turn import apply_system_turn, apply_user_turn
from tests.conftest import T0

HAPPY = "Thank you so much, I love talking with you, this is wonderful!"


def test_user_turn_counts_and_moves_stats():
    state = new_character(T0)
    out = apply_user_turn(state, HAPPY, None, T0 + timedelta(minutes=1))
    new = out.state
    assert new.total_interactions == 1
    assert new.current_streak == 1 and new.streak_last_date == T0.date().isoformat()
    assert new.last_interaction == T0 + timedelta(minutes=1)
    assert new.energy == 98
    assert out.applied["affection"] > 0 and new.affection == out.applied["affection"]
    assert new.mood.primary in ("happy", "content")
    assert state.total_interactions == 0  # the input is never mutated


def test_model_suggestion_is_bounded_by_merge():
    state = new_character(T0)
    suggestion = LlmSuggestion(affection_delta=20, trust_delta=10, intimacy_delta=10)
    out = apply_user_turn(state, "ok", suggestion, T0)
    # "ok": baseline affection +1, trust 0 -> caps max(2, 5) = 5 and max(0, 3) = 3
    assert out.applied["affection"] == 5
    assert out.applied["trust"] == 3
    assert out.applied["intimacy"] == 5


def test_stats_stay_in_range_and_applied_reports_what_landed():
    state = new_character(T0)
    state.affection = 998
    state.comfort = 0
    out = apply_user_turn(state, HAPPY, LlmSuggestion(affection_delta=5, comfort_delta=-3), T0)
    assert out.state.affection == 1000 and out.applied["affection"] == 2
    assert out.state.comfort == 0 and out.applied["comfort"] == 0


def test_companion_mode_moves_only_mood_and_energy():
    state = new_character(T0)
    state.app_mode, state.relationship_stage = "companion", "companion"
    before = {s: getattr(state, s)
              for s in ("affection", "trust", "intimacy", "comfort", "respect")}
    out = apply_user_turn(
        state, HAPPY, LlmSuggestion(mood_change=MoodChange("playful", 10), affection_delta=5), T0
    )
    assert {s: getattr(out.state, s) for s in before} == before
    assert out.state.energy == 98 and out.state.mood.primary == "playful"
    assert out.state.relationship_stage == "companion" and not out.stage.changed


def test_turn_promotes_stage_immediately():
    state = new_character(T0)
    state.affection, state.trust, state.comfort, state.total_interactions = 39, 10, 10, 7
    out = apply_user_turn(state, HAPPY, None, T0)
    assert out.state.relationship_stage == "acquaintance" and out.stage.promoted


def test_familiarity_recorded_with_shared_reference():
    rel = Familiarity()
    suggestion = LlmSuggestion(shared_reference=SharedReference("jokes", "the coffee incident"))
    out = apply_user_turn(new_character(T0), HAPPY, suggestion, T0, familiarity=rel,
                          conversation_turns=3)
    assert out.familiarity.total_interactions == 1
    assert out.familiarity.score > 0
    assert out.familiarity.shared_references["jokes"] == ["the coffee incident"]
    assert rel.total_interactions == 0


def test_tracking_off_records_no_familiarity():
    out = apply_user_turn(new_character(T0), HAPPY, None, T0, familiarity=None)
    assert out.familiarity is None


def test_system_turn_never_advances_relationship_or_away_clock():
    state = new_character(T0)
    state.last_interaction = T0 - timedelta(days=2)
    state.affection, state.total_interactions, state.current_streak = 100, 10, 3
    state.streak_last_date = (T0 - timedelta(days=2)).date().isoformat()
    suggestion = LlmSuggestion(
        mood_change=MoodChange("happy", 10, "reminded them"), affection_delta=20, trust_delta=10
    )
    out = apply_system_turn(state, suggestion, T0)
    new = out.state
    assert new.mood.primary == "happy"
    for field in ("affection", "trust", "intimacy", "comfort", "respect", "energy",
                  "total_interactions", "current_streak", "streak_last_date",
                  "last_interaction", "days_known", "relationship_stage"):
        assert getattr(new, field) == getattr(state, field), field
    assert all(v == 0 for v in out.applied.values())
