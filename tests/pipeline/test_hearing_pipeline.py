"""pipeline.hearing: a recording heard as the microphone hears it (the real listener, voice
activity model and Whisper model on espeak-ng speech), and the recogniser the hearing
settings choose (a 127.0.0.1 transcription server speaking the real wire format)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion_desktop.storage.settings import HearingSettings
from companion_desktop.voice.audio import SAMPLE_RATE
from tests.voice.sounds import needs_espeak, needs_voice, room, silence, speak, two_sentences
from tests.voice.test_transcription import KEY, Server

ASK = "Please remind me to call my sister tomorrow morning."
TRIP = "We drove to the seaside and watched the boats all afternoon."


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A data folder's cache with the speech model assembled (once for this module)."""
    from tests.voice.sounds import MISSING

    if MISSING:
        pytest.skip(MISSING)
    from companion_desktop.voice.whisper_files import ensure_model

    folder = tmp_path_factory.mktemp("hearing") / "cache"
    ensure_model(folder)
    return folder


def words(text: str) -> set[str]:
    return {w.strip(".,!?").lower() for w in text.split()}


@needs_voice
@needs_espeak
def test_an_utterance_still_open_at_the_end_of_the_recording_is_heard():
    from companion_desktop.pipeline.hearing import heard_utterances, hearing_options
    from companion_desktop.voice.vad import SpeechDetector

    said = two_sentences(ASK, TRIP, tail_s=0.0)  # it stops as the last word ends
    heard = heard_utterances(said, hearing_options(HearingSettings(), "hands_free"),
                             SpeechDetector())
    assert len(heard) == 2
    last = speak(TRIP).size / SAMPLE_RATE
    assert last - 0.3 <= heard[1].size / SAMPLE_RATE <= last + 0.5
    # an odd length (not whole frames) and push-to-talk: the whole file is one utterance
    options = hearing_options(HearingSettings(mode="push_to_talk"))
    (whole,) = heard_utterances(said[:-100], options, SpeechDetector())
    assert whole.size / SAMPLE_RATE > 0.9 * said.size / SAMPLE_RATE - 1.0


@needs_voice
def test_silence_and_noise_are_nothing_heard():
    from companion_desktop.pipeline.hearing import heard_utterances, hearing_options
    from companion_desktop.voice.vad import SpeechDetector

    options = hearing_options(HearingSettings(sensitivity=1.0), "hands_free")
    assert heard_utterances(room(silence(4.0), noise=0.003), options, SpeechDetector()) == []
    assert heard_utterances(np.zeros(0, np.float32), options, SpeechDetector()) == []


@needs_voice
@needs_espeak
def test_each_utterance_of_a_recording_is_recognised_locally(cache):
    from companion_desktop.pipeline.hearing import recognise_recording

    heard = recognise_recording(two_sentences(ASK, TRIP), HearingSettings(language="en"), cache)
    assert [t.backend for t in heard] == ["local", "local"]
    assert {"remind", "call", "sister"} <= words(heard[0].text)
    assert {"seaside", "afternoon"} <= words(heard[1].text)
    assert all(t.language == "en" and t.audio_seconds > 2.0 for t in heard)


@needs_voice
def test_nothing_heard_makes_no_recogniser(tmp_path):
    from companion_desktop.pipeline.hearing import recognise_recording

    # a server without an address would fail if it were asked for: it is not
    settings = HearingSettings(backend="server", base_url=None)
    assert recognise_recording(room(silence(2.0)), settings, tmp_path / "cache") == []
    assert not (tmp_path / "cache").exists()


@needs_voice
@needs_espeak
def test_the_server_recogniser_gets_the_utterance_with_its_own_key(monkeypatch, tmp_path):
    from companion_desktop.llm.transcription import STT_ENV_VAR, RemoteTranscriber
    from companion_desktop.pipeline.hearing import make_transcriber, recognise_recording

    monkeypatch.setenv(STT_ENV_VAR, KEY)
    monkeypatch.setenv("COMPANION_API_KEY", "sk-chat-model-key")
    server = Server()
    try:
        server.reply = (200, {}, json.dumps({"text": "Remind me about the plants."}).encode())
        settings = HearingSettings(backend="server", base_url=server.url, model="whisper-x",
                                   language="en")
        assert isinstance(make_transcriber(settings, tmp_path), RemoteTranscriber)
        (heard,) = recognise_recording(
            np.concatenate([room(silence(0.5)), speak(ASK), room(silence(1.0))]),
            settings, tmp_path / "cache")
    finally:
        server.close()
    assert (heard.text, heard.backend, heard.language) == (
        "Remind me about the plants.", "server", "en")
    (sent,) = server.requests
    assert sent["path"] == "/v1/audio/transcriptions"
    assert sent["headers"]["Authorization"] == f"Bearer {KEY}"
    assert sent["form"]["model"][2] == b"whisper-x" and sent["form"]["language"][2] == b"en"
    assert sent["form"]["file"][2][:4] == b"RIFF"  # the utterance, not the whole recording
    assert not (tmp_path / "cache").exists()  # no local model made


def test_a_server_without_an_address_is_a_clear_message(tmp_path):
    from companion_desktop.pipeline.hearing import make_transcriber
    from companion_desktop.voice.stt import SttError

    for url in (None, "", "localhost:8000"):
        with pytest.raises(SttError, match="speech-to-text server's address"):
            make_transcriber(HearingSettings(backend="server", base_url=url), tmp_path)
