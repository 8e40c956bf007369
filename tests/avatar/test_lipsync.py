"""Lip sync: mouth weights from real espeak-ng speech follow the audio; the runtime shows
them on the built-in avatar, through the flash face and mouth overrides."""

from __future__ import annotations

import random
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.lipsync import VISEMES, MouthTrack, mouth_track
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.llm.tts import EspeakBackend, SpeechAudio
from tests.avatar.runtime.runtime_models import humanoid

HANA = Path(__file__).resolve().parents[2] / "resources" / "avatar" / "hana.vrm"
FPS = 60.0
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")


@pytest.fixture(scope="module")
def espeak() -> EspeakBackend:
    return EspeakBackend()


def samples(audio: SpeechAudio) -> np.ndarray:
    return np.frombuffer(audio.pcm, "<i2").astype(np.float64) / 32768.0


def silence(seconds: float, rate: int = 22_050) -> np.ndarray:
    return np.zeros(int(round(seconds * rate)))


def to_pcm(x: np.ndarray) -> bytes:
    return (np.clip(x, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def rms_envelope(x: np.ndarray, rate: int, n: int, fps: float = FPS) -> np.ndarray:
    """The audio's RMS around each frame time (a window of two frames), computed here."""
    hop = rate / fps
    out = np.zeros(n)
    for i in range(n):
        c = int(round(i * hop))
        seg = x[max(0, c - int(hop)): c + int(hop)]
        out[i] = np.sqrt(np.mean(seg ** 2)) if len(seg) else 0.0
    return out


@pytest.fixture(scope="module")
def hello_world(espeak):
    """'Hello.' + 0.8 s of silence + 'world', and where each part lies (seconds)."""
    hello, world = samples(espeak.synthesize("Hello.")), samples(espeak.synthesize("world"))
    rate = 22_050
    x = np.concatenate([hello, silence(0.8), world])
    t_gap = len(hello) / rate
    return x, rate, t_gap, t_gap + 0.8


@needs_espeak
def test_the_mouth_is_shut_in_the_pause_and_open_in_speech(hello_world):
    x, rate, gap_start, gap_end = hello_world
    track = mouth_track(to_pcm(x), rate, FPS)
    assert track.weights.shape == (int(len(x) / (rate / FPS)) + 1, 5)
    assert track.duration == pytest.approx(len(x) / rate)
    t = np.arange(len(track.weights)) / FPS
    openness = track.openness
    # espeak-ng's own trailing silence makes the real gap longer than 0.8 s
    in_gap = (t > gap_start + 0.1) & (t < gap_end - 0.05)
    assert in_gap.sum() > 30 and openness[in_gap].max() < 0.02
    env = rms_envelope(x, rate, len(openness))
    loud = env > 0.2 * env.max()
    assert np.median(openness[loud]) > 0.3 and openness.max() > 0.6
    world = t > gap_end
    assert openness[world].max() > 0.5  # the second word opens it again


@needs_espeak
def test_openness_follows_the_loudness_of_the_audio(hello_world, espeak):
    for x, rate in ((hello_world[0], hello_world[1]),
                    (samples(espeak.synthesize("How are you today? I missed you.")), 22_050)):
        track = mouth_track(to_pcm(x), rate, FPS)
        env = rms_envelope(x, rate, len(track.weights))
        assert np.corrcoef(track.openness, env)[0, 1] > 0.7


@needs_espeak
@pytest.mark.parametrize("voice", [None, "en-us+f3"])
def test_ooo_is_rounded_and_eee_is_spread(espeak, voice):
    def shares(text: str) -> dict[str, float]:
        audio = espeak.synthesize(text, voice)
        total = mouth_track(audio.pcm, audio.sample_rate).weights.sum(axis=0)
        return dict(zip(VISEMES, total / total.sum(), strict=True))

    ooo, eee = shares("oooooo"), shares("eeeeee")
    assert ooo["ou"] + ooo["oh"] > 2 * (ooo["ee"] + ooo["ih"])
    assert eee["ee"] + eee["ih"] > 2 * (eee["ou"] + eee["oh"])
    assert ooo["ou"] + ooo["oh"] > eee["ou"] + eee["oh"] + 0.4
    aah = shares("ahhhh")
    assert aah["aa"] == max(aah.values())


@needs_espeak
def test_delaying_the_audio_delays_the_mouth(espeak):
    x = samples(espeak.synthesize("Hello there"))

    def first_open(signal: np.ndarray) -> int:
        return int(np.argmax(mouth_track(to_pcm(signal), 22_050, FPS).openness > 0.05))

    plain = first_open(x)
    late = first_open(np.concatenate([silence(0.5), x]))
    assert abs((late - plain) - 0.5 * FPS) <= 1


def test_silence_and_noise_give_a_closed_mouth():
    track = mouth_track(bytes(2 * 22_050), 22_050)
    assert track.weights.shape[0] == 61 and not track.weights.any()
    noise = np.random.default_rng(1).normal(0.0, 0.0005, 22_050)  # about -66 dBFS
    assert not mouth_track(to_pcm(noise), 22_050).weights.any()
    empty = mouth_track(b"", 22_050)
    assert empty.weights.shape == (0, 5) and empty.at(0.0) == dict.fromkeys(VISEMES, 0.0)


def test_weights_are_bounded_and_sum_to_at_most_one():
    rng = np.random.default_rng(7)
    t = np.arange(3 * 16_000) / 16_000
    x = np.sin(2 * np.pi * 220 * t) * (0.5 + 0.5 * np.sin(2 * np.pi * 3 * t)) \
        + rng.normal(0, 0.3, len(t)) * (t > 2)
    w = mouth_track(x, 16_000).weights
    assert w.min() >= 0.0 and w.max() <= 1.0
    assert w.sum(axis=1).max() <= 1.0 + 1e-9


def test_the_level_is_normalized_to_the_clip(hello_world):
    x, rate, _, _ = hello_world
    loud = mouth_track(x, rate).openness
    quiet = mouth_track(x * 0.2, rate).openness
    assert np.abs(loud - quiet).max() < 0.05


def test_bytes_int16_float_and_stereo_inputs_agree(hello_world):
    x, rate, _, _ = hello_world
    pcm = to_pcm(x)
    reference = mouth_track(pcm, rate).weights
    as_int = np.frombuffer(pcm, "<i2")
    for other in (as_int, as_int / 32768.0, np.stack([as_int, as_int], axis=1)):
        assert np.allclose(mouth_track(other, rate).weights, reference, atol=1e-6)


def test_at_interpolates_between_frames_and_is_zero_outside():
    weights = np.zeros((3, 5))
    weights[1, 0], weights[2, 2] = 0.8, 0.4
    track = MouthTrack(10.0, weights, 0.2)
    assert track.at(0.05)["aa"] == pytest.approx(0.4)
    assert track.at(0.15) == pytest.approx({"aa": 0.4, "ih": 0.0, "ou": 0.2, "ee": 0.0,
                                            "oh": 0.0})
    assert track.at(-0.01) == track.at(0.25) == dict.fromkeys(VISEMES, 0.0)


def test_bad_sample_rates_are_refused():
    with pytest.raises(ValueError, match="sample rate"):
        mouth_track(b"\x00\x00", 0)


def test_a_ten_second_clip_is_analysed_in_well_under_100_ms():
    rate = 24_000
    t = np.arange(10 * rate) / rate
    x = 0.3 * np.sin(2 * np.pi * 180 * t) * np.abs(np.sin(2 * np.pi * 2 * t))
    pcm = to_pcm(x)
    mouth_track(pcm, rate)  # warm up numpy's FFT
    best = min(_timed(lambda: mouth_track(pcm, rate)) for _ in range(3))
    assert best < 0.1


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# -- the runtime --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hana():
    return load_model(HANA)


def mouth_morphs(rt: AvatarRuntime, frame) -> dict[str, float]:
    """The morph weight each viseme's target gets in ``frame``."""
    out = {}
    for name in VISEMES:
        bind = rt.model.expressions[name].morph_binds[0]
        out[name] = float(frame.morph_weights[bind.mesh][bind.target])
    return out


def test_visemes_drive_hana_s_mouth_under_the_flash_face(hana):
    rt = AvatarRuntime(hana, random.Random(0), blink=False, breathing=False, springs=False)
    assert mouth_morphs(rt, rt.update(1 / 60)) == dict.fromkeys(VISEMES, 0.0)
    assert rt.flash("happy", speaking=True)
    rt.set_visemes({"aa": 0.8, "ou": 0.5, "ee": 7.0, "ih": float("nan"), "smile": 1.0})
    for _ in range(30):
        frame = rt.update(1 / 60)
    assert mouth_morphs(rt, frame) == pytest.approx(
        {"aa": 0.8, "ih": 0.0, "ou": 0.5, "ee": 1.0, "oh": 0.0}, abs=1e-6)
    happy = rt.model.expressions["happy"].morph_binds[0]
    assert frame.morph_weights[happy.mesh][happy.target] > 0.5  # the face stays
    rt.set_visemes(None)
    assert mouth_morphs(rt, rt.update(1 / 60)) == dict.fromkeys(VISEMES, 0.0)


@needs_espeak
def test_a_track_played_on_hana_rounds_her_mouth_for_ooo(hana, espeak):
    audio = espeak.synthesize("oooooo")
    track = mouth_track(audio.pcm, audio.sample_rate)
    rt = AvatarRuntime(hana, random.Random(0), blink=False, breathing=False, springs=False)
    rt.set_visemes(track.at(audio.duration / 2))
    mouth = mouth_morphs(rt, rt.update(1 / 60))
    assert mouth["ou"] > 0.3 and mouth["ou"] > 2 * max(mouth["aa"], mouth["ee"], mouth["ih"])


def test_visemes_are_not_blocked_by_a_mouth_override_but_mouth_open_is():
    model = humanoid(face=True)  # its face binds "aa" to the "mouth_a" target (index 5)
    model.expressions["happy"].override_mouth = "block"
    rt = AvatarRuntime(model, random.Random(0), blink=False, breathing=False)
    rt.mood("happy", 100)
    rt.mouth_open(0.7)
    for _ in range(30):
        frame = rt.update(1 / 60)
    assert frame.morph_weights[0][5] == 0.0  # the spec's override still holds for it
    rt.set_visemes({"aa": 0.6, "oh": 0.4})  # this model has no "oh": it goes to "aa"
    assert rt.visemes == {"aa": 1.0}
    assert rt.update(1 / 60).morph_weights[0][5] == pytest.approx(1.0)
    rt.set_visemes({"aa": 0.3})
    assert rt.update(1 / 60).morph_weights[0][5] == pytest.approx(0.3)
    assert rt.changed
    rt.set_visemes({})
    assert rt.update(1 / 60).morph_weights[0][5] == 0.0
