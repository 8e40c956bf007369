"""The action gate at each boundary."""

from __future__ import annotations

import pytest

from companion_desktop.engine.action_gate import ActionGate

KNOWN = {"wave", "nod", "bow"}


def test_unknown_and_empty_are_dropped():
    gate = ActionGate()
    assert gate.decide("dance", KNOWN, 0).reason == "unknown"
    assert gate.decide(None, KNOWN, 0).reason == "none"
    assert gate.decide("", KNOWN, 0).reason == "none"
    assert gate.decide("wave", KNOWN, 0).allowed  # drops left no trace


@pytest.mark.parametrize("gap,allowed", [(7.99, False), (8.0, True), (12.0, True)])
def test_any_action_within_8_seconds(gap, allowed):
    gate = ActionGate()
    assert gate.decide("wave", KNOWN, 100.0).allowed
    decision = gate.decide("nod", KNOWN, 100.0 + gap)
    assert decision.allowed is allowed and decision.reason == ("ok" if allowed else "too_soon")


@pytest.mark.parametrize("gap,allowed", [(19.99, False), (20.0, True)])
def test_same_action_within_20_seconds(gap, allowed):
    gate = ActionGate()
    assert gate.decide("wave", KNOWN, 0.0).allowed
    decision = gate.decide("wave", KNOWN, gap)
    assert decision.allowed is allowed and decision.reason == ("ok" if allowed else "repeat")


def test_dropped_requests_do_not_restart_the_clocks():
    gate = ActionGate()
    gate.decide("wave", KNOWN, 0.0)
    assert not gate.decide("nod", KNOWN, 5.0).allowed
    assert gate.decide("nod", KNOWN, 8.0).allowed  # measured from the wave, not the drop


@pytest.mark.parametrize("flag,reason", [("photo_mode", "photo_mode"),
                                         ("emote_playing", "emote_playing")])
def test_photo_mode_and_playing_emote_win_and_nothing_is_queued(flag, reason):
    gate = ActionGate()
    decision = gate.decide("wave", KNOWN, 0.0, **{flag: True})
    assert not decision.allowed and decision.reason == reason
    assert gate.decide("wave", KNOWN, 0.1).allowed  # skipped, not queued: no cooldown started
