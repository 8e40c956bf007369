"""Relationship stages in Dating Sim Mode: requirements, promotion, damped demotion.

Promotion happens as soon as every minimum of the next stage is met (stages are
climbed in order, so a missing marker blocks every stage above it). A stage
holds until one of its stat floors is missed by more than the hysteresis band:
a stat below 85% of the floor demotes. Days known, interactions and markers only
grow, so they are never scaled. A real demotion raises the strain flag.
"""

from __future__ import annotations

from dataclasses import dataclass

from .character import DATING_SIM_STAGES, CharacterState, stage_index

DEMOTION_HYSTERESIS = 0.85


@dataclass(frozen=True)
class StageRequirement:
    """Minimums for a stage (stats in points, days in local calendar days)."""

    affection: int = 0
    trust: int = 0
    intimacy: int = 0
    comfort: int = 0
    respect: int = 0
    days_known: int = 0
    interactions: int = 0
    marker: str | None = None


#: DESIGN.md "Stage requirements (Dating Sim Mode)".
STAGE_REQUIREMENTS: dict[str, StageRequirement] = {
    "stranger": StageRequirement(),
    "acquaintance": StageRequirement(40, 10, 0, 10, 0, 0, 8),
    "friend": StageRequirement(140, 25, 10, 25, 10, 2, 35),
    "close_friend": StageRequirement(300, 40, 25, 40, 20, 5, 90),
    "romantic_interest": StageRequirement(450, 55, 40, 55, 30, 10, 160),
    "dating": StageRequirement(600, 65, 55, 60, 40, 14, 240, "confession_accepted"),
    "committed": StageRequirement(780, 78, 70, 72, 50, 30, 380, "commitment_accepted"),
    "soulmate": StageRequirement(930, 90, 85, 85, 60, 60, 600),
}

_STATS = ("affection", "trust", "intimacy", "comfort", "respect")


@dataclass(frozen=True)
class StageCheck:
    """Result of a stage evaluation. ``strain`` is True exactly on a real demotion."""

    previous: str
    stage: str

    @property
    def changed(self) -> bool:
        return self.previous != self.stage

    @property
    def promoted(self) -> bool:
        return stage_index(self.stage) > stage_index(self.previous)

    @property
    def demoted(self) -> bool:
        return self.changed and stage_index(self.stage) < stage_index(self.previous)

    @property
    def strain(self) -> bool:
        return self.demoted


def meets(state: CharacterState, stage: str, stat_scale: float = 1.0) -> bool:
    """Whether ``state`` meets ``stage``'s minimums, stat floors multiplied by ``stat_scale``."""
    req = STAGE_REQUIREMENTS[stage]
    for stat in _STATS:
        if getattr(state, stat) < getattr(req, stat) * stat_scale:
            return False
    if state.days_known < req.days_known or state.total_interactions < req.interactions:
        return False
    return req.marker is None or req.marker in state.completed_events


def _highest_held(state: CharacterState, stat_scale: float, ceiling: int) -> str:
    """The highest stage up to index ``ceiling`` whose whole chain below it is met."""
    best = DATING_SIM_STAGES[0]
    for stage in DATING_SIM_STAGES[1 : ceiling + 1]:
        if not meets(state, stage, stat_scale):
            break
        best = stage
    return best


def supported_stage(state: CharacterState) -> str:
    """The highest Dating Sim stage the stats, days, interactions and markers support now."""
    return _highest_held(state, 1.0, len(DATING_SIM_STAGES) - 1)


def evaluate_stage(state: CharacterState) -> StageCheck:
    """The stage ``state`` should be at after a turn (Dating Sim Mode only).

    In Companion Mode the stage stays ``companion``. Otherwise: promote to the
    supported stage when it is higher; when lower, keep the current stage while
    it holds within the hysteresis band, else drop to the highest stage that
    holds within the band.
    """
    current = state.relationship_stage
    if state.app_mode == "companion":
        return StageCheck(current, "companion")
    supported = supported_stage(state)
    if current not in DATING_SIM_STAGES:
        return StageCheck(current, supported)
    if stage_index(supported) >= stage_index(current):
        return StageCheck(current, supported)
    held = _highest_held(state, DEMOTION_HYSTERESIS, stage_index(current))
    return StageCheck(current, held if stage_index(held) > stage_index(supported) else supported)


def higher_stage(a: str | None, b: str) -> str:
    """The higher of two Dating Sim stages (``a`` may be None or ``companion``)."""
    if a is None or a not in DATING_SIM_STAGES:
        return b
    return a if stage_index(a) >= stage_index(b) else b
