"""Time-based recovery and decay, resolved when the state is loaded.

Spec "Time-Based Recovery and Decay": nothing happens under 30 minutes away.
Energy recovers on every load. Affection, trust and mood decay apply once per
absence: ``last_decay_at`` at or after ``last_interaction`` means this absence
is already accounted for, so reopening the app never decays twice. The next
real interaction (which moves ``last_interaction``) re-arms it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from .character import CharacterState, MoodState, clamp

MIN_HOURS = 0.5
FULL_RECOVERY_HOURS = 6.0
AFFECTION_GRACE_HOURS = 48.0
AFFECTION_RATE_PER_DAY = 0.01
AFFECTION_MAX_RATE = 0.05
AFFECTION_CAP = 50
TRUST_GRACE_HOURS = 7 * 24.0
TRUST_PER_WEEK = 2
TRUST_CAP = 10
MOOD_GRACE_HOURS = 72.0
MOOD_PER_DAY = 5
MOOD_CAP = 30
MISSING_YOU = "missing you"


@dataclass(frozen=True)
class DecayResult:
    """The state after decay and what moved (positive numbers are amounts)."""

    state: CharacterState
    hours_away: float
    energy_recovered: int = 0
    affection_lost: int = 0
    trust_lost: int = 0
    mood_intensity_added: int = 0
    changed: bool = False


def energy_recovery(energy: int, hours: float) -> int:
    """Points of energy recovered after ``hours`` away (0 when already full)."""
    if energy >= 100:
        return 0
    if hours >= FULL_RECOVERY_HOURS:
        return 100 - energy
    return max(1, math.floor((100 - energy) * hours / FULL_RECOVERY_HOURS))


def affection_loss(affection: int, hours: float) -> int:
    """1% per full day beyond the first two, at most 5%, at most 50 points."""
    if hours <= AFFECTION_GRACE_HOURS or affection <= 0:
        return 0
    days_beyond = math.floor(hours / 24) - 2
    rate = min(AFFECTION_MAX_RATE, AFFECTION_RATE_PER_DAY * days_beyond)
    return min(math.floor(affection * rate), AFFECTION_CAP)


def trust_loss(trust: int, hours: float) -> int:
    """2 per full week away once a week has passed, at most 10 (never below 0)."""
    if hours <= TRUST_GRACE_HOURS or trust <= 0:
        return 0
    return min(TRUST_PER_WEEK * math.floor(hours / TRUST_GRACE_HOURS), TRUST_CAP, trust)


def mood_intensity_rise(hours: float) -> int:
    """After 3 days: +5 intensity per full day away, at most 30."""
    if hours <= MOOD_GRACE_HOURS:
        return 0
    return min(MOOD_CAP, MOOD_PER_DAY * math.floor(hours / 24))


def resolve_time_decay_on_load(state: CharacterState, now: datetime) -> DecayResult:
    """Apply recovery and decay for the time since the last interaction."""
    if state.last_interaction is None:
        return DecayResult(state, 0.0)
    hours = (now - state.last_interaction).total_seconds() / 3600
    if hours < MIN_HOURS:
        return DecayResult(state, max(hours, 0.0))
    new = state.copy()
    energy = energy_recovery(state.energy, hours)
    new.energy = int(clamp(state.energy + energy, 0, 100))
    already = state.last_decay_at is not None and state.last_decay_at >= state.last_interaction
    affection = trust = mood_rise = 0
    if not already:
        affection = affection_loss(state.affection, hours)
        trust = trust_loss(state.trust, hours)
        new.affection = int(clamp(state.affection - affection, 0, 1000))
        new.trust = int(clamp(state.trust - trust, 0, 100))
        shift = hours > MOOD_GRACE_HOURS
        if shift:
            mood_rise = mood_intensity_rise(hours)
            new.mood = MoodState(
                primary="melancholy",
                intensity=int(clamp(state.mood.intensity + mood_rise, 0, 100)),
                secondary=state.mood.primary if state.mood.primary != "melancholy" else None,
                causes=state.mood.with_cause(MISSING_YOU),
            )
        if affection or trust or shift:
            new.last_decay_at = now
    changed = bool(energy) or new.last_decay_at != state.last_decay_at
    if changed:
        new.updated_at = now
    return DecayResult(new, hours, energy, affection, trust, mood_rise, changed)
