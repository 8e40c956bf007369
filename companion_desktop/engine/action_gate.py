"""Which of the model's requested actions (animations) actually play.

Spec "Animation Library": unknown ids are dropped, the same animation again within
20 seconds is dropped, and any action within 8 seconds of the previous one is
dropped. Photo mode and an emote already playing always win: the request is
skipped, not queued. Pure: times are seconds on any monotonic clock, passed in.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

SAME_ACTION_COOLDOWN_S = 20.0
ANY_ACTION_COOLDOWN_S = 8.0


@dataclass(frozen=True)
class GateDecision:
    allowed: bool
    reason: str  # "ok", "unknown", "repeat", "too_soon", "photo_mode", "emote_playing", "none"


@dataclass
class ActionGate:
    """Remembers what played when; ``decide`` records an allowed action as played."""

    last_at: float | None = None
    played_at: dict[str, float] = field(default_factory=dict)

    def decide(self, action: str | None, known: Collection[str], now: float, *,
               photo_mode: bool = False, emote_playing: bool = False) -> GateDecision:
        if not action:
            return GateDecision(False, "none")
        if action not in known:
            return GateDecision(False, "unknown")
        if photo_mode:
            return GateDecision(False, "photo_mode")
        if emote_playing:
            return GateDecision(False, "emote_playing")
        previous = self.played_at.get(action)
        if previous is not None and now - previous < SAME_ACTION_COOLDOWN_S:
            return GateDecision(False, "repeat")
        if self.last_at is not None and now - self.last_at < ANY_ACTION_COOLDOWN_S:
            return GateDecision(False, "too_soon")
        self.last_at = now
        self.played_at[action] = now
        return GateDecision(True, "ok")
