"""Mood expression: the DESIGN table, flashes, fading and face layer priority."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_desktop.engine.character import EMOTIONS
from companion_desktop.engine.mood_expression import (
    FLASH_FADE_S,
    FLASH_HOLD_S,
    FLASH_HOLD_SPEAKING_S,
    MOOD_EXPRESSION_TABLE,
    FaceLayers,
    FlashState,
    compose_expression_weights,
    flash_expression_target,
    mood_expression_target,
    resolve_layers,
)

VRM1 = ("happy", "angry", "sad", "relaxed", "surprised", "aa", "blink", "neutral")
#: A model whose author kept 0.x names as custom expressions (only joy/fun/sorrow).
OLD_CUSTOM = ("joy", "fun", "sorrow", "blink")

# emotion, available, expected name, table value
TABLE_ROWS = [
    ("happy", VRM1, "happy", 0.60),
    ("excited", VRM1, "happy", 0.70),
    ("content", VRM1, "relaxed", 0.40),
    ("playful", VRM1, "happy", 0.50),
    ("affectionate", VRM1, "relaxed", 0.50),
    ("curious", VRM1, "surprised", 0.30),
    ("flustered", VRM1, "surprised", 0.45),
    ("sad", VRM1, "sad", 0.60),
    ("melancholy", VRM1, "sad", 0.40),
    ("anxious", VRM1, "sad", 0.35),
    ("frustrated", VRM1, "angry", 0.50),
    # 0.x-style custom names
    ("happy", OLD_CUSTOM, "joy", 0.60),
    ("excited", OLD_CUSTOM, "joy", 0.70),
    ("content", OLD_CUSTOM, "fun", 0.40),
    ("playful", OLD_CUSTOM, "fun", 0.50),
    ("affectionate", OLD_CUSTOM, "fun", 0.50),
    ("flustered", OLD_CUSTOM, "joy", 0.45),
    ("sad", OLD_CUSTOM, "sorrow", 0.60),
    ("melancholy", OLD_CUSTOM, "sorrow", 0.40),
    ("anxious", OLD_CUSTOM, "sorrow", 0.35),
    # partial models: later candidates
    ("excited", ("surprised", "joy"), "surprised", 0.70),
    ("melancholy", ("relaxed",), "relaxed", 0.40),
    ("anxious", ("surprised", "sorrow"), "surprised", 0.35),
    ("affectionate", ("happy", "fun"), "happy", 0.50),
    ("flustered", ("happy",), "happy", 0.45),
]


def test_table_covers_every_emotion():
    assert set(MOOD_EXPRESSION_TABLE) == set(EMOTIONS)


@pytest.mark.parametrize(("emotion", "available", "name", "value"), TABLE_ROWS)
@pytest.mark.parametrize("intensity", [0, 50, 100])
def test_resting_face_picks_first_available_and_scales(emotion, available, name, value,
                                                      intensity):
    target = mood_expression_target(emotion, intensity, available)
    assert target is not None
    assert target[0] == name
    assert target[1] == pytest.approx(value * intensity / 100)


@pytest.mark.parametrize(("emotion", "available"), [
    ("neutral", VRM1), ("curious", OLD_CUSTOM), ("frustrated", OLD_CUSTOM),
    ("happy", ()), ("bogus", VRM1),
])
def test_no_resting_face(emotion, available):
    assert mood_expression_target(emotion, 100, available) is None


def test_intensity_is_clamped_and_names_fold_case():
    assert mood_expression_target("happy", 250, VRM1) == ("happy", pytest.approx(0.6))
    assert mood_expression_target("happy", -5, VRM1) == ("happy", 0.0)
    assert mood_expression_target("sad", 100, ("Sorrow",)) == ("Sorrow", pytest.approx(0.6))


@pytest.mark.parametrize(("emotion", "weight"), [
    ("happy", 0.84), ("excited", 0.9), ("content", 0.56), ("playful", 0.7),
    ("affectionate", 0.7), ("curious", 0.42), ("flustered", 0.63), ("sad", 0.84),
    ("melancholy", 0.56), ("anxious", 0.49), ("frustrated", 0.7),
])
def test_flash_is_1_4_times_capped_at_0_9(emotion, weight):
    target = flash_expression_target(emotion, VRM1)
    assert target is not None
    assert target[1] == pytest.approx(weight)
    assert target[1] <= 0.9


def test_excited_flash_hits_the_cap():
    assert 1.4 * MOOD_EXPRESSION_TABLE["excited"][1] > 0.9
    assert flash_expression_target("excited", VRM1) == ("happy", 0.9)


@pytest.mark.parametrize("available", [VRM1, OLD_CUSTOM, ("neutral",)])
def test_neutral_never_flashes(available):
    assert flash_expression_target("neutral", available) is None


@pytest.mark.parametrize(("speaking", "hold"),
                         [(False, FLASH_HOLD_S), (True, FLASH_HOLD_SPEAKING_S)])
def test_flash_holds_then_fades(speaking, hold):
    assert (FLASH_HOLD_S, FLASH_HOLD_SPEAKING_S) == (2.5, 8.0)
    flash = FlashState()
    flash.start("happy", 0.84, speaking, now=10.0)
    assert flash.weight(9.99) == 0.0
    assert flash.weight(10.0) == 0.84
    assert flash.weight(10.0 + hold) == 0.84
    assert 0.0 < flash.weight(10.0 + hold + FLASH_FADE_S / 2) < 0.84
    assert flash.weight(10.0 + hold + FLASH_FADE_S / 2) == pytest.approx(0.42)
    assert flash.weight(10.0 + hold + FLASH_FADE_S) == 0.0
    assert not flash.active(10.0 + hold + FLASH_FADE_S + 1)
    assert flash.target(10.0 + hold + FLASH_FADE_S + 1) is None


@pytest.mark.parametrize(("ended_at", "fade_from"), [(11.0, 12.5), (15.0, 15.0), (30.0, 18.0)])
def test_speaking_flash_stops_holding_when_speech_ends(ended_at, fade_from):
    flash = FlashState()
    flash.start("sad", 0.84, True, now=10.0)
    flash.speaking_ended(ended_at)
    assert flash.weight(fade_from) == 0.84
    assert flash.weight(fade_from + FLASH_FADE_S) == 0.0


def _run(current, target, frames, dt=0.05):
    history = [dict(current)]
    for _ in range(frames):
        current = compose_expression_weights(current, target, dt)
        history.append(current)
    return history


def test_compose_fades_old_to_zero_before_new_rises():
    history = _run({"happy": 0.6}, ("sad", 0.6), frames=20)
    happy = [w.get("happy", 0.0) for w in history]
    sad = [w.get("sad", 0.0) for w in history]
    # 4/s at 0.05 s frames: 0.2 a frame; sad waits for the frame after happy reached 0
    assert happy[:5] == pytest.approx([0.6, 0.4, 0.2, 0.0, 0.0])
    assert sad[:7] == pytest.approx([0.0, 0.0, 0.0, 0.0, 0.2, 0.4, 0.6])
    assert not any(h > 0 and s > 0 for h, s in zip(happy, sad, strict=True))
    assert history[-1] == {"sad": pytest.approx(0.6)}


def test_compose_waits_for_every_old_expression():
    history = _run({"happy": 0.2, "angry": 0.6}, ("sad", 0.5), frames=6)
    sad = [w.get("sad", 0.0) for w in history]
    assert sad == pytest.approx([0, 0, 0, 0, 0.2, 0.4, 0.5])


def test_compose_same_expression_moves_directly():
    history = _run({"happy": 0.2}, ("happy", 0.6), frames=3)
    assert [round(w["happy"], 3) for w in history] == [0.2, 0.4, 0.6, 0.6]
    down = _run({"happy": 0.6, "sad": 0.3}, ("happy", 0.2), frames=1)[-1]
    assert down["happy"] == pytest.approx(0.4) and down["sad"] == pytest.approx(0.1)


def test_compose_to_none_fades_everything_and_drops_zeros():
    assert _run({"happy": 0.3, "sad": 0.1}, None, frames=2)[-1] == {}
    assert compose_expression_weights({}, None, 0.016) == {}


@given(
    current=st.dictionaries(st.sampled_from(VRM1), st.floats(-1, 2, allow_nan=False), max_size=4),
    name=st.sampled_from(VRM1),
    weight=st.floats(-1, 2, allow_nan=False),
    dt=st.floats(-1, 5, allow_nan=False),
)
def test_compose_weights_stay_in_range(current, name, weight, dt):
    out = compose_expression_weights(current, (name, weight), dt)
    assert all(0.0 < w <= 1.0 for w in out.values())


def test_layer_priority():
    resting, flash, tap = ("relaxed", 0.4), ("sad", 0.84), {"happy": 0.8}
    emote, photo = {"angry": 1.0}, {"surprised": 0.5}
    assert resolve_layers() == {}
    assert resolve_layers(resting) == {"relaxed": 0.4}
    assert resolve_layers(resting, flash) == {"sad": 0.84}
    assert resolve_layers(resting, flash, tap) == {"happy": 0.8}
    assert resolve_layers(resting, flash, tap, emote) == {"angry": 1.0}
    assert resolve_layers(resting, flash, tap, emote, photo) == {"surprised": 0.5}
    assert resolve_layers(resting, ("sad", 0.0)) == {"relaxed": 0.4}  # inactive flash


def test_same_expression_in_a_lower_layer_keeps_the_stronger_weight():
    assert resolve_layers(("happy", 0.6), ("happy", 0.3)) == {"happy": 0.6}
    assert resolve_layers(("happy", 0.6), ("sad", 0.3)) == {"sad": 0.3}


def test_mood_expressions_switch_turns_off_resting_face_and_flash_only():
    flash, tap = FlashState(), FlashState()
    flash.start("sad", 0.84, False, now=0.0)
    layers = FaceLayers(resting=("relaxed", 0.4), flash=flash, tap=tap)
    assert layers.resolve(1.0) == {"sad": 0.84}
    layers.mood_expressions_enabled = False
    assert layers.resolve(1.0) == {}
    tap.start("happy", 0.8, False, now=0.5, hold_s=1.0)
    assert layers.resolve(1.0) == {"happy": 0.8}
    layers.mood_expressions_enabled = True
    assert layers.resolve(1.0) == {"happy": 0.8}
    assert layers.resolve(5.0) == {"relaxed": 0.4}
