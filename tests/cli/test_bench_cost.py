"""The cost and peer figures of ``companion-desktop bench``: the parts that measure, not the
timings (the synthetic model's wire format, /proc accounting, the frame-stats reader, the
three-vrm output reader, ``--only``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from companion_desktop.cli import CliError
from companion_desktop.cli.bench import SECTIONS, parse_sections
from companion_desktop.cli.bench.cost import FrameStats, bench_app_idle, cpu_seconds, rss_mb
from companion_desktop.cli.bench.peer import parse_peer_output, shared_dir
from companion_desktop.cli.bench.tokens import TokenServer, sse_contents, stream_tokens
from tests.conftest import SHARED_ASSETS


def test_synthetic_model_streams_openai_sse_with_the_asked_token_count():
    with TokenServer(lifetime=30, size=16, matmuls=2) as server:
        body = {"model": "x", "stream": True, "max_tokens": 7,
                "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=10)
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        events = [line[len("data: "):] for line in reply.text.splitlines()
                  if line.startswith("data: ")]
        assert events[-1] == "[DONE]"
        chunks = [json.loads(event) for event in events[:-1]]
        assert all(c["object"] == "chat.completion.chunk" for c in chunks)
        contents = [c["choices"][0]["delta"].get("content") for c in chunks]
        assert [text for text in contents if text] == [f" t{i}" for i in range(7)]
        assert chunks[-1]["choices"][0]["finish_reason"] == "length"
        run = stream_tokens(server.url, 25)
        assert run.tokens == 25 and run.seconds > 0 and run.rate > 0
        assert httpx.post(f"{server.url}/v1/other", json={}, timeout=5).status_code == 404
    assert server.proc.returncode is not None  # it stopped with us


def test_sse_reader_counts_content_and_stops_at_done():
    def chunk(content):  # noqa: ANN001, ANN202
        return "data: " + json.dumps(
            {"choices": [{"delta": {"content": content} if content else {}}]})

    lines = [": keep-alive", "", chunk("a"), "event: ping", chunk(None), "data: {not json",
             chunk("b"), "data: [DONE]", chunk("after")]
    assert list(sse_contents(lines)) == ["a", "b"]


_BURNER = """
import sys, time
while time.process_time() < 0.5:
    pass
