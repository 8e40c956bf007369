"""App modes: Companion Mode (a plain assistant) and Dating Sim Mode (the default).

Switching to Companion Mode saves the current stage in ``saved_dating_sim_stage``
and locks the stage to ``companion``. Switching back restores the higher of the
saved stage and the stage the stats support now, so time spent in Companion Mode
never costs a stage.
"""

from __future__ import annotations

from datetime import datetime

from .character import APP_MODES, CharacterState
from .stages import higher_stage, supported_stage


def switch_mode(state: CharacterState, mode: str, now: datetime) -> CharacterState:
    """``state`` in ``mode`` ("companion" or "dating_sim"); unchanged copy if already there."""
    if mode not in APP_MODES:
        raise ValueError(f"unknown mode {mode!r}: use one of {', '.join(APP_MODES)}")
    if state.app_mode == mode:
        return state.copy()
    if mode == "companion":
        saved = state.relationship_stage if state.relationship_stage != "companion" else None
        return state.copy(
            app_mode="companion",
            relationship_stage="companion",
            saved_dating_sim_stage=saved or state.saved_dating_sim_stage,
            updated_at=now,
        )
    stage = higher_stage(state.saved_dating_sim_stage, supported_stage(state))
    return state.copy(
        app_mode="dating_sim",
        relationship_stage=stage,
        saved_dating_sim_stage=None,
        updated_at=now,
    )
