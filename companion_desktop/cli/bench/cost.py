"""What she costs on the user's machine (``companion-desktop bench --only cost``).

The real app is started as a subprocess (chat window + overlay, the built-in Hana) and read
from outside: its CPU time and memory from ``/proc``, its frames and the moment its window
showed from the frame-stats file it writes when ``COMPANION_FRAME_STATS`` names one. Then a
synthetic local model (``cli/bench/tokens.py``) streams the same completion without her and beside
her. Figures only: nothing here passes or fails.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

FRAME_STATS_ENV = "COMPANION_FRAME_STATS"
NO_WELCOME_ENV = "COMPANION_NO_WELCOME"  # as companion_desktop.app (not imported: it pulls in Qt)


# -- /proc -----------------------------------------------------------------------------
def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, all its threads (fields 14 and 15 of /proc/PID/stat)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()  # the name may hold spaces; fields 3.. follow
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    """VmRSS of a process in MB (0 when the kernel does not say)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


# -- the app's frame stats ----------------------------------------------------------------
@dataclass
class FrameStats:
    shown: float | None = None  # time.time() of the chat window's first exposure
    frames: list[tuple[float, int, int]] = field(default_factory=list)  # (time, pictures, views)
    ticks: list[tuple[float, int, float]] = field(default_factory=list)  # (time, ticks, step px)

    @classmethod
    def read(cls, path: Path) -> FrameStats:
        """The JSON lines written so far (a half-written last line is left for next time)."""
        stats = cls()
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return stats
        for line in lines:
            try:
                item = json.loads(line)
                if item.get("event") == "window_shown" and stats.shown is None:
                    stats.shown = float(item["time"])
                elif item.get("event") == "frames":
                    stats.frames.append((float(item["time"]), int(item["pictures"]),
                                         int(item["views"])))
                    if "ticks" in item:
                        stats.ticks.append((float(item["time"]), int(item["ticks"]),
                                            float(item.get("largest_step_px", 0.0))))
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
        return stats

    def distinct_fps(self, start: float, stop: float) -> float | None:
        """New pictures a second between the first and last reports inside [start, stop]."""
        inside = [f for f in self.frames if start <= f[0] <= stop]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return None
        return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])

    def motion(self, start: float, stop: float) -> tuple[float, float] | None:
        """(motion updates a second, largest on-screen step between two pictures in
        pixels) between the first and last reports inside [start, stop]."""
        inside = [t for t in self.ticks if start <= t[0] <= stop]
        if len(inside) < 2 or inside[-1][0] <= inside[0][0]:
            return None
        rate = (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])
        return rate, max(t[2] for t in inside[1:])

    def views(self, start: float, stop: float) -> int | None:
        inside = [f[2] for f in self.frames if start <= f[0] <= stop]
        return max(inside) if inside else None