print("burnt", flush=True)
time.sleep(30)
"""


def test_proc_cpu_of_a_child_that_burns_half_a_second():
    t0 = time.monotonic()
    child = subprocess.Popen([sys.executable, "-c", _BURNER], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "burnt"
        used = cpu_seconds(child.pid)
        assert 0.45 <= used <= time.monotonic() - t0 + 0.05
        time.sleep(0.3)  # asleep now: no more CPU
        assert cpu_seconds(child.pid) - used < 0.05
        assert 1 < rss_mb(child.pid) < 500
    finally:
        child.kill()
        child.wait(5)


def test_frame_stats_give_distinct_frames_a_second(tmp_path: Path):
    path = tmp_path / "frames.jsonl"
    lines = [{"event": "window_shown", "time": 100.4}, {"event": "chat_shown", "time": 100.9}]
    lines += [{"event": "frames", "time": 101.0 + s, "pictures": 10 + 24 * s, "views": 2}
              for s in range(6)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + '\n{"event": "fra',
                    encoding="utf-8")
    stats = FrameStats.read(path)
    assert stats.shown == 100.4 and stats.chat_shown == 100.9
    assert len(stats.frames) == 6
    assert stats.distinct_fps(101.5, 106.0) == pytest.approx(24.0)
    assert stats.views(101.5, 106.0) == 2
    assert stats.distinct_fps(101.5, 102.5) is None  # one report is no rate
    assert FrameStats.read(tmp_path / "missing.jsonl").shown is None


def test_frame_stats_give_motion_updates_and_the_largest_step(tmp_path: Path):
    path = tmp_path / "frames.jsonl"
    lines = [{"event": "frames", "time": 200.0 + s, "pictures": 10 * s, "views": 2,
              "ticks": 24 * s, "largest_step_px": 0.1 * s} for s in range(5)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    stats = FrameStats.read(path)
    rate, step = stats.motion(199.0, 205.0)
    assert rate == pytest.approx(24.0) and step == pytest.approx(0.4)
    assert stats.motion(300.0, 400.0) is None
    assert stats.rough_steps(199.0, 205.0) is None  # an app that does not count steps


def test_frame_stats_count_the_steps_over_seven_tenths_of_a_pixel(tmp_path: Path):
    path = tmp_path / "frames.jsonl"
    lines = [{"event": "frames", "time": 200.0 + s, "pictures": 10 * s, "views": 2,
              "ticks": 24 * s, "largest_step_px": 0.8, "steps": 9 * s, "steps_over": s // 2}
             for s in range(5)]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    stats = FrameStats.read(path)
    assert stats.rough_steps(200.5, 205.0) == (27, 2)  # from the report at 201 to 204
    assert stats.rough_steps(203.5, 204.5) is None


def test_a_pinned_idle_clip_is_the_only_one_in_her_pool(tmp_path: Path):
    """The bench sets her idle pool as Settings > Animations does, in a fresh data folder,
    so that the app started on it cycles through that one clip."""
    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.cli.bench.app_process import pin_idle_clip
    from companion_desktop.pipeline.animations import AnimationService
    from companion_desktop.storage.db import Database

    data = tmp_path / "data"
    pin_idle_clip(data, "idle_sway")
    with Database.open(data) as db:
        service = AnimationService(db, data, AnimationLibrary())
        assert service.idle_pool() == ["idle_sway"]
        assert len([e for e in service.idle_choices() if e.builtin]) >= 5  # the others, out
    pin_idle_clip(data, "idle_calm")  # again on the same folder: the other clip only
    with Database.open(data) as db:
        assert AnimationService(db, data, AnimationLibrary()).idle_pool() == ["idle_calm"]
    with pytest.raises(ValueError, match="'wave' is not one of her idle clips"):
        pin_idle_clip(data, "wave")


def test_idle_app_figure_is_skipped_without_a_display(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    lines: list[str] = []
    bench_app_idle(lines.append, seconds=1)
    assert lines == ["  idle app: skipped (no display; `scripts/run.sh bench --only cost` "
                     "starts a virtual one)"]


def test_peer_output_reader_takes_the_figures_line():
    out = "\n".join(["[bench] noise", json.dumps({"model": "x", "error": "boom"}),
                     json.dumps({"fps": 70.1, "update_ms_mean": 0.25, "render_ms_mean": 13.6})])
    assert parse_peer_output(out)["fps"] == 70.1
    assert parse_peer_output('{"model": "x", "error": "boom"}\nnot json') is None


def test_only_sections():
    assert parse_sections(None) == list(SECTIONS)
    assert parse_sections(["cost,turns", "PEER"]) == ["turns", "peer", "cost"]
    with pytest.raises(CliError, match="unknown section 'nope'; choose from turns, memory"):
        parse_sections(["turns,nope"])


def test_bench_only_rejects_an_unknown_section_on_the_command_line():
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    proc = subprocess.run([sys.executable, "-m", "companion_desktop", "bench", "--only", "gpu"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert ("bench --only: unknown section 'gpu'; choose from turns, memory, media, avatar, edges, "
            "peer, cost") in proc.stderr


def test_the_shared_folder_is_found_beside_the_project(monkeypatch):
    """Without $COMPANION_SHARED_DIR the bench looks where the tests do (../shared)."""
    monkeypatch.delenv("COMPANION_SHARED_DIR", raising=False)
    assert shared_dir() / "assets" == SHARED_ASSETS


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display for both windows")
def test_the_idle_figure_with_one_clip_runs_the_real_app_on_it():
    lines: list[str] = []
    bench_app_idle(lines.append, seconds=1, idle_clip="idle_calm")
    assert len(lines) == 1, lines  # no launch or memory line: the idle figure alone
    assert "(chat window + overlay, Hana, playing only idle_calm) for 1 s:" in lines[0]
    assert "% of one core" in lines[0] and "new pictures/s over 2 avatar view(s)" in lines[0]


@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display for both windows")
def test_a_picture_of_both_windows_costs_one_render():
    """The cost bench's in-process figure: both views drawn for each picture, one render
    each time (the portrait is a part of the overlay's picture), her built-in model."""
    from companion_desktop.cli.bench.picture import line, run_in_child

    result = run_in_child()
    assert "error" not in result, result
    assert result["renders"] == result["pictures"]  # not two
    assert result["cpu_ms"] > 0 and result["wall_ms"] > 0
    assert "a picture of both windows" in line(result)
    assert "not measured" in line({"error": "no display"})
