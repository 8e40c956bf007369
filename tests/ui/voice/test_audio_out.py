"""Fitting speech to an audio output that does not take it as synthesized."""

from __future__ import annotations

import numpy as np

from companion_desktop.ui.voice.audio_out import convert_pcm


def tone(freq: float, rate: int, seconds: float) -> bytes:
    t = np.arange(int(rate * seconds)) / rate
    return (np.sin(2 * np.pi * freq * t) * 20000).astype("<i2").tobytes()


def crossings_per_second(samples: np.ndarray, rate: int) -> float:
    signs = np.signbit(samples)
    return np.count_nonzero(signs[1:] != signs[:-1]) / (samples.size / rate)


def test_unchanged_when_the_rate_and_layout_already_fit():
    pcm = tone(220, 22050, 0.5)
    assert convert_pcm(pcm, 22050, 22050) == pcm


def test_resampled_to_stereo_16_bit_keeps_pitch_and_length():
    pcm = tone(440, 22050, 1.0)
    out = np.frombuffer(convert_pcm(pcm, 22050, 48000, channels=2), dtype="<i2").reshape(-1, 2)
    assert abs(out.shape[0] - 48000) <= 1  # one second is still one second
    assert np.array_equal(out[:, 0], out[:, 1])
    # 440 Hz: 880 crossings/s
    assert abs(crossings_per_second(out[:, 0].astype(float), 48000) - 880) < 10
    assert np.abs(out).max() <= 20001


def test_float_output_is_scaled_to_plus_minus_one():
    pcm = tone(300, 16000, 0.25)
    out = np.frombuffer(convert_pcm(pcm, 16000, 44100, channels=1, as_float=True), dtype="<f4")
    assert out.size == round(4000 * 44100 / 16000)
    assert 0.55 < np.abs(out).max() <= 0.62  # 20000 / 32768


def test_empty_clip():
    assert convert_pcm(b"", 22050, 48000, channels=2) == b""
