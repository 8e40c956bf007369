"""Benchmark figures for photos, her voice and MCP tools (``companion-desktop bench``).

Figures only: nothing here passes or fails on timing.
"""

from __future__ import annotations

import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: A one-tool MCP server for the call round trip (the SDK's FastMCP over stdio).
_SERVER = '''
from mcp.server.fastmcp import FastMCP
server = FastMCP("bench", log_level="WARNING")

@server.tool()
def echo(text: str) -> str:
    return text

server.run()
'''


def _photo(size: tuple[int, int], fmt: str) -> bytes:
    import numpy as np
    from PIL import Image

    rng = np.random.default_rng(7)  # a gradient with sensor-like grain, as a photo has
    ramp = np.linspace(30, 220, size[0], dtype=np.float32)[None, :, None]
    grain = rng.normal(0, 6, (size[1], size[0], 3)).astype(np.float32)
    pixels = np.clip(ramp + grain, 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    image = Image.fromarray(pixels)
    if fmt == "HEIF":
        import pillow_heif

        pillow_heif.register_heif_opener()
    image.save(buffer, fmt, quality=90)
    return buffer.getvalue()


PHOTO_CASES = (("JPEG", (4032, 3024)), ("HEIF", (4032, 3024)), ("PNG", (1200, 900)))


def bench_photos(report: Callable[[str], None] = print,
                 cases: tuple[tuple[str, tuple[int, int]], ...] = PHOTO_CASES) -> None:
    """Preparing a shown photo (decode, turn, scale to 1568 px, encode, thumbnail)."""
    from companion_desktop.pipeline.images import prepare_image_bytes

    for fmt, size in cases:
        data = _photo(size, fmt)
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            prepared = prepare_image_bytes(data, f"bench.{fmt.lower()}")
            times.append(time.perf_counter() - t0)
        report(f"  {fmt} {size[0]}x{size[1]} ({len(data) / 1e6:.1f} MB) -> {prepared.width}x"
               f"{prepared.height} {prepared.mime_type} {len(prepared.data) / 1e3:.0f} KB: "
               f"median {statistics.median(times) * 1000:.0f} ms")


def bench_voice(report: Callable[[str], None] = print) -> None:
    """espeak-ng synthesis (real-time factor) and the lip-sync analysis of its audio."""
    import numpy as np

    from companion_desktop.avatar.lipsync import mouth_track
    from companion_desktop.llm.tts import EspeakBackend, TtsError

    backend = EspeakBackend()
    if not backend.available():
        report("  espeak-ng not installed: no voice figures")
        return
    line = ("Oh, that sunset is beautiful! Tell me everything about the lake, "
            "I want to hear how the evening went.")
    try:
        t0 = time.perf_counter()
        audio = backend.synthesize(line)
        synth = time.perf_counter() - t0
    except TtsError as error:
        report(f"  espeak-ng failed: {error}")
        return
    report(f"  espeak-ng: {audio.duration:.2f} s of speech in {synth * 1000:.0f} ms "
           f"(real-time factor {synth / max(audio.duration, 1e-6):.3f})")
    pcm = np.frombuffer(audio.pcm, dtype="<i2")
    ten = np.resize(pcm, audio.sample_rate * 10)
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        track = mouth_track(ten, audio.sample_rate)
        times.append(time.perf_counter() - t0)
    report(f"  lip sync: 10 s of audio -> {len(track.weights)} frames in "
           f"{statistics.median(times) * 1000:.1f} ms median")
    bench_speech_stream(line, report)


def bench_speech_stream(line: str, report: Callable[[str], None] = print) -> None:
    """What speaking while the reply streams costs per streamed chunk (the pipeline
    thread): a long reply fed to ``SpeechStream`` 4 characters at a time."""
    from companion_desktop.engine.speech_stream import SpeechStream

    for label, reply in (("plain", (line + " ") * 200),
                         ("speak()", f'*smiles* speak("{line}") ' * 100)):
        stream, parts = SpeechStream(), 0
        t0 = time.perf_counter()
        for at in range(4, len(reply) + 4, 4):
            parts += len(stream.feed(reply[:at]))
        spent = time.perf_counter() - t0
        chunks = (len(reply) + 3) // 4
        report(f"  speech while streaming ({label}, {len(reply) / 1000:.0f} KB in "
               f"{chunks} chunks, {parts} parts): {spent / chunks * 1e6:.1f} µs a chunk")


def bench_tools(calls: int = 50, report: Callable[[str], None] = print) -> None:
    """Starting an MCP stdio server and the round trip of one tool call."""
    from companion_desktop.llm.mcp_client import McpHub, McpServerConfig

    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "bench_server.py"
        script.write_text(_SERVER, encoding="utf-8")
        config = McpServerConfig("bench", "stdio", command=sys.executable, args=(str(script),))
        with McpHub([config]) as hub:
            t0 = time.perf_counter()
            listing = hub.list_tools()
            start = time.perf_counter() - t0
            if not isinstance(listing.get("bench"), list):
                report(f"  MCP server did not start: {listing.get('bench')}")
                return
            times = []
            for i in range(calls):
                t0 = time.perf_counter()
                hub.call_tool("bench", "echo", {"text": f"hello {i}"})
                times.append(time.perf_counter() - t0)
    times.sort()
    report(f"  MCP stdio: start + list tools {start * 1000:.0f} ms; one call p50 "
           f"{times[len(times) // 2] * 1000:.1f} ms, "
           f"p95 {times[int(len(times) * 0.95)] * 1000:.1f} ms")


def run_media_bench(report: Callable[[str], None] = print) -> None:
    report("photos:")
    bench_photos(report)
    report("voice:")
    bench_voice(report)
    report("tools:")
    bench_tools(report=report)