# -- the app under test ---------------------------------------------------------------------
class RunningApp:
    """``python -m companion_desktop`` on a fresh data folder, read through /proc."""

    def __init__(self, folder: Path) -> None:
        self.stats_path = folder / "frames.jsonl"
        self.last_motion: tuple[float, float] | None = None
        self.log_path = folder / "app.log"
        env = {**os.environ, NO_WELCOME_ENV: "1", FRAME_STATS_ENV: str(self.stats_path)}
        with self.log_path.open("wb") as log:
            self.launched = time.time()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "companion_desktop", "--data-dir", str(folder / "data")],
                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stats(self) -> FrameStats:
        return FrameStats.read(self.stats_path)

    def wait_shown(self, timeout: float = 15.0) -> float | None:
        """Seconds from launch to the window shown, or None (no hook, or it never showed)."""
        deadline = time.monotonic() + timeout
        while self.alive and time.monotonic() < deadline:
            shown = self.stats().shown
            if shown is not None:
                return shown - self.launched
            time.sleep(0.1)
        return None

    def settled_rss(self, least: float = 4.0, most: float = 20.0) -> float:
        """RSS once it has stopped growing (2 MB in 3 s) after ``least`` s, at most ``most`` s."""
        samples: list[tuple[float, float]] = []
        t0 = time.monotonic()
        while self.alive and time.monotonic() - t0 < most:
            now = time.monotonic()
            samples.append((now, rss_mb(self.proc.pid)))
            past = [mb for t, mb in samples if now - t >= 3.0]
            if now - t0 >= least and past and samples[-1][1] - past[-1] < 2.0:
                break
            time.sleep(0.5)
        return samples[-1][1] if samples else 0.0

    def cpu_share(self, seconds: float) -> tuple[float, float | None, int | None]:
        """% of one core over ``seconds``, distinct frames a second and views seen."""
        wall0, cpu0 = time.time(), cpu_seconds(self.proc.pid)
        time.sleep(seconds)
        wall1, cpu1 = time.time(), cpu_seconds(self.proc.pid)
        time.sleep(1.2)  # the report that closes the window
        stats = self.stats()
        self.last_motion = stats.motion(wall0 - 0.6, wall1 + 1.2)
        return (100 * (cpu1 - cpu0) / (wall1 - wall0), stats.distinct_fps(wall0 - 0.6, wall1 + 1.2),
                stats.views(wall0, wall1 + 1.2))

    def tail(self, lines: int = 3) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        except OSError:
            return ""
        return " | ".join(text[-lines:])

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 5 s."""
        if self.alive:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


def _frames_text(fps: float | None, views: int | None,
                 motion: tuple[float, float] | None = None) -> str:
    if fps is None:
        return "no frame figures (the app wrote no frame stats)"
    text = f"{fps:.1f} new pictures/s over {views} avatar view(s)"
    if motion is not None:
        text += (f" (drawn when she moves half a pixel); motion updated {motion[0]:.1f} times/s "
                 f"(aim >= 24), largest step between two pictures {motion[1]:.2f} px")
    return text


def bench_app_idle(report: Callable[[str], None] = print, seconds: float = 10.0,
                   beside: Callable[[], None] | None = None) -> None:
    """Figure 1 (and ``beside``, run while she still idles on screen: figure 2's second half)."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        report("  idle app: skipped (no display; `scripts/run.sh bench --only cost` starts a "
               "virtual one)")
        return
    with tempfile.TemporaryDirectory(prefix="companion-bench-") as folder:
        app = RunningApp(Path(folder))
        try:
            shown = app.wait_shown()
            if shown is None:
                if not app.alive:
                    report(f"  idle app: it exited ({app.proc.returncode}): {app.tail()}")
                    return
                report("  launch to window visible: not measured (the app wrote no frame stats)")
            else:
                report(f"  launch to window visible: {shown:.2f} s (aim < 1 s)")
            rss = app.settled_rss()  # the embedding model loads 1.5 s after the window shows
            report(f"  RSS with the embedding model loaded: {rss:.0f} MB (aim <= 500 MB)")
            time.sleep(3.0)
            if not app.alive:
                report(f"  idle app: it exited ({app.proc.returncode}): {app.tail()}")
                return
            share, fps, views = app.cpu_share(seconds)
            report(f"  idle app (chat window + overlay, Hana) for {seconds:.0f} s: "
                   f"{share:.1f}% of one core, all threads (aim <= 20%); "
                   f"{_frames_text(fps, views, app.last_motion)}")
            if beside is not None and app.alive:
                wall0, cpu0 = time.time(), cpu_seconds(app.proc.pid)
                beside()
                wall1, cpu1 = time.time(), cpu_seconds(app.proc.pid)
                time.sleep(1.2)
                stats = app.stats()
                fps = stats.distinct_fps(wall0 - 0.6, wall1 + 1.2)
                motion = stats.motion(wall0 - 0.6, wall1 + 1.2)
                report(f"  her while the local model streams: "
                       f"{100 * (cpu1 - cpu0) / (wall1 - wall0):.1f}% "
                       f"of one core; {_frames_text(fps, stats.views(wall0, wall1 + 1.2), motion)}")
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


def run_cost_bench(report: Callable[[str], None] = print) -> None:
    report("cost (the real app in a subprocess, read through /proc):")
    bench_local_model(report)
