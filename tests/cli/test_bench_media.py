"""The photo, voice and tool figures of ``companion-desktop bench`` (figures, never pass/fail
on timing: these tests check that each figure is measured on the real parts and reported)."""

from __future__ import annotations

import re

import pytest

from companion_desktop.cli.bench.media import bench_photos, bench_tools, bench_voice
from companion_desktop.llm.tts import EspeakBackend


def test_photo_figures():
    lines: list[str] = []
    bench_photos(lines.append, cases=(("JPEG", (2000, 1000)), ("HEIF", (800, 600))))
    assert re.match(r"  JPEG 2000x1000 .* -> 1568x784 image/jpeg \d+ KB: median \d+ ms", lines[0])
    assert re.match(r"  HEIF 800x600 .* -> 800x600 image/jpeg", lines[1])


@pytest.mark.skipif(not EspeakBackend().available(), reason="espeak-ng is not installed")
def test_voice_figures():
    lines: list[str] = []
    bench_voice(lines.append)
    assert re.match(r"  espeak-ng: \d+\.\d\d s of speech in \d+ ms \(real-time factor", lines[0])
    assert re.match(r"  lip sync: 10 s of audio -> 60\d frames in", lines[1])
    for line, label in zip(lines[2:], ("plain", "speak()"), strict=True):
        assert re.match(rf"  speech while streaming \({re.escape(label)}, \d+ KB in \d+ chunks, "
                        r"\d+ parts\): \d+\.\d µs a chunk", line), line


def test_tool_figures():
    lines: list[str] = []
    bench_tools(calls=3, report=lines.append)
    assert re.match(r"  MCP stdio: start \+ list tools \d+ ms; one call p50 \d+\.\d ms", lines[0])
