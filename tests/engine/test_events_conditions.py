"""Event conditions and the event check: every condition type, boundaries, picking."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from companion_desktop.engine.character import new_character
from companion_desktop.engine.events import (
    ALL_EVENTS,
    STRAIN_EVENT,
    Condition,
    EventDefinition,
    check_events,
    evaluate_condition,
    strain_due,
)
from tests.conftest import LOCAL, T0


def state(**over):
    s = new_character(T0)
    for key, value in over.items():
        setattr(s, key, value)
    return s


def at(hour: int, day: int = 10) -> datetime:
    """2026-03-<day> at ``hour`` local; 2026-03-09 is a Monday."""
    return datetime(2026, 3, day, hour, 0, tzinfo=LOCAL)


def test_reference_weekday():
    assert at(12, 9).weekday() == 0


CASES = [
    # (condition type, value, state overrides, now, hours_away, expected)
    ("stage_at_least", "friend", {"relationship_stage": "friend"}, T0, None, True),
    ("stage_at_least", "friend", {"relationship_stage": "close_friend"}, T0, None, True),
    ("stage_at_least", "friend", {"relationship_stage": "acquaintance"}, T0, None, False),
    ("stage_at_least", "friend", {"relationship_stage": "companion"}, T0, None, False),
    ("stage_at_least", "nonsense", {"relationship_stage": "soulmate"}, T0, None, False),
    ("stage_in", ["friend", "dating"], {"relationship_stage": "dating"}, T0, None, True),
    ("stage_in", ["friend", "dating"], {"relationship_stage": "committed"}, T0, None, False),
    ("stat_at_least", {"stat": "trust", "value": 40}, {"trust": 40}, T0, None, True),
    ("stat_at_least", {"stat": "trust", "value": 40}, {"trust": 39}, T0, None, False),
    ("stat_at_least", {"stat": "bogus", "value": 0}, {}, T0, None, False),
    ("stat_below", {"stat": "comfort", "value": 10}, {"comfort": 9}, T0, None, True),
    ("stat_below", {"stat": "comfort", "value": 10}, {"comfort": 10}, T0, None, False),
    ("days_known_at_least", 7, {"days_known": 7}, T0, None, True),
    ("days_known_at_least", 7, {"days_known": 6}, T0, None, False),
    ("interactions_at_least", 10, {"total_interactions": 10}, T0, None, True),
    ("interactions_at_least", 10, {"total_interactions": 9}, T0, None, False),
    ("streak_at_least", 3, {"current_streak": 3}, T0, None, True),
    ("streak_at_least", 3, {"current_streak": 2}, T0, None, False),
    ("hour_between", [9, 17], {}, at(9), None, True),
    ("hour_between", [9, 17], {}, at(16), None, True),
    ("hour_between", [9, 17], {}, at(17), None, False),
    ("hour_between", [9, 17], {}, at(8), None, False),
    ("hour_between", [22, 2], {}, at(22), None, True),
    ("hour_between", [22, 2], {}, at(23), None, True),
    ("hour_between", [22, 2], {}, at(0), None, True),
    ("hour_between", [22, 2], {}, at(1), None, True),
    ("hour_between", [22, 2], {}, at(2), None, False),
    ("hour_between", [22, 2], {}, at(21), None, False),
    ("hour_between", [22, 2], {}, at(12), None, False),
    ("weekday_in", [0], {}, at(12, 9), None, True),
    ("weekday_in", [5, 6], {}, at(12, 14), None, True),
    ("weekday_in", [5, 6], {}, at(12, 15), None, True),
    ("weekday_in", [5, 6], {}, at(12, 13), None, False),
    ("mood_in", ["happy", "content"], {}, T0, None, False),
    ("energy_at_least", 50, {"energy": 50}, T0, None, True),
    ("energy_at_least", 50, {"energy": 49}, T0, None, False),
    ("completed", "first_meeting", {"completed_events": ["first_meeting"]}, T0, None, True),
    ("completed", "confession_accepted", {"completed_events": ["confession"]}, T0, None, False),
    ("not_completed", "confession_accepted", {"completed_events": ["confession"]}, T0, None, True),
    ("not_completed", "confession_accepted", {"completed_events": ["confession_accepted"]}, T0,
     None, False),
    ("days_since_first_met_multiple_of", 7, {"days_known": 0}, T0, None, False),
    ("days_since_first_met_multiple_of", 7, {"days_known": 7}, T0, None, True),
    ("days_since_first_met_multiple_of", 7, {"days_known": 14}, T0, None, True),
    ("days_since_first_met_multiple_of", 7, {"days_known": 8}, T0, None, False),
    ("hours_away_at_least", 48, {}, T0, 48.0, True),
    ("hours_away_at_least", 48, {}, T0, 47.9, False),
    ("hours_away_at_least", 48, {}, T0, None, False),
    ("mode_is", "dating_sim", {}, T0, None, True),
    ("mode_is", "dating_sim", {"app_mode": "companion"}, T0, None, False),
    ("no_such_condition", 1, {}, T0, None, False),
]


@pytest.mark.parametrize("kind,value,over,now,hours_away,expected", CASES)
def test_condition_table(kind, value, over, now, hours_away, expected):
    cond = Condition(kind, value)
    assert evaluate_condition(cond, state(**over), now, hours_away=hours_away,
                              rng=random.Random(1)) is expected


def test_mood_in_matches_primary():
    s = state()
    s.mood.primary = "happy"
    assert evaluate_condition(Condition("mood_in", ["happy"]), s, T0)
    assert not evaluate_condition(Condition("mood_in", ["sad"]), s, T0)


class FixedRandom:
    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


@pytest.mark.parametrize("draw,p,expected", [(0.29, 0.3, True), (0.3, 0.3, False),
                                             (0.0, 0.0, False), (0.99, 1.0, True)])
def test_chance_boundary(draw, p, expected):
    assert evaluate_condition(Condition("chance", p), state(), T0,
                              rng=FixedRandom(draw)) is expected


def test_chance_seeded_is_reproducible_and_roughly_right():
    cond = Condition("chance", 0.25)
    runs = []
    for _ in range(2):
        rng = random.Random(42)
        runs.append([evaluate_condition(cond, state(), T0, rng=rng) for _ in range(2000)])
    assert runs[0] == runs[1]
    assert 400 < sum(runs[0]) < 600
    assert not evaluate_condition(cond, state(), T0, rng=None)


def ev(id_: str, priority: int = 0, *, one_time: bool = True, cooldown: float | None = None,
       conditions=None):
    return EventDefinition(
        id=id_, name=id_, type="conditional", conditions=conditions or [],
        one_time=one_time, cooldown_days=cooldown, priority=priority,
    )


def test_all_conditions_must_pass():
    e = ev("a", conditions=[Condition("days_known_at_least", 1),
                            Condition("mode_is", "dating_sim")])
    assert check_events([e], state(days_known=0), T0) is None
    assert check_events([e], state(days_known=1), T0) is e


def test_one_time_never_twice():
    e = ev("a")
    assert check_events([e], state(), T0) is e
    assert check_events([e], state(), T0, history={"a": T0 - timedelta(days=900)}) is None
    assert check_events([e], state(completed_events=["a"]), T0) is None


@pytest.mark.parametrize("elapsed,expected", [
    (timedelta(days=3) - timedelta(seconds=1), False),
    (timedelta(days=3), True),
    (timedelta(days=4), True),
])
def test_cooldown_boundary(elapsed, expected):
    e = ev("r", one_time=False, cooldown=3)
    got = check_events([e], state(completed_events=["r"]), T0, history={"r": T0 - elapsed})
    assert (got is e) is expected


def test_repeatable_without_history_fires():
    e = ev("r", one_time=False, cooldown=3)
    assert check_events([e], state(), T0) is e


def test_priority_wins_and_ties_keep_order():
    low, high, high2 = ev("low", 1), ev("high", 5), ev("high2", 5)
    assert check_events([low, high, high2], state(), T0) is high
    assert check_events([low, high2, high], state(), T0) is high2
    assert check_events([low], state(), T0) is low


def test_chance_drawn_only_for_candidates():
    rng = random.Random(7)
    blocked = ev("blocked", 10, conditions=[Condition("days_known_at_least", 99),
                                            Condition("chance", 1.0)])
    winner = ev("winner", 5, conditions=[Condition("chance", 1.0)])
    assert check_events([blocked, winner], state(), T0, rng=rng) is winner


def test_seeded_check_is_deterministic():
    def run(seed):
        rng = random.Random(seed)
        s = state(relationship_stage="close_friend", days_known=20, total_interactions=200,
                  trust=60, intimacy=40, completed_events=["first_meeting", "deep_conversation"])
        hist = {"first_meeting": T0 - timedelta(days=20),
                "deep_conversation": T0 - timedelta(days=5)}
        return [getattr(check_events(ALL_EVENTS, s, T0, history=hist, rng=rng), "id", None)
                for _ in range(50)]

    assert run(3) == run(3)
    assert any(run(3))


def test_companion_mode_returns_none():
    e = ev("a", 100)
    assert check_events([e], state(app_mode="companion", relationship_stage="companion"),
                        T0) is None
    s = state(app_mode="companion", relationship_stage="companion", total_interactions=5)
    assert check_events(ALL_EVENTS, s, T0, rng=FixedRandom(0.0), hours_away=100) is None


def test_strain_never_picked_from_pool():
    assert STRAIN_EVENT not in ALL_EVENTS
    assert check_events([STRAIN_EVENT], state(), T0) is None


@pytest.mark.parametrize("last,expected", [
    (None, True),
    (T0 - timedelta(hours=23, minutes=59), False),
    (T0 - timedelta(days=1), True),
    (T0 - timedelta(days=2), True),
])
def test_strain_cooldown(last, expected):
    assert strain_due(last, T0) is expected


def test_first_meeting_fires_first():
    got = check_events(ALL_EVENTS, state(total_interactions=1), T0, rng=FixedRandom(0.99))
    assert got is not None and got.id == "first_meeting"


def test_late_night_event_wraps_midnight():
    s = state(relationship_stage="friend", completed_events=["first_meeting"])
    late = next(e for e in ALL_EVENTS if e.id == "late_night_chat")
    hist = {"first_meeting": T0}
    assert check_events([late], s, at(0, 11), history=hist, rng=FixedRandom(0.0)) is late
    assert check_events([late], s, at(23), history=hist, rng=FixedRandom(0.0)) is late
    assert check_events([late], s, at(12), history=hist, rng=FixedRandom(0.0)) is None


def test_cooldown_from_counts_other_events():
    original = ev("orig")
    revisit = EventDefinition(id="rev", name="rev", type="conditional", one_time=False,
                              cooldown_days=2, cooldown_from=["orig"])
    hist = {"orig": T0 - timedelta(days=1)}
    assert check_events([original, revisit], state(), T0, history=hist) is None
    assert check_events([revisit], state(), T0 + timedelta(days=1), history=hist) is revisit
    hist["rev"] = T0
    assert check_events([revisit], state(), T0 + timedelta(days=1), history=hist) is None
