"""Evaluation of event conditions (DESIGN.md "Event condition types").

Value formats:
  stage_at_least: "friend"            stage_in: ["friend", "close_friend"]
  stat_at_least / stat_below: {"stat": "trust", "value": 40}
  days_known_at_least / interactions_at_least / streak_at_least / energy_at_least: int
  hour_between: [start, end]  local hours, start inclusive, end exclusive; wraps midnight
                              when start > end (22..2 = 22:00-01:59); start == end: all day
  weekday_in: [0..6] (0 = Monday)     mood_in: ["happy", ...] (mood.primary)
  completed / not_completed: event id or marker in state.completed_events
  days_since_first_met_multiple_of: n  (days_known > 0 and days_known % n == 0)
  hours_away_at_least: hours since the previous interaction (passed in)
  chance: probability 0..1 drawn from the passed-in rng     mode_is: "dating_sim" | "companion"
An unknown type, or a malformed value, never passes.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

from ..character import CharacterState, stage_index
from .model import Condition


class RandomSource(Protocol):
    def random(self) -> float: ...


def _stat(state: CharacterState, name: str) -> int | None:
    if name not in ("affection", "trust", "intimacy", "comfort", "respect", "energy"):
        return None
    return int(getattr(state, name))


def _hour_between(value: Any, hour: int) -> bool:
    start, end = (int(v) for v in value)
    if start == end:
        return True
    if start < end:
        return start <= hour < end
    return hour >= start or hour < end


def evaluate_condition(
    condition: Condition,
    state: CharacterState,
    now: datetime,
    *,
    hours_away: float | None = None,
    rng: RandomSource | None = None,
) -> bool:
    """Whether ``condition`` holds; ``now`` is local time."""
    kind, value = condition.type, condition.value
    try:
        if kind == "stage_at_least":
            target = stage_index(value)
            return target >= 0 and stage_index(state.relationship_stage) >= target
        if kind == "stage_in":
            return state.relationship_stage in value
        if kind in ("stat_at_least", "stat_below"):
            current = _stat(state, value["stat"])
            if current is None:
                return False
            return (
                current >= value["value"] if kind == "stat_at_least" else current < value["value"]
            )
        if kind == "days_known_at_least":
            return state.days_known >= value
        if kind == "interactions_at_least":
            return state.total_interactions >= value
        if kind == "streak_at_least":
            return state.current_streak >= value
        if kind == "hour_between":
            return _hour_between(value, now.hour)
        if kind == "weekday_in":
            return now.weekday() in value
        if kind == "mood_in":
            return state.mood.primary in value
        if kind == "energy_at_least":
            return state.energy >= value
        if kind == "completed":
            return value in state.completed_events
        if kind == "not_completed":
            return value not in state.completed_events
        if kind == "days_since_first_met_multiple_of":
            n = int(value)
            return n > 0 and state.days_known > 0 and state.days_known % n == 0
        if kind == "hours_away_at_least":
            return hours_away is not None and hours_away >= value
        if kind == "chance":
            if rng is None:
                return False
            return rng.random() < float(value)
        if kind == "mode_is":
            return state.app_mode == value
    except (TypeError, ValueError, KeyError):
        return False
    return False


def evaluate_all(
    conditions: list[Condition],
    state: CharacterState,
    now: datetime,
    *,
    hours_away: float | None = None,
    rng: RandomSource | None = None,
) -> bool:
    """All conditions pass. ``chance`` ones are drawn last, only if the rest pass."""
    ordered = ([c for c in conditions if c.type != "chance"]
               + [c for c in conditions if c.type == "chance"])
    return all(evaluate_condition(c, state, now, hours_away=hours_away, rng=rng) for c in ordered)
