"""Her natural voice as the app speaks with it: each part by a voice of its own language
(the real Kokoro model, real espeak-ng, a tiny Piper voice of the user's)."""

from __future__ import annotations

import pytest

from companion_desktop.llm.neural_voice import DEFAULT_VOICE, import_voice, japanese_missing
from companion_desktop.llm.neural_voice.speaking import SpeakingVoice, shared_backend
from companion_desktop.llm.tts import EspeakBackend
from tests.llm.neural_voice.conftest import needs_espeak, needs_kokoro
from tests.llm.neural_voice.tiny_piper import onnx_module, write_voice

pytestmark = [needs_kokoro, needs_espeak]
KOKORO_RATE, ESPEAK_RATE = 24_000, 22_050


@pytest.fixture
def voice(neural_data) -> SpeakingVoice:
    return SpeakingVoice(shared_backend(neural_data["data_dir"]))


def test_english_goes_to_her_voice_and_german_to_espeak_in_german(voice):
    assert voice.reader("en", None) == ("neural", DEFAULT_VOICE)
    assert voice.reader("en", "kokoro:jm_kumo") == ("neural", "kokoro:jm_kumo")
    assert voice.reader("de", None) == ("espeak", "de")  # never English phonemes for German
    english = voice.synthesize("Good evening! How was your day?")
    german = voice.synthesize("Guten Abend! Wie war dein Tag heute?")
    assert english.sample_rate == KOKORO_RATE and english.duration > 1.0
    assert german.sample_rate == ESPEAK_RATE and german.duration > 1.0
    unsure = voice.synthesize("Hana!")  # cannot tell: the settings' language (English)
    assert unsure.sample_rate == KOKORO_RATE


def test_japanese_is_read_with_japanese_phonemes_or_by_espeak(voice):
    if japanese_missing() is None:
        assert voice.reader("ja", None) == ("neural", DEFAULT_VOICE)
        assert voice.synthesize("おかえりなさい。").sample_rate == KOKORO_RATE
    else:
        assert voice.reader("ja", None) == ("espeak", "ja")


def test_a_voice_they_brought_reads_its_own_language(neural_data, tmp_path):
    onnx_module()  # skips without the onnx package that builds the tiny voice
    data = tmp_path / "data"
    data.mkdir()
    (data / "cache").symlink_to(neural_data["data_dir"] / "cache")  # the joined model
    model = write_voice(tmp_path / "in", "deutsch", espeak={"voice": "de"},
                        language={"code": "de_DE"})
    added = import_voice(data, model)
    voice = SpeakingVoice(shared_backend(data))
    assert voice.reader("de", None) == ("neural", added.id)  # chosen per language
    assert voice.reader("en", None) == ("neural", DEFAULT_VOICE)
    assert voice.reader("es", None) == ("espeak", "es")
    assert voice.synthesize("Wie geht es dir heute?").sample_rate == 16_000  # the Piper one


def test_without_espeak_her_voice_reads_what_it_can(voice):
    voice.espeak = EspeakBackend("no-such-espeak-here")
    assert voice.reader("de", None) == ("neural", DEFAULT_VOICE)
