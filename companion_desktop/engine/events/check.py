"""Pick the event to fire after a Dating Sim turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta

from ..character import CharacterState
from .conditions import RandomSource, evaluate_all
from .model import EventDefinition

STRAIN_EVENT_ID = "relationship_strain"


def is_available(
    event: EventDefinition, state: CharacterState, now: datetime, history: Mapping[str, datetime]
) -> bool:
    """One-time events never twice; repeatable ones wait ``cooldown_days`` after their last
    completion (or one of ``cooldown_from``), the boundary included."""
    if event.one_time:
        return event.id not in history and event.id not in state.completed_events
    if not event.cooldown_days:
        return True
    times = [history[i] for i in (event.id, *event.cooldown_from) if i in history]
    return not times or now - max(times) >= timedelta(days=event.cooldown_days)


def check_events(
    events: Iterable[EventDefinition],
    state: CharacterState,
    now: datetime,
    *,
    history: Mapping[str, datetime] | None = None,
    hours_away: float | None = None,
    rng: RandomSource | None = None,
) -> EventDefinition | None:
    """The highest-priority qualifying event (ties: definition order), or None.

    Never in Companion Mode; the strain event is never picked from a pool.
    Candidates are visited by priority so ``chance`` draws happen only for events
    that could still win.
    """
    if state.app_mode == "companion":
        return None
    history = history or {}
    pool = [e for e in events if e.id != STRAIN_EVENT_ID]
    ranked = sorted(enumerate(pool), key=lambda pair: (-pair[1].priority, pair[0]))
    for _, event in ranked:
        if not is_available(event, state, now, history):
            continue
        if evaluate_all(event.conditions, state, now, hours_away=hours_away, rng=rng):
            return event
    return None
