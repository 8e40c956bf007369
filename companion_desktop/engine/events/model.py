"""Event definitions, scenes and choices (spec ``src/lib/types/events.ts``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

EVENT_TYPES: tuple[str, ...] = ("milestone", "random", "scheduled", "conditional", "anniversary")

#: Length caps of scene text (characters), as in the spec's moment validation.
MAX_NARRATION = 400
MAX_DIALOGUE = 1200
MAX_CHOICE = 160
MAX_RESPONSE = 800


@dataclass(frozen=True)
class Condition:
    """One condition; ``type`` is a DESIGN.md condition type, ``value`` its argument."""

    type: str
    value: Any = None


@dataclass(frozen=True)
class SceneChoice:
    text: str
    response: str
    state_changes: dict[str, Any] = field(default_factory=dict)
    next_scene_id: str | None = None
    unlocks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Scene:
    id: str
    intro: str | None = None
    dialogue: str | None = None
    choices: list[SceneChoice] = field(default_factory=list)
    outro: str | None = None
    expression_override: str | None = None


@dataclass(frozen=True)
class EventDefinition:
    """``state_changes``: stat deltas plus an optional ``mood`` {emotion, intensity_delta}."""

    id: str
    name: str
    type: str
    conditions: list[Condition] = field(default_factory=list)
    scene: Scene | None = None
    state_changes: dict[str, Any] = field(default_factory=dict)
    unlocks: list[str] = field(default_factory=list)
    one_time: bool = True
    cooldown_days: float | None = None
    priority: int = 0
    #: Other event ids whose completion also starts this event's cooldown (a revisit
    #: waits ``cooldown_days`` after the deferred original, not just after itself).
    cooldown_from: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:
            raise ValueError(f"unknown event type {self.type!r}")
