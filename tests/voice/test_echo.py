"""Her own voice is never taken for the user's: her espeak-ng speech played into the capture
path (scaled, delayed, with room noise) goes through the EchoCanceller and the Listener."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.voice.audio import SAMPLE_RATE
from tests.voice.sounds import chunks, needs_espeak, needs_voice, room, silence, speak

pytestmark = [needs_voice, needs_espeak]

HER = ("Of course! I remember you told me about your trip to the mountains last week. "
       "How was the weather up there?")
USER = "Wait, stop, I need to tell you something important."


@pytest.fixture(scope="module")
def her_voice() -> np.ndarray:
    return speak(HER, "en+f3")


def microphone(her: np.ndarray, delay_s: float, gain: float, seed: int = 0) -> np.ndarray:
    """What the microphone hears while she plays ``her``: her voice after ``delay_s``,
    scaled by ``gain``, in a quiet room, then 1 s more."""
    delay = int(delay_s * SAMPLE_RATE)
    mic = silence(delay_s + her.size / SAMPLE_RATE + 1.0)
    mic[delay:delay + her.size] += gain * her
    return room(mic, seed)


def listen(mic: np.ndarray, her: np.ndarray | None, echo=True, user_at: float | None = None):
    from companion_desktop.voice.echo import EchoCanceller
    from companion_desktop.voice.listener import HearingOptions, Listener
    from companion_desktop.voice.vad import SpeechDetector

    canceller = EchoCanceller() if echo else None
    lst = Listener(HearingOptions(), SpeechDetector(), canceller)
    events = []
    if canceller is not None and her is not None:
        canceller.play(her)  # handed to the audio output at the start of the capture
    for piece in chunks(mic, seed=5):
        events.extend(e for e in lst.feed(piece) if e.kind != "level")
    return events, canceller


@pytest.mark.parametrize("delay_s,gain", [(0.03, 0.9), (0.12, 0.5), (0.24, 0.25), (0.45, 0.4)])
def test_her_own_playback_is_never_heard(her_voice, delay_s, gain):
    mic = microphone(her_voice, delay_s, gain, seed=int(delay_s * 100))
    without, _ = listen(mic, her_voice, echo=False)
    assert "speech_started" in [e.kind for e in without]  # the microphone does hear her
    events, canceller = listen(mic, her_voice)
    assert events == []
    assert canceller is not None and not canceller.playing  # her echo is over


def test_the_user_talking_over_her_is_heard_and_recognised(her_voice, whisper):
    mic = microphone(her_voice, 0.1, 0.5, seed=9)
    user = speak(USER, "en-us")
    at = int(2.0 * SAMPLE_RATE)
    mic[at:at + user.size] += 0.5 * user[: mic.size - at]
    events, _ = listen(mic, her_voice)
    kinds = [e.kind for e in events]
    assert kinds[0] == "speech_started"  # barge-in: the app stops her voice here
    assert 2.0 < events[0].position / SAMPLE_RATE < 3.0  # within a second of their first word
    utterance = next(e for e in events if e.kind == "utterance")
    heard = whisper.transcribe(utterance.audio, "en").text.lower()
    # "Wait," alone is too short to start hearing; the utterance reaches back for it
    assert {"wait", "stop", "important"} <= set(heard.replace(",", " ").replace(".", " ").split())
    assert "mountains" not in heard


def test_stop_drops_what_was_queued(her_voice):
    from companion_desktop.voice.echo import EchoCanceller

    canceller = EchoCanceller()
    canceller.play(her_voice)
    canceller.clean(silence(0.5))
    assert canceller.playing
    canceller.stop()  # barge-in: her audio output is cut now
    canceller.clean(silence(0.6))  # longer than the echo can take to arrive (MAX_LAG_S)
    assert not canceller.playing
    quiet = room(silence(1.0), noise=0.01)
    assert np.allclose(canceller.clean(quiet), quiet)  # nothing left to take out


def feed(lst, mic: np.ndarray, seed: int = 5) -> list:
    events = []
    for piece in chunks(mic, seed=seed):
        events.extend(e for e in lst.feed(piece) if e.kind != "level")
    return events


def test_with_headphones_the_user_talking_over_her_is_heard(her_voice, whisper):
    # none of her reaches the microphone: only the room, and the user after 2 s
    mic = room(silence(her_voice.size / SAMPLE_RATE + 1.0), seed=11)
    user = speak(USER, "en-us")
    at = int(2.0 * SAMPLE_RATE)
    mic[at:at + user.size] += 0.5 * user
    events, canceller = listen(mic, her_voice)
    assert [e.kind for e in events][:1] == ["speech_started"]  # barge-in while she plays
    assert 2.0 < events[0].position / SAMPLE_RATE < 3.0
    assert canceller is not None and canceller.echo_free
    utterance = next(e for e in events if e.kind == "utterance")
    assert utterance.position / SAMPLE_RATE < her_voice.size / SAMPLE_RATE  # she still plays
    assert "important" in whisper.transcribe(utterance.audio, "en").text.lower()


def test_an_echo_that_appears_after_headphones_is_removed_again(her_voice):
    from companion_desktop.voice.echo import EchoCanceller
    from companion_desktop.voice.listener import HearingOptions, Listener
    from companion_desktop.voice.vad import SpeechDetector

    canceller = EchoCanceller()
    lst = Listener(HearingOptions(), SpeechDetector(), canceller)
    canceller.play(her_voice[: 3 * SAMPLE_RATE])  # heard through headphones: no echo
    assert feed(lst, room(silence(4.0), seed=2)) == []
    assert canceller.echo_free and not canceller.playing
    canceller.play(her_voice)  # the headphones are off: the speakers reach the microphone
    assert feed(lst, microphone(her_voice, 0.08, 0.5, seed=4)) == []
    assert not canceller.echo_free


def test_her_output_ending_before_its_reference_is_not_heard(her_voice):
    # the reference says she plays the whole clip; the device played 2.5 s of it
    mic = microphone(her_voice, 0.1, 0.6, seed=6)
    cut = int((0.1 + 2.5) * SAMPLE_RATE)
    mic[cut:] = room(silence((mic.size - cut) / SAMPLE_RATE), seed=7)
    events, canceller = listen(mic, her_voice)
    assert events == []
    assert canceller is not None and not canceller.echo_free
