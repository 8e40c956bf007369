"""Applying a played event to the state: its (authored) deltas, mood, markers, stage."""

from __future__ import annotations

from datetime import datetime

from ..character import CharacterState
from ..stages import StageCheck, evaluate_stage
from ..state_updates import MoodChange, StateUpdates
from ..turn import apply_updates

_STATS = ("energy", "affection", "trust", "intimacy", "comfort", "respect")


def apply_event_outcome(state: CharacterState, state_changes: dict, markers: list[str],
                        now: datetime) -> tuple[CharacterState, StageCheck]:
    """The state after an event: stat deltas within range (only mood and energy in
    Companion Mode), the mood change, the markers recorded once, the stage re-checked
    (an accept choice's marker can unlock a stage)."""
    mood = state_changes.get("mood")
    change = MoodChange(mood["emotion"], int(mood.get("intensity_delta", 0)),
                        mood.get("cause")) if isinstance(mood, dict) and mood.get("emotion") else None
    deltas = {f"{stat}_delta": int(state_changes.get(stat, 0)) for stat in _STATS}
    new, _applied = apply_updates(state, StateUpdates(mood_change=change, **deltas))
    for marker in markers:
        if marker not in new.completed_events:
            new.completed_events.append(marker)
    new.updated_at = now
    check = evaluate_stage(new)
    new.relationship_stage = check.stage
    return new, check
