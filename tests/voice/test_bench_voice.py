"""``bench --only voice`` prints its figures (timing never fails anything)."""

from __future__ import annotations

import re

import pytest

from companion_desktop.cli.bench import parse_sections
from tests.voice.sounds import needs_espeak, needs_voice


def test_voice_is_a_bench_section():
    assert parse_sections(["voice"]) == ["voice"]
    assert "voice" in parse_sections(None)


@needs_voice
@needs_espeak
@pytest.mark.slow
def test_the_voice_bench_reports_hearing_and_first_audio_figures():
    from companion_desktop.cli.bench.voice import run_voice_bench

    lines: list[str] = []
    run_voice_bench(lines.append, runs=1)
    text = "\n".join(lines)
    figures = r"p50 \d+\.\d\d s, p95 \d+\.\d\d s"
    for label in ("2 s utterances", "6 s utterances"):
        for mode in ("short window", "30 s window"):
            assert re.search(f"end of speech to text, {label} .*{mode}.*: {figures}", text), text
    assert re.search(f"2 s utterances, language detected, 1 runs: {figures} .*en x1", text), text
    assert re.search(f"end of speech to her first audio .*: {figures}", text), text
    assert re.search(r"espeak-ng \(robot voice\): \d+\.\d+ CPU s and \d+\.\d+ wall s per "
                     r"second of speech .* MB resident after; heard back by Whisper: \d+ word "
                     r"errors in \d+", text), text
    from companion_desktop.llm.neural_voice import kokoro_missing

    if kokoro_missing() is None:
        assert re.search(r"natural voice kokoro:jf_gongitsune \(her default\): \d+\.\d+ CPU "
                         r"s", text), text
        assert re.search(f"natural voice \\(her default\\): first sentence written to its "
                         f"audio {figures}", text), text


def test_word_errors_count_words_not_punctuation():
    from companion_desktop.cli.bench.speaking import word_errors

    assert word_errors("I saved you a seat!", "i saved you a seat") == 0
    assert word_errors("It's late, go rest.", "its late go to rest") == 2  # its, to
    assert word_errors("one two three", "") == 3
