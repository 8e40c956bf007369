"""Event data: counts, unique ids, scene shape and length caps, romantic markers, gating."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.engine.character import new_character
from companion_desktop.engine.events import (
    ALL_EVENTS,
    EVENT_TYPES,
    EVENTS_BY_ID,
    MAX_CHOICE,
    MAX_DIALOGUE,
    MAX_NARRATION,
    MAX_RESPONSE,
    STRAIN_EVENT,
    Condition,
    apply_choice,
    check_events,
    merge_state_changes,
)
from companion_desktop.engine.events.milestones import MILESTONE_EVENTS
from companion_desktop.engine.events.random import RANDOM_EVENTS
from companion_desktop.engine.events.romantic import ROMANTIC_EVENTS
from companion_desktop.engine.events.time_based import TIME_BASED_EVENTS
from companion_desktop.engine.stages import STAGE_REQUIREMENTS
from tests.conftest import T0

EVERY = [*ALL_EVENTS, STRAIN_EVENT]
STATS = {"affection", "trust", "intimacy", "comfort", "respect", "energy"}


def test_at_least_thirty_events_unique_ids():
    assert len(ALL_EVENTS) >= 30
    ids = [e.id for e in EVERY]
    assert len(ids) == len(set(ids))
    scene_ids = [e.scene.id for e in EVERY if e.scene]
    assert len(scene_ids) == len(set(scene_ids))
    assert len(ALL_EVENTS) == (len(MILESTONE_EVENTS) + len(RANDOM_EVENTS) + len(ROMANTIC_EVENTS)
                               + len(TIME_BASED_EVENTS))
    assert all(m for m in (MILESTONE_EVENTS, RANDOM_EVENTS, ROMANTIC_EVENTS, TIME_BASED_EVENTS))


@pytest.mark.parametrize("event", EVERY, ids=lambda e: e.id)
def test_scene_shape_and_caps(event):
    assert event.type in EVENT_TYPES
    assert event.one_time or event.cooldown_days, "repeatable events need a cooldown"
    scene = event.scene
    assert scene is not None
    assert scene.intro and len(scene.intro) <= MAX_NARRATION
    assert scene.outro and len(scene.outro) <= MAX_NARRATION
    assert scene.dialogue and len(scene.dialogue) <= MAX_DIALOGUE
    assert 2 <= len(scene.choices) <= 3
    for choice in scene.choices:
        assert choice.text and len(choice.text) <= MAX_CHOICE
        assert choice.response and len(choice.response) <= MAX_RESPONSE
        for key, delta in choice.state_changes.items():
            if key == "mood":
                assert set(delta) == {"emotion", "intensity_delta"}
            else:
                assert key in STATS and -5 <= delta <= 12
    assert any(c.type == "mode_is" and c.value == "dating_sim" for c in event.conditions)


KNOWN_TYPES = {
    "stage_at_least", "stage_in", "stat_at_least", "stat_below", "days_known_at_least",
    "interactions_at_least", "streak_at_least", "hour_between", "weekday_in", "mood_in",
    "energy_at_least", "completed", "not_completed", "days_since_first_met_multiple_of",
    "hours_away_at_least", "chance", "mode_is",
}


def test_only_known_condition_types():
    for event in EVERY:
        for cond in event.conditions:
            assert cond.type in KNOWN_TYPES, (event.id, cond.type)


def _choice_with(event, marker):
    return [c for c in event.scene.choices if marker in c.unlocks]


@pytest.mark.parametrize("event_id,marker", [
    ("confession", "confession_accepted"),
    ("confession_revisit", "confession_accepted"),
    ("commitment", "commitment_accepted"),
    ("commitment_revisit", "commitment_accepted"),
])
def test_accept_grants_marker_and_defer_does_not(event_id, marker):
    event = EVENTS_BY_ID[event_id]
    accept = _choice_with(event, marker)
    assert len(accept) == 1
    assert marker in apply_choice(event, accept[0]).markers
    defer = [c for c in event.scene.choices if marker not in c.unlocks]
    assert defer
    for choice in defer:
        outcome = apply_choice(event, choice)
        assert marker not in outcome.markers
        assert outcome.markers == [event_id]


def test_markers_match_stage_table():
    assert STAGE_REQUIREMENTS["dating"].marker == "confession_accepted"
    assert STAGE_REQUIREMENTS["committed"].marker == "commitment_accepted"


@pytest.mark.parametrize("event_id,marker", [
    ("confession_revisit", "confession_accepted"),
    ("commitment_revisit", "commitment_accepted"),
])
def test_revisits_are_repeatable_and_gated(event_id, marker):
    event = EVENTS_BY_ID[event_id]
    assert not event.one_time and event.cooldown_days and event.cooldown_days > 0
    assert Condition("not_completed", marker) in event.conditions


def romantic_state(stage, *done):
    s = new_character(T0)
    s.relationship_stage = stage
    s.days_known = 40
    s.total_interactions = 400
    s.completed_events = ["first_meeting", *done]
    return s


class Never:
    def random(self):
        return 0.999


def pick(s, history=None, now=T0):
    pool = [e for e in ALL_EVENTS
            if e.id in ("confession", "confession_revisit", "commitment", "commitment_revisit")]
    got = check_events(pool, s, now, history=history or {}, rng=Never())
    return got.id if got else None


def test_romantic_gating_by_stage():
    assert pick(romantic_state("close_friend")) is None
    assert pick(romantic_state("romantic_interest")) == "confession"
    # deferred: the one-time confession is done, the revisit waits its cooldown
    hist = {"confession": T0 - timedelta(hours=1)}
    assert pick(romantic_state("romantic_interest", "confession"), hist) is None
    later = T0 + timedelta(days=EVENTS_BY_ID["confession_revisit"].cooldown_days)
    assert (pick(romantic_state("romantic_interest", "confession"), hist, later)
            == "confession_revisit")
    # accepted: no more confession, commitment needs dating
    assert pick(romantic_state("romantic_interest", "confession", "confession_accepted"),
                hist, later) is None
    dating = romantic_state("dating", "confession", "confession_accepted")
    assert pick(dating, hist, later) == "commitment"
    assert pick(romantic_state("committed", "confession", "confession_accepted", "commitment",
                               "commitment_accepted"), hist, later) is None


def test_apply_choice_merges_and_indexes():
    event = EVENTS_BY_ID["first_meeting"]
    outcome = apply_choice(event, 0)
    assert outcome.markers == ["first_meeting"]
    assert outcome.state_changes["affection"] == (
        event.state_changes["affection"] + event.scene.choices[0].state_changes["affection"])
    assert apply_choice(event, None).state_changes == merge_state_changes(event.state_changes)
    with pytest.raises(IndexError):
        apply_choice(event, 9)
    assert merge_state_changes({"mood": {"emotion": "sad", "intensity_delta": 1}, "trust": 1},
                               {"mood": {"emotion": "happy", "intensity_delta": 2},
                                "trust": 2}) == {
        "mood": {"emotion": "happy", "intensity_delta": 2}, "trust": 3}


def test_late_night_wraps_midnight_in_data():
    late = EVENTS_BY_ID["late_night_chat"]
    (window,) = [c.value for c in late.conditions if c.type == "hour_between"]
    assert window[0] > window[1]
