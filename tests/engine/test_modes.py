"""Companion Mode and Dating Sim Mode switching."""

from __future__ import annotations

import pytest

from companion_desktop.engine.character import new_character
from companion_desktop.engine.modes import switch_mode
from tests.conftest import T0


def friend_state():
    state = new_character(T0)
    state.affection, state.trust, state.intimacy, state.comfort, state.respect = 140, 25, 10, 25, 10
    state.days_known, state.total_interactions = 2, 35
    state.relationship_stage = "friend"
    return state


def test_to_companion_saves_and_locks_stage():
    state = switch_mode(friend_state(), "companion", T0)
    assert state.app_mode == "companion"
    assert state.relationship_stage == "companion"
    assert state.saved_dating_sim_stage == "friend"


def test_back_restores_saved_stage_even_if_stats_fell():
    state = switch_mode(friend_state(), "companion", T0)
    state.affection = 0  # stats dropped while in Companion Mode
    back = switch_mode(state, "dating_sim", T0)
    assert back.relationship_stage == "friend"
    assert back.saved_dating_sim_stage is None


def test_back_takes_supported_stage_when_higher():
    state = switch_mode(friend_state(), "companion", T0)
    state.affection, state.trust, state.intimacy, state.comfort, state.respect = 300, 40, 25, 40, 20
    state.days_known, state.total_interactions = 5, 90
    assert switch_mode(state, "dating_sim", T0).relationship_stage == "close_friend"


def test_switching_to_same_mode_changes_nothing():
    state = friend_state()
    again = switch_mode(state, "dating_sim", T0)
    assert again == state and again is not state


def test_round_trip_twice_keeps_saved_stage():
    state = switch_mode(friend_state(), "companion", T0)
    state = switch_mode(state, "companion", T0)
    assert state.saved_dating_sim_stage == "friend"


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="unknown mode"):
        switch_mode(friend_state(), "harem", T0)
