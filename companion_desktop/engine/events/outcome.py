"""Applying a played event to the state: its (authored) deltas, mood, markers, stage."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..character import CharacterState
from ..stages import StageCheck, evaluate_stage
from ..state_updates import MoodChange, StateUpdates
from ..turn import apply_updates


def apply_event_outcome(state: CharacterState, state_changes: dict[str, Any], markers: list[str],
                        now: datetime) -> tuple[CharacterState, StageCheck]:
    """The state after an event: stat deltas within range (only mood and energy in
    Companion Mode), the mood change, the markers recorded once, the stage re-checked
    (an accept choice's marker can unlock a stage)."""
    mood = state_changes.get("mood")
    change = (MoodChange(mood["emotion"], int(mood.get("intensity_delta", 0)), mood.get("cause"))
              if isinstance(mood, dict) and mood.get("emotion") else None)

    def delta(stat: str) -> int:
        return int(state_changes.get(stat, 0))

    updates = StateUpdates(
        mood_change=change, energy_delta=delta("energy"), affection_delta=delta("affection"),
        trust_delta=delta("trust"), intimacy_delta=delta("intimacy"),
        comfort_delta=delta("comfort"), respect_delta=delta("respect"),
    )
    new, _applied = apply_updates(state, updates)
    for marker in markers:
        if marker not in new.completed_events:
            new.completed_events.append(marker)
    new.updated_at = now
    check = evaluate_stage(new)
    new.relationship_stage = check.stage
    return new, check
