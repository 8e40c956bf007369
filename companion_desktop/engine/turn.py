"""One turn's effect on the state: the app-side half of the spec's Interaction Flow.

``apply_user_turn`` runs, for a user message: streak and days known, the
heuristic baseline merged with the model's sanitized suggestion, the bounded
state change (only mood and energy in Companion Mode), the stage check (Dating
Sim Mode) and the familiarity record. ``apply_system_turn`` is the same for a
machine-generated turn (a fired reminder): only her mood may move; no stat,
counter, streak, familiarity or away clock changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .character import RELATIONSHIP_STATS, STAT_RANGES, CharacterState, clamp
from .familiarity import Familiarity, add_shared_reference, record_interaction
from .heuristics import MessageAnalysis, analyze_message, calculate_baseline
from .stages import StageCheck, evaluate_stage
from .state_updates import LlmSuggestion, StateUpdates, apply_mood_change, merge_updates
from .streak import Streak, days_known, update_streak


@dataclass(frozen=True)
class TurnOutcome:
    """The new state and what actually moved (after range clamps)."""

    state: CharacterState
    updates: StateUpdates
    applied: dict[str, int] = field(default_factory=dict)
    stage: StageCheck | None = None
    familiarity: Familiarity | None = None
    analysis: MessageAnalysis | None = None


def register_interaction(state: CharacterState, now: datetime) -> CharacterState:
    """Count a user interaction at ``now`` (local time): streak, days known, away clock."""
    streak = update_streak(
        Streak(state.current_streak, state.longest_streak, state.streak_last_date), now.date()
    )
    return state.copy(
        total_interactions=state.total_interactions + 1,
        current_streak=streak.current,
        longest_streak=streak.longest,
        streak_last_date=streak.last_date,
        days_known=days_known(state.first_met, now, state.days_known),
        last_interaction=now,
        updated_at=now,
    )


def apply_updates(
    state: CharacterState, updates: StateUpdates
) -> tuple[CharacterState, dict[str, int]]:
    """Apply deltas within each stat's range; Companion Mode moves only mood and energy.

    Returns the new state and the deltas that actually landed (``energy`` plus the
    five relationship stats, 0 where clamped away or locked).
    """
    new = state.copy(mood=apply_mood_change(state.mood, updates.mood_change))
    movable = ("energy",) if state.app_mode == "companion" else ("energy", *RELATIONSHIP_STATS)
    applied: dict[str, int] = {}
    for stat in ("energy", *RELATIONSHIP_STATS):
        if stat not in movable:
            applied[stat] = 0
            continue
        low, high = STAT_RANGES[stat]
        before = getattr(state, stat)
        after = int(clamp(before + getattr(updates, f"{stat}_delta"), low, high))
        setattr(new, stat, after)
        applied[stat] = after - before
    return new, applied


def apply_user_turn(
    state: CharacterState,
    message: str,
    suggestion: LlmSuggestion | None,
    now: datetime,
    *,
    familiarity: Familiarity | None = None,
    conversation_turns: int = 1,
) -> TurnOutcome:
    """The state after the user said ``message`` and the model suggested ``suggestion``.

    ``familiarity`` is None when relationship tracking is off; ``conversation_turns``
    counts the turns so far in the current session (this one included).
    """
    analysis = analyze_message(message)
    baseline = calculate_baseline(analysis)
    merged = merge_updates(baseline, suggestion or LlmSuggestion(), non_latin=analysis.non_latin)
    counted = register_interaction(state, now)
    new, applied = apply_updates(counted, merged)
    check = evaluate_stage(new)
    new.relationship_stage = check.stage
    rel = None
    if familiarity is not None:
        rel = record_interaction(
            familiarity, analysis.sentiment, len(message), conversation_turns, now
        )
        if merged.shared_reference is not None:
            ref = merged.shared_reference
            rel = add_shared_reference(rel, ref.type, ref.content)
    return TurnOutcome(new, merged, applied, check, rel, analysis)


def apply_system_turn(
    state: CharacterState, suggestion: LlmSuggestion | None, now: datetime
) -> TurnOutcome:
    """A machine-generated turn: her mood may change; nothing else moves."""
    mood_change = suggestion.mood_change if suggestion else None
    updates = StateUpdates(
        mood_change=mood_change,
        new_memory=None,
        action=suggestion.action if suggestion else None,
        expression=suggestion.expression if suggestion else None,
    )
    new = state.copy(mood=apply_mood_change(state.mood, mood_change))
    if mood_change is not None:
        new.updated_at = now
    applied = {stat: 0 for stat in ("energy", *RELATIONSHIP_STATS)}
    return TurnOutcome(
        new, updates, applied, StageCheck(state.relationship_stage, state.relationship_stage)
    )
