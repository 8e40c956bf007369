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
