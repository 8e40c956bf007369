"""Piper voices on our own runner: a tiny Piper-format model built here, real espeak-ng,
real ONNX Runtime, through the backend and the import of a voice."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion_desktop.llm.neural_voice import NeuralBackend, import_voice, list_voices
from companion_desktop.llm.neural_voice.espeak_ipa import EspeakPhonemizer
from companion_desktop.llm.neural_voice.piper import PiperVoice, parse_config, phoneme_ids
from companion_desktop.llm.tts import VoiceOptions
from companion_desktop.llm.wav import TtsError
from companion_desktop.voice.audio import pcm16_to_float
from tests.llm.neural_voice.conftest import needs_espeak
from tests.llm.neural_voice.tiny_piper import ID_MAP, SAMPLES_PER_ID, settings, write_voice


def test_ids_are_framed_as_piper_frames_them():
    id_map = {k: tuple(v) for k, v in ID_MAP.items()}
    h, a, i = ID_MAP["h"][0], ID_MAP["a"][0], ID_MAP["ɪ"][0]
    assert phoneme_ids("haɪ", id_map) == [1, 0, h, 0, a, 0, i, 0, 2]
    assert phoneme_ids("h\u6f22", id_map) == [1, 0, h, 0, 2]  # unknown symbols dropped
    assert phoneme_ids("ã", id_map)[2:4] == [a, 0]  # decomposed: a + the tilde (unknown)


def test_the_settings_are_read_with_defaults():
    config = parse_config(json.dumps(settings(22_050, 3)).encode())
    assert (config.sample_rate, config.espeak_voice, config.num_speakers) == (22_050, "en-us", 3)
    assert (config.noise_scale, config.length_scale, config.noise_w) == (0.667, 1.0, 0.8)
    assert config.language == "en-us"
    bare = parse_config(json.dumps({"audio": {"sample_rate": 16000},
                                    "phoneme_id_map": {"a": [5]}}).encode())
    assert bare.espeak_voice == "en-us" and bare.length_scale == 1.0


@needs_espeak
@pytest.mark.parametrize(("rate", "speakers"), [(16_000, 1), (22_050, 2)])
def test_a_piper_voice_speaks_at_its_own_rate(tmp_path, rate, speakers):
    model = write_voice(tmp_path / "src", "tiny", rate, speakers)
    voice = import_voice(tmp_path / "data", model)
    assert (voice.id, voice.kind, voice.language) == ("piper:tiny", "piper", "en-us")
    assert "piper:tiny" in [v.id for v in list_voices(tmp_path / "data")]
    backend = NeuralBackend(tmp_path / "data")
    speech = backend.synthesize("Hi there. Bye!", "piper:tiny")
    assert speech.sample_rate == rate
    ipa = EspeakPhonemizer()
    ids = [phoneme_ids(ipa.sentence_ipa(s, "en-us"), {k: tuple(v) for k, v in ID_MAP.items()})
           for s in ("Hi there.", "Bye!")]
    expected = sum(len(i) for i in ids) * SAMPLES_PER_ID + int(0.3 * rate)
    assert abs(len(speech.pcm) // 2 - expected) <= 2 * SAMPLES_PER_ID
    samples = pcm16_to_float(speech.pcm)
    fast = pcm16_to_float(backend.synthesize("Hi there.", "piper:tiny",
                                             VoiceOptions(rate=2.0)).pcm)
    assert np.abs(fast).max() == pytest.approx(np.abs(samples).max() / 2, rel=0.02)  # 1/rate
    backend.close()


@needs_espeak
def test_a_piper_voice_never_reads_japanese(tmp_path):
    import_voice(tmp_path, write_voice(tmp_path / "src"))
    backend = NeuralBackend(tmp_path)
    with pytest.raises(TtsError, match="not Japanese"):
        backend.synthesize("こんにちは。", "piper:tiny")
    mixed = backend.synthesize("こんにちは。 Hello.", "piper:tiny")
    assert 0 < mixed.duration < 1.0  # only "Hello."


def test_a_model_without_piper_inputs_is_refused(tmp_path):
    from tests.llm.neural_voice.tiny_piper import model_bytes

    path = tmp_path / "odd.onnx"
    path.write_bytes(model_bytes(input_name="tokens"))
    with pytest.raises(TtsError, match="not a Piper voice"):
        PiperVoice(path, parse_config(json.dumps(settings()).encode()))
