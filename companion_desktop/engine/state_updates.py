"""State deltas: the heuristic baseline, the model's suggestion, and merging them.

Pure (standard library only). Deltas are integers in stat points.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MoodChange:
    """Set the mood to ``emotion`` (canonical) and move intensity by ``intensity_delta``."""

    emotion: str
    intensity_delta: int = 0
    cause: str | None = None


@dataclass(frozen=True)
class SharedReference:
    """An inside joke, nickname or shared memory (relationship-system.md)."""

    type: str  # "jokes" | "nicknames" | "memories"
    content: str


@dataclass(frozen=True)
class StateUpdates:
    """Deltas to apply for one turn (the baseline, or the merged result)."""

    mood_change: MoodChange | None = None
    energy_delta: int = 0
    affection_delta: int = 0
    trust_delta: int = 0
    intimacy_delta: int = 0
    comfort_delta: int = 0
    respect_delta: int = 0
    new_memory: str | None = None
    triggered_event: str | None = None
    action: str | None = None
    expression: str | None = None
    shared_reference: SharedReference | None = None


@dataclass(frozen=True)
class LlmSuggestion:
    """The model's JSON block after sanitizing; None means "not given"."""

    mood_change: MoodChange | None = None
    affection_delta: int | None = None
    trust_delta: int | None = None
    intimacy_delta: int | None = None
    comfort_delta: int | None = None
    respect_delta: int | None = None
    new_memory: str | None = None
    triggered_event: str | None = None
    action: str | None = None
    expression: str | None = None
    shared_reference: SharedReference | None = None
