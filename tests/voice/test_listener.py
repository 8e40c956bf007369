"""Hearing with real audio: espeak-ng utterances through the Listener in capture-sized pieces,
the real voice activity model, the real local Whisper model."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.voice.audio import SAMPLE_RATE
from tests.voice.sounds import chunks, needs_espeak, needs_voice, room, silence, speak

pytestmark = [needs_voice, needs_espeak]

ASK = "Please remind me to call my sister tomorrow morning."
TRIP = "We drove to the seaside and watched the boats all afternoon."


def listener(**options):
    from companion_desktop.voice.listener import HearingOptions, Listener
    from companion_desktop.voice.vad import SpeechDetector

    return Listener(HearingOptions(**options), SpeechDetector())


def hear(lst, samples: np.ndarray, seed: int = 0) -> list:
    events = []
    for piece in chunks(samples, seed):
        events.extend(lst.feed(piece))
    return [e for e in events if e.kind != "level"]


def words(text: str) -> set[str]:
    return {w.strip(".,!?").lower() for w in text.split()}


def test_hands_free_hears_an_utterance_and_whisper_recognises_it(whisper):
    speech = speak(ASK)
    events = hear(listener(), room(np.concatenate([silence(1.0), speech, silence(1.5)])))
    assert [e.kind for e in events] == ["speech_started", "utterance"]
    started, utterance = events
    assert 1.0 < started.position / SAMPLE_RATE < 1.0 + 0.6  # soon after the speech began
    # the whole utterance with a short pre-roll, not the silence around it
    assert speech.size / SAMPLE_RATE <= utterance.seconds <= speech.size / SAMPLE_RATE + 0.8
    heard = whisper.transcribe(utterance.audio, "en")
    assert {"remind", "call", "sister", "tomorrow"} <= words(heard.text)
    assert heard.backend == "local" and heard.language == "en"



def short_word() -> np.ndarray:
    """The first 0.2 s of "Wait." as said (faded in and out): under the 0.25 s of speech
    that starts an utterance, as a quick first word is."""
    word = speak("Wait.")
    start = int(np.argmax(np.abs(word) > 0.02))
    piece = word[start:start + int(0.2 * SAMPLE_RATE)].copy()
    fade = np.linspace(0.0, 1.0, 160, dtype=np.float32)
    piece[:160] *= fade
    piece[-160:] *= fade[::-1]
    return piece


def test_a_short_first_word_before_a_pause_is_kept():
    word, rest = short_word(), speak("I need to tell you something.")
    alone = hear(listener(), room(np.concatenate([silence(1.5), word, silence(1.5)])))
    assert alone == []  # too short to start hearing by itself
    # the sentence after a pause starts the utterance, which reaches back over the pause
    pause = silence(0.35)
    events = hear(listener(), room(np.concatenate([silence(1.5), word, pause, rest, silence(1.5)])))
    assert [e.kind for e in events] == ["speech_started", "utterance"]
    spoken = (word.size + pause.size + rest.size) / SAMPLE_RATE
    assert spoken <= events[1].seconds <= spoken + 0.8


def test_speech_long_before_a_start_is_not_reached_for():
    # the same word 0.9 s before the sentence is another sound, not the start of it
    word, rest = short_word(), speak("I need to tell you something.")
    events = hear(listener(), room(np.concatenate([silence(1.5), word, silence(0.9), rest,
                                                   silence(1.5)])))
    assert [e.kind for e in events] == ["speech_started", "utterance"]
    assert events[1].seconds < (word.size + rest.size) / SAMPLE_RATE + 0.8


def test_two_utterances_with_a_pause_between_are_two_turns(whisper):
    audio = np.concatenate([silence(0.5), speak(ASK), silence(1.2), speak(TRIP), silence(1.0)])
    events = hear(listener(silence_s=0.7), room(audio), seed=3)
    utterances = [e for e in events if e.kind == "utterance"]
    assert [e.kind for e in events].count("speech_started") == 2 and len(utterances) == 2
    assert "sister" in words(whisper.transcribe(utterances[0].audio, "en").text)
    assert "seaside" in words(whisper.transcribe(utterances[1].audio, "en").text)


@pytest.mark.parametrize("kind", ["silence", "room", "white", "hum"])
def test_silence_and_noise_are_no_utterance(kind):
    rng = np.random.default_rng(7)
    t = np.arange(6 * SAMPLE_RATE) / SAMPLE_RATE
    audio = {
        "silence": silence(6.0),
        "room": room(silence(6.0), noise=0.003),
        "white": (rng.standard_normal(t.size) * 0.08).astype(np.float32),
        "hum": (0.1 * np.sin(2 * np.pi * 50 * t) + 0.05 * np.sin(2 * np.pi * 150 * t)
                ).astype(np.float32),
    }[kind]
    for sensitivity in (0.5, 1.0):
        assert hear(listener(sensitivity=sensitivity), audio) == []


def test_an_utterance_is_cut_at_the_maximum_length():
    long = np.concatenate([speak(ASK), speak(TRIP), speak(ASK)])
    events = hear(listener(max_s=2.0), np.concatenate([silence(0.5), long, silence(1.0)]))
    first = next(e for e in events if e.kind == "utterance")
    assert 1.9 <= first.seconds <= 2.1


def test_level_events_come_at_most_twenty_a_second():
    lst = listener()
    events = []
    for piece in chunks(room(silence(3.0), noise=0.05)):
        events.extend(lst.feed(piece))
    levels = [e for e in events if e.kind == "level"]
    assert 10 <= len(levels) / 3.0 <= 20
    assert all(0.02 < e.rms < 0.08 for e in levels)


def test_push_to_talk_hears_from_press_to_release_trimmed(whisper):
    speech = speak(TRIP)
    lst = listener(mode="push_to_talk")
    assert hear(lst, room(np.concatenate([silence(0.5), speech]))) == []  # not pressed: deaf
    assert [e.kind for e in lst.press()] == ["speech_started"]
    assert hear(lst, room(np.concatenate([silence(1.5), speech, silence(1.5)]))) == []
    (utterance,) = lst.release()
    assert utterance.kind == "utterance"
    # 1.5 s of silence each side trimmed to the 0.3 s kept around speech
    assert utterance.seconds < speech.size / SAMPLE_RATE + 1.0
    assert {"seaside", "afternoon"} <= words(whisper.transcribe(utterance.audio, "en").text)
    assert lst.release() == []  # released already


def test_push_to_talk_without_speech_is_discarded():
    lst = listener(mode="push_to_talk")
    lst.press()
    hear(lst, room(silence(2.0)))
    (event,) = lst.release()
    assert event.kind == "discarded" and event.reason == "no speech"


def test_options_are_clamped_and_sensitivity_sets_the_threshold():
    from companion_desktop.voice.listener import HearingOptions

    odd = HearingOptions(mode="shout", sensitivity=7, silence_s=-1, max_s=float("nan"))
    assert (odd.mode, odd.sensitivity, odd.silence_s, odd.max_s) == ("hands_free", 1.0, 0.2, 30.0)
    assert HearingOptions(sensitivity=0.0).threshold > HearingOptions().threshold > \
        HearingOptions(sensitivity=1.0).threshold


WEATHER = "What is the weather like today"
SEASIDE = ("We drove to the seaside and watched the boats all afternoon, and then we had "
           "dinner at a small place near the harbour where the fish was fresh.")


def gui_utterance(text: str, lead_s: float) -> np.ndarray:
    """``text`` heard hands-free as the app hears it: digital silence, then the words, then
    more than the 0.7 s pause, in the capture's 40 ms pieces, through the echo canceller."""
    from companion_desktop.voice.echo import EchoCanceller
    from companion_desktop.voice.listener import HearingOptions, Listener
    from companion_desktop.voice.vad import SpeechDetector

    audio = np.concatenate([silence(lead_s), speak(text), silence(1.0)])
    lst = Listener(HearingOptions(), SpeechDetector(), EchoCanceller())
    events = []
    for start in range(0, audio.size, 640):
        events.extend(e for e in lst.feed(audio[start:start + 640]) if e.kind == "utterance")
    (utterance,) = events
    return utterance.audio


@pytest.mark.parametrize("lead_s", [0.5, 0.6, 0.7])
def test_a_short_utterance_is_read_once_not_over_and_over(whisper, lead_s):
    text = whisper.transcribe(gui_utterance(WEATHER, lead_s), "en").text
    assert {"what", "is", "like", "today"} <= words(text)
    assert text.lower().count("what") == 1 and text.lower().count("today") == 1, text


def test_a_long_utterance_is_read_to_its_end(whisper):
    text = whisper.transcribe(gui_utterance(SEASIDE, 0.5), "en").text
    assert {"seaside", "boats", "dinner", "harbor", "fish", "fresh"} <= words(text), text
    assert text.lower().count("seaside") == 1
