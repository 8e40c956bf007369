"""Time decay on load: every number of the spec, at its boundaries."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.engine.character import MoodState, new_character
from companion_desktop.engine.decay import (
    affection_loss,
    energy_recovery,
    mood_intensity_rise,
    resolve_time_decay_on_load,
    trust_loss,
)
from tests.conftest import T0

H = timedelta(hours=1)


def away(hours: float, **stats):
    state = new_character(T0 - timedelta(days=100))
    state.last_interaction = T0 - hours * H
    for key, value in stats.items():
        setattr(state, key, value)
    return state


@pytest.mark.parametrize(
    "energy,hours,expected",
    [
        (100, 10, 0),
        (40, 6, 60),
        (40, 5.99, 59),  # floor(60 * 5.99 / 6)
        (40, 3, 30),
        (40, 0.5, 5),
        (99, 0.5, 1),  # floor(1 * 0.5/6) = 0 -> at least 1
        (0, 1, 16),
        (0, 100, 100),
    ],
)
def test_energy_recovery(energy, hours, expected):
    assert energy_recovery(energy, hours) == expected


@pytest.mark.parametrize(
    "affection,hours,expected",
    [
        (500, 48, 0),
        (500, 48.5, 0),  # days beyond the first two: 0
        (500, 72, 5),  # 1 day beyond -> 1%
        (500, 95.9, 5),
        (500, 96, 10),  # 2%
        (500, 24 * 7, 25),  # 5 days beyond -> 5%
        (500, 24 * 30, 25),  # capped at 5%
        (999, 24 * 10, 49),  # floor(999 * 0.05)
        (1000, 24 * 10, 50),
        (1000, 24 * 100, 50),  # cap 50 per absence
        (0, 24 * 10, 0),
    ],
)
def test_affection_loss(affection, hours, expected):
    assert affection_loss(affection, hours) == expected


@pytest.mark.parametrize(
    "trust,hours,expected",
    [
        (50, 168, 0),  # starts after 7 days
        (50, 168.1, 2),
        (50, 335.9, 2),  # one full week
        (50, 336, 4),
        (50, 168 * 5, 10),
        (50, 168 * 9, 10),  # cap 10
        (3, 168 * 9, 3),  # never below zero
        (0, 168 * 2, 0),
    ],
)
def test_trust_loss(trust, hours, expected):
    assert trust_loss(trust, hours) == expected


@pytest.mark.parametrize(
    "hours,expected", [(72, 0), (72.1, 15), (96, 20), (24 * 6, 30), (24 * 20, 30)]
)
def test_mood_rise(hours, expected):
    assert mood_intensity_rise(hours) == expected


def test_nothing_under_thirty_minutes():
    state = away(0.49, energy=10)
    result = resolve_time_decay_on_load(state, T0)
    assert not result.changed and result.state.energy == 10


def test_thirty_minutes_recovers_energy():
    result = resolve_time_decay_on_load(away(0.5, energy=10), T0)
    assert result.changed and result.state.energy == 10 + 7  # floor(90 * 0.5 / 6)


def test_never_interacted_means_nothing_to_decay():
    state = new_character(T0 - timedelta(days=30))
    assert not resolve_time_decay_on_load(state, T0).changed


def test_long_absence_applies_everything_once():
    state = away(24 * 10, energy=20, affection=600, trust=60)
    state.mood = MoodState("happy", 40, None, ["a", "b", "c", "d", "e"])
    result = resolve_time_decay_on_load(state, T0)
    new = result.state
    assert new.energy == 100
    assert new.affection == 570  # 5% of 600
    assert new.trust == 58  # one full week
    assert new.mood.primary == "melancholy"
    assert new.mood.intensity == 70  # 40 + min(30, 10 * 5)
    assert new.mood.causes == ["b", "c", "d", "e", "missing you"]
    assert new.last_decay_at == T0
    assert (result.affection_lost, result.trust_lost, result.mood_intensity_added) == (30, 2, 30)


def test_opening_twice_never_decays_twice():
    first = resolve_time_decay_on_load(away(24 * 10, energy=20, affection=600, trust=60), T0)
    second = resolve_time_decay_on_load(first.state, T0 + timedelta(hours=5))
    assert second.state.affection == first.state.affection
    assert second.state.trust == first.state.trust
    assert second.state.mood == first.state.mood
    assert second.affection_lost == 0 and second.trust_lost == 0


def test_next_interaction_rearms_decay():
    first = resolve_time_decay_on_load(away(24 * 10, affection=600), T0).state
    first.last_interaction = T0 + timedelta(minutes=5)  # she talked to us again
    later = resolve_time_decay_on_load(first, T0 + timedelta(minutes=5, days=4))
    assert later.affection_lost == 11  # 4 days: 2 beyond the grace -> 2% of 570, floored
    assert later.state.last_decay_at == T0 + timedelta(minutes=5, days=4)


def test_short_absence_does_not_consume_the_decay():
    # 1 day away: energy only; decay stays armed for a later load in the same absence
    state = away(24, energy=50, affection=600)
    first = resolve_time_decay_on_load(state, T0)
    assert first.state.last_decay_at is None
    later = resolve_time_decay_on_load(first.state, T0 + timedelta(days=3))
    assert later.affection_lost == 12  # 4 days away -> 2 days beyond -> 2%


def test_energy_recovers_on_every_load():
    first = resolve_time_decay_on_load(away(3, energy=40), T0).state
    assert first.energy == 70
    second = resolve_time_decay_on_load(first, T0 + timedelta(minutes=1)).state
    assert second.energy == 85  # the spec: energy recovery runs on each load
