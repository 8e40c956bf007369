"""The companion's state: persona, mood and the five relationship stats.

Pure data (standard library only). Field names are snake_case versions of the
spec's ``CharacterState``; ``storage.savefile`` maps them to camelCase.

Ranges: energy, trust, intimacy, comfort, respect 0-100; affection 0-1000;
mood intensity 0-100. Times are timezone-aware ``datetime`` objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

EMOTIONS: tuple[str, ...] = (
    "happy",
    "sad",
    "excited",
    "anxious",
    "content",
    "frustrated",
    "curious",
    "affectionate",
    "playful",
    "melancholy",
    "flustered",
    "neutral",
)

APP_MODES: tuple[str, ...] = ("companion", "dating_sim")

#: The eight Dating Sim stages, lowest first.
DATING_SIM_STAGES: tuple[str, ...] = (
    "stranger",
    "acquaintance",
    "friend",
    "close_friend",
    "romantic_interest",
    "dating",
    "committed",
    "soulmate",
)

#: Every stage: the Companion Mode stage plus the eight Dating Sim stages.
STAGES: tuple[str, ...] = ("companion", *DATING_SIM_STAGES)

#: Inclusive bounds of each stat.
STAT_RANGES: dict[str, tuple[int, int]] = {
    "energy": (0, 100),
    "affection": (0, 1000),
    "trust": (0, 100),
    "intimacy": (0, 100),
    "comfort": (0, 100),
    "respect": (0, 100),
}

#: The five relationship stats (energy is not one of them).
RELATIONSHIP_STATS: tuple[str, ...] = ("affection", "trust", "intimacy", "comfort", "respect")

MAX_MOOD_CAUSES = 5

DEFAULT_NAME = "Hana"
DEFAULT_SYSTEM_PROMPT = (
    "You are Hana, a warm, curious and gently playful companion who lives on the "
    "user's desktop as a 3D avatar. You speak naturally, remember what matters to "
    "them, and show your feelings through your face and gestures."
)


def default_personality() -> dict[str, Any]:
    """Personality axes (-100..100) and preferences, keyed as in the spec's save file."""
    return {
        "openness": 0,
        "warmth": 20,
        "assertiveness": -10,
        "playfulness": 10,
        "sensitivity": 20,
        "likesTeasing": 0,
        "prefersDirectness": -10,
        "romanticStyle": "slow_burn",
        "communicationAdaptations": [],
    }


def clamp(value: float, low: float, high: float) -> float:
    """``value`` limited to ``[low, high]``."""
    return max(low, min(high, value))


def stage_index(stage: str) -> int:
    """Position of a Dating Sim stage (stranger = 0); -1 for ``companion``."""
    return DATING_SIM_STAGES.index(stage) if stage in DATING_SIM_STAGES else -1


@dataclass
class MoodState:
    """What she feels and why. ``intensity`` is 0-100; ``causes`` holds the last 5."""

    primary: str = "neutral"
    intensity: int = 50
    secondary: str | None = None
    causes: list[str] = field(default_factory=list)

    def with_cause(self, cause: str | None) -> list[str]:
        """The causes list with ``cause`` appended, keeping the last five."""
        if not cause:
            return list(self.causes)
        return [*self.causes, cause][-MAX_MOOD_CAUSES:]


@dataclass
class CharacterState:
    """The single companion record: persona plus stats (spec ``CharacterState``)."""

    first_met: datetime
    created_at: datetime
    updated_at: datetime
    name: str = DEFAULT_NAME
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    extensions: dict[str, Any] = field(default_factory=dict)
    mood: MoodState = field(default_factory=MoodState)
    energy: int = 100
    affection: int = 0
    trust: int = 0
    intimacy: int = 0
    comfort: int = 0
    respect: int = 0
    app_mode: str = "dating_sim"
    relationship_stage: str = "stranger"
    saved_dating_sim_stage: str | None = None
    personality: dict[str, Any] = field(default_factory=default_personality)
    last_interaction: datetime | None = None
    last_decay_at: datetime | None = None
    days_known: int = 0
    total_interactions: int = 0
    current_streak: int = 0
    longest_streak: int = 0
    streak_last_date: str | None = None  # local calendar day, YYYY-MM-DD
    completed_events: list[str] = field(default_factory=list)

    def copy(self, **changes: Any) -> CharacterState:
        """A copy with ``changes`` applied; lists, dicts and mood are copied too."""
        base = replace(
            self,
            mood=replace(self.mood, causes=list(self.mood.causes)),
            extensions=dict(self.extensions),
            personality=dict(self.personality),
            completed_events=list(self.completed_events),
        )
        return replace(base, **changes) if changes else base


def new_character(now: datetime) -> CharacterState:
    """A fresh companion met at ``now`` (Dating Sim Mode, stranger, full energy)."""
    return CharacterState(first_met=now, created_at=now, updated_at=now)
