"""Stages: the DESIGN.md table, immediate promotion, damped demotion, strain."""

from __future__ import annotations

import pytest

from companion_desktop.engine.character import DATING_SIM_STAGES, new_character
from companion_desktop.engine.stages import (
    DEMOTION_HYSTERESIS,
    STAGE_REQUIREMENTS,
    evaluate_stage,
    supported_stage,
)
from tests.conftest import T0

STATS = ("affection", "trust", "intimacy", "comfort", "respect")
COLUMNS = (*STATS, "days_known", "interactions", "marker")

# DESIGN.md "Stage requirements (Dating Sim Mode)", copied by hand: every test below
# builds its states from this copy, never from the implementation's own table, so a
# changed cell in the code fails here.
#            affection trust intimacy comfort respect days interactions marker
DESIGN_TABLE = {
    "stranger": (0, 0, 0, 0, 0, 0, 0, None),
    "acquaintance": (40, 10, 0, 10, 0, 0, 8, None),
    "friend": (140, 25, 10, 25, 10, 2, 35, None),
    "close_friend": (300, 40, 25, 40, 20, 5, 90, None),
    "romantic_interest": (450, 55, 40, 55, 30, 10, 160, None),
    "dating": (600, 65, 55, 60, 40, 14, 240, "confession_accepted"),
    "committed": (780, 78, 70, 72, 50, 30, 380, "commitment_accepted"),
    "soulmate": (930, 90, 85, 85, 60, 60, 600, None),
}


def design(stage: str, column: str):
    """One cell of the hand copy of DESIGN.md's table."""
    return DESIGN_TABLE[stage][COLUMNS.index(column)]


def at_floor(stage: str, **over):
    """A state exactly at ``stage``'s minimums (markers of every stage up to it granted)."""
    state = new_character(T0)
    for stat in STATS:
        setattr(state, stat, design(stage, stat))
    state.days_known = design(stage, "days_known")
    state.total_interactions = design(stage, "interactions")
    idx = DATING_SIM_STAGES.index(stage)
    state.completed_events = [
        design(s, "marker") for s in DATING_SIM_STAGES[: idx + 1] if design(s, "marker")
    ]
    state.relationship_stage = stage
    for key, value in over.items():
        setattr(state, key, value)
    return state


def test_stage_order_matches_design():
    assert tuple(DATING_SIM_STAGES) == tuple(DESIGN_TABLE)


@pytest.mark.parametrize("stage", list(DESIGN_TABLE))
@pytest.mark.parametrize("column", COLUMNS)
def test_every_cell_matches_design(stage, column):
    assert getattr(STAGE_REQUIREMENTS[stage], column) == design(stage, column)


def test_hysteresis_matches_design():
    assert DEMOTION_HYSTERESIS == 0.85


@pytest.mark.parametrize("stage", DATING_SIM_STAGES)
def test_exact_floor_is_supported(stage):
    assert supported_stage(at_floor(stage)) == stage


MINIMUMS = [
    (stage, field, design(stage, "interactions" if field == "total_interactions" else field))
    for stage in DATING_SIM_STAGES[1:]
    for field in (*STATS, "days_known", "total_interactions")
]


@pytest.mark.parametrize("stage,field,floor", [m for m in MINIMUMS if m[2] > 0])
def test_one_below_any_minimum_is_not_supported(stage, field, floor):
    state = at_floor(stage)
    setattr(state, field, floor - 1)
    assert supported_stage(state) != stage


@pytest.mark.parametrize("stage", ["dating", "committed"])
def test_marker_gates_stage(stage):
    state = at_floor(stage)
    state.completed_events.remove(design(stage, "marker"))
    state.relationship_stage = "stranger"
    assert supported_stage(state) == DATING_SIM_STAGES[DATING_SIM_STAGES.index(stage) - 1]


def test_missing_confession_blocks_everything_above():
    state = at_floor("soulmate")
    state.completed_events = ["commitment_accepted"]
    assert supported_stage(state) == "romantic_interest"


def test_promotion_is_immediate_and_can_skip_stages():
    state = at_floor("close_friend", relationship_stage="stranger")
    check = evaluate_stage(state)
    assert check.stage == "close_friend" and check.promoted and not check.strain


@pytest.mark.parametrize("stat", STATS)
def test_stat_within_band_holds_stage(stat):
    floor = design("friend", stat)
    held = -(-floor * 85 // 100)  # ceil(0.85 * floor): the lowest value that still holds
    state = at_floor("friend", **{stat: held})
    check = evaluate_stage(state)
    assert check.stage == "friend" and not check.changed and not check.strain


@pytest.mark.parametrize("stat", STATS)
def test_stat_below_band_demotes_with_strain(stat):
    floor = design("friend", stat)
    below = -(-floor * 85 // 100) - 1
    state = at_floor("friend", **{stat: below})
    check = evaluate_stage(state)
    assert check.stage == "acquaintance"
    assert check.demoted and check.strain


def test_days_and_interactions_are_not_scaled():
    # 34 interactions is within 85% of 35, but counts are never scaled.
    state = at_floor("friend", total_interactions=34)
    assert evaluate_stage(state).stage == "acquaintance"
    state = at_floor("friend", days_known=1)
    assert evaluate_stage(state).stage == "acquaintance"


def test_demotion_lands_on_highest_stage_held_in_band():
    state = at_floor("close_friend")
    state.affection = 200  # below 85% of close_friend (255) but within friend's band
    check = evaluate_stage(state)
    assert check.stage == "friend" and check.strain


def test_demotion_can_fall_several_stages():
    state = at_floor("romantic_interest")
    for stat in STATS:
        setattr(state, stat, 0)
    check = evaluate_stage(state)
    assert check.stage == "stranger" and check.strain


def test_one_bad_turn_at_threshold_does_not_flap():
    state = at_floor("acquaintance")
    state.affection = 39  # one point under the floor: stays acquaintance
    assert evaluate_stage(state).stage == "acquaintance"
    state.affection = 40
    assert not evaluate_stage(state).changed


def test_companion_mode_locks_stage():
    state = at_floor("close_friend", app_mode="companion", relationship_stage="companion")
    check = evaluate_stage(state)
    assert check.stage == "companion" and not check.changed
