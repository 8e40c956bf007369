"""Dating Sim events: definitions, condition checks and our own scenes.

``check_events`` picks from ``ALL_EVENTS``; ``STRAIN_EVENT`` is dispatched
directly on a demotion when ``strain_due``; ``apply_choice`` returns what to
record once a scene is played.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .check import STRAIN_EVENT_ID, check_events, is_available
from .conditions import evaluate_all, evaluate_condition
from .milestones import MILESTONE_EVENTS
from .model import (
    EVENT_TYPES,
    MAX_CHOICE,
    MAX_DIALOGUE,
    MAX_NARRATION,
    MAX_RESPONSE,
    Condition,
    EventDefinition,
    Scene,
    SceneChoice,
)
from .random import RANDOM_EVENTS
from .romantic import COMMITMENT_MARKER, CONFESSION_MARKER, ROMANTIC_EVENTS
from .strain import STRAIN_COOLDOWN_DAYS, STRAIN_EVENT, strain_due
from .time_based import TIME_BASED_EVENTS

#: The regular pool (the strain event is not in it).
ALL_EVENTS: list[EventDefinition] = [
    *MILESTONE_EVENTS,
    *ROMANTIC_EVENTS,
    *TIME_BASED_EVENTS,
    *RANDOM_EVENTS,
]

EVENTS_BY_ID: dict[str, EventDefinition] = {e.id: e for e in [*ALL_EVENTS, STRAIN_EVENT]}


@dataclass(frozen=True)
class ChoiceOutcome:
    """What playing an event (and picking a choice) changes and records.

    ``state_changes``: the event's deltas plus the choice's (stats summed; the
    choice's mood wins). ``markers``: the event id (completion record), then the
    event's and the choice's unlocks, deduplicated, in order; add them to
    ``state.completed_events``. ``next_scene_id``: from the choice.
    """

    state_changes: dict[str, Any] = field(default_factory=dict)
    markers: list[str] = field(default_factory=list)
    next_scene_id: str | None = None


def merge_state_changes(*changes: dict[str, Any]) -> dict[str, Any]:
    """Sum stat deltas; a later ``mood`` replaces an earlier one."""
    merged: dict[str, Any] = {}
    for change in changes:
        for key, value in (change or {}).items():
            if key == "mood":
                merged["mood"] = dict(value)
            else:
                merged[key] = merged.get(key, 0) + value
    return merged


def apply_choice(event: EventDefinition, choice: SceneChoice | int | None = None) -> ChoiceOutcome:
    """The outcome of playing ``event`` with ``choice`` (a choice or its index;
    None = dismissed)."""
    if isinstance(choice, int):
        if event.scene is None or not 0 <= choice < len(event.scene.choices):
            raise IndexError(f"event {event.id!r} has no choice {choice}")
        choice = event.scene.choices[choice]
    markers: list[str] = []
    for marker in [event.id, *event.unlocks, *(choice.unlocks if choice else [])]:
        if marker not in markers:
            markers.append(marker)
    return ChoiceOutcome(
        state_changes=merge_state_changes(
            event.state_changes, choice.state_changes if choice else {}
        ),
        markers=markers,
        next_scene_id=choice.next_scene_id if choice else None,
    )


__all__ = [
    "ALL_EVENTS",
    "COMMITMENT_MARKER",
    "CONFESSION_MARKER",
    "EVENTS_BY_ID",
    "EVENT_TYPES",
    "MAX_CHOICE",
    "MAX_DIALOGUE",
    "MAX_NARRATION",
    "MAX_RESPONSE",
    "STRAIN_COOLDOWN_DAYS",
    "STRAIN_EVENT",
    "STRAIN_EVENT_ID",
    "ChoiceOutcome",
    "Condition",
    "EventDefinition",
    "Scene",
    "SceneChoice",
    "apply_choice",
    "check_events",
    "evaluate_all",
    "evaluate_condition",
    "is_available",
    "merge_state_changes",
    "strain_due",
]
