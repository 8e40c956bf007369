"""Her mood colours her voice: within 10 % of her speed, scaled by the mood's intensity."""

from __future__ import annotations

import pytest

from companion_desktop.engine.character import EMOTIONS, MoodState
from companion_desktop.engine.voice_mood import MAX_SHIFT, MOOD_RATE_SHIFT, mood_rate, voice_rate


def test_every_emotion_has_a_speed_within_bounds():
    assert set(MOOD_RATE_SHIFT) == set(EMOTIONS)
    for emotion in EMOTIONS:
        for intensity in (0, 30, 100):
            assert 1 - MAX_SHIFT <= mood_rate(emotion, intensity) <= 1 + MAX_SHIFT


def test_faster_when_excited_or_happy_slower_when_sad_or_melancholy():
    assert mood_rate("excited", 100) == pytest.approx(1.10)
    assert mood_rate("excited", 50) == pytest.approx(1.05)
    assert mood_rate("happy", 100) > 1.0 and mood_rate("sad", 100) == pytest.approx(0.90)
    assert 0.9 < mood_rate("melancholy", 100) < 1.0
    assert mood_rate("neutral", 100) == 1.0 and mood_rate("sad", 0) == 1.0


@pytest.mark.parametrize("emotion, intensity", [
    ("furious?", 80), (None, 50), ("happy", "loud"), ("happy", float("nan")), ("sad", None)])
def test_untrusted_input_is_neutral(emotion, intensity):
    assert mood_rate(emotion, intensity) == 1.0


def test_intensity_is_clamped_and_a_mood_object_is_read():
    assert mood_rate("excited", 500) == mood_rate("excited", 100)
    assert mood_rate("sad", -20) == 1.0
    assert voice_rate(MoodState("excited", 100)) == pytest.approx(1.10)
    assert voice_rate(None) == 1.0
