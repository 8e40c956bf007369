"""What she costs on the user's machine (``companion-desktop bench --only cost``).

The real app is started as a subprocess (chat window + overlay, the built-in Hana) and read
from outside: its CPU time and memory from ``/proc``, its frames and the moment its window
showed from the frame-stats file it writes when ``COMPANION_FRAME_STATS`` names one. Then a
synthetic local model (``cli/bench/tokens.py``) streams the same completion without her and beside
her. Figures only: nothing here passes or fails.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from companion_desktop.avatar.render.change import SMOOTH_STEP
from companion_desktop.cli.bench.app_process import (  # noqa: F401 - long importable from here
    FRAME_STATS_ENV,
    NO_WELCOME_ENV,
    FrameStats,
    RunningApp,
    cpu_seconds,
    rss_mb,
)


def _frames_text(fps: float | None, views: int | None,
                 motion: tuple[float, float] | None = None,
                 rough: tuple[int, int] | None = None) -> str:
    if fps is None:
        return "no frame figures (the app wrote no frame stats)"
    text = f"{fps:.1f} new pictures/s over {views} avatar view(s)"
    if motion is not None:
        text += (f" (drawn when she moves half a pixel); motion updated {motion[0]:.1f} times/s "
                 f"(aim >= 24), largest step between two pictures {motion[1]:.2f} px")
    if rough is not None and rough[0]:
        text += f", {rough[1]} of {rough[0]} steps over {SMOOTH_STEP:g} px"
    return text


#: The idle clips measured one at a time (``bench_idle_by_clip``): her calmest and her
#: liveliest. Which clip plays moves the idle figure by half (7 or 14 pictures a second).
PINNED_CLIPS = ("idle_calm", "idle_sway")


def bench_app_idle(report: Callable[[str], None] = print, seconds: float = 10.0,
                   beside: Callable[[], None] | None = None,
                   idle_clip: str | None = None) -> None:
    """Figure 1 (and ``beside``, run while she still idles on screen: figure 2's second half).
    ``idle_clip``: she plays only that idle clip (the launch and memory lines are left out)."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        report("  idle app: skipped (no display; `scripts/run.sh bench --only cost` starts a "
               "virtual one)")
        return
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
        app = RunningApp(Path(folder), idle_clip)
        try:
            shown = app.wait_shown()
            if idle_clip is not None:
                app.settled_rss()
            elif shown is None:
                if not app.alive:
                    report(f"  idle app: it exited ({app.proc.returncode}): {app.tail()}")
                    return
                report("  launch to window visible: not measured (the app wrote no frame stats)")
            else:
                chat = app.wait_shown(chat=True)
                chat_text = f"{chat:.2f} s" if chat is not None else "not seen"
                report(f"  launch to window visible: {shown:.2f} s (aim < 1 s); the chat "
                       f"window itself (storage open, her history): {chat_text}")
            if idle_clip is None:
                rss = app.settled_rss()  # the embedding model loads 1.5 s after the window shows
                report(f"  RSS with the embedding model loaded: {rss:.0f} MB (aim <= 500 MB)")
            time.sleep(3.0)
            if not app.alive:
                report(f"  idle app: it exited ({app.proc.returncode}): {app.tail()}")
                return
            share, fps, views = app.cpu_share(seconds)
            per_picture = (f"; {10 * share / fps:.1f} ms of CPU a picture (all of the app's "
                           "CPU over the pictures it drew)" if fps else "")
            playing = f", playing only {idle_clip}" if idle_clip is not None else ""
            report(f"  idle app (chat window + overlay, Hana{playing}) for {seconds:.0f} s: "
                   f"{share:.1f}% of one core, all threads (aim <= 30%); "
                   f"{_frames_text(fps, views, app.last_motion, app.last_rough)}{per_picture}")
            if beside is not None and app.alive:
                wall0, cpu0 = time.time(), cpu_seconds(app.proc.pid)
                beside()
                wall1, cpu1 = time.time(), cpu_seconds(app.proc.pid)
                time.sleep(1.2)
                stats = app.stats()
                fps = stats.distinct_fps(wall0 - 0.6, wall1 + 1.2)
                motion = stats.motion(wall0 - 0.6, wall1 + 1.2)
                rough = stats.rough_steps(wall0 - 0.6, wall1 + 1.2)
                report(f"  her while the local model streams: "
                       f"{100 * (cpu1 - cpu0) / (wall1 - wall0):.1f}% of one core; "
                       f"{_frames_text(fps, stats.views(wall0, wall1 + 1.2), motion, rough)}")
        except OSError:  # /proc/PID went away: it quit while being measured
            report(f"  idle app: it exited while measured ({app.proc.poll()}): {app.tail()}")
        finally:
            app.stop()


def bench_local_model(report: Callable[[str], None] = print, tokens: int = 200,
                      seconds: float = 10.0) -> None:
    """Figures 1 and 2: tokens/s of the synthetic model alone, beside her, alone again."""
    from companion_desktop.cli.bench.tokens import TokenServer, stream_tokens

    with TokenServer() as server:
        stream_tokens(server.url, 20)  # warm up: threads, sockets
        alone = [stream_tokens(server.url, tokens).rate]
        beside: list[float] = []

        def measure() -> None:
            beside.append(stream_tokens(server.url, tokens).rate)

        bench_app_idle(report, seconds, beside=measure)
        alone.append(stream_tokens(server.url, tokens).rate)
    workers = os.cpu_count() or 1
    head = (f"  synthetic local model (no llama.cpp or weights here: a stand-in server on "
            f"127.0.0.1, each token a fixed numpy workload over {workers} threads), "
            f"{tokens}-token stream:")
    base = sum(alone) / len(alone)
    if not beside:
        report(f"{head} alone {alone[0]:.1f} then {alone[1]:.1f} tokens/s; not measured beside her")
        return
    report(f"{head} alone {alone[0]:.1f} / {alone[1]:.1f} tokens/s (before / after), beside her "
           f"idling {beside[0]:.1f} tokens/s = {100 * beside[0] / base:.0f}% kept (aim >= 90%)")


def bench_idle_by_clip(report: Callable[[str], None] = print, seconds: float = 10.0,
                       clips: tuple[str, ...] = PINNED_CLIPS) -> None:
    """Figure 1 again with one idle clip at a time (her idle pool set as Settings >
    Animations sets it), so that runs compare whatever the random pick would have been."""
    for clip in clips:
        bench_app_idle(report, seconds, idle_clip=clip)


def run_cost_bench(report: Callable[[str], None] = print) -> None:
    report("cost (the real app in a subprocess, read through /proc):")
    bench_local_model(report)
    bench_idle_by_clip(report)
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        from companion_desktop.cli.bench.picture import line, run_in_child

        report(line(run_in_child()))
