"""The real app as a subprocess for the bench, read from outside, and a model server for it.

:class:`RunningApp` starts ``python -m companion_desktop`` on a data folder and reads its CPU
time and memory from ``/proc`` and its pictures from the frame-stats file it writes when
``COMPANION_FRAME_STATS`` names one (:class:`FrameStats`). :class:`ReplyServer` is an
OpenAI-compatible chat server on 127.0.0.1 that streams one fixed reply at once. Used by
``bench --only cost``, ``voice`` and ``mind``.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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
    shown: float | None = None  # time.time() of the first window's first paint
    chat_shown: float | None = None  # time.time() of the chat window's first paint
    frames: list[tuple[float, int, int]] = field(default_factory=list)  # (time, pictures, views)
    ticks: list[tuple[float, int, float]] = field(default_factory=list)  # (time, ticks, step px)
    steps: list[tuple[float, int, int]] = field(default_factory=list)  # (time, steps, over 0.7 px)

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
                elif item.get("event") == "chat_shown" and stats.chat_shown is None:
                    stats.chat_shown = float(item["time"])
                elif item.get("event") == "frames":
                    stats.frames.append((float(item["time"]), int(item["pictures"]),
                                         int(item["views"])))
                    if "ticks" in item:
                        stats.ticks.append((float(item["time"]), int(item["ticks"]),
                                            float(item.get("largest_step_px", 0.0))))
                    if "steps" in item:
                        stats.steps.append((float(item["time"]), int(item["steps"]),
                                            int(item["steps_over"])))
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

    def rough_steps(self, start: float, stop: float) -> tuple[int, int] | None:
        """(steps between two pictures, those over 0.7 px) between the first and last
        reports inside [start, stop]; None from an app that does not count them."""
        inside = [s for s in self.steps if start <= s[0] <= stop]
        if len(inside) < 2:
            return None
        return inside[-1][1] - inside[0][1], inside[-1][2] - inside[0][2]

    def views(self, start: float, stop: float) -> int | None:
        inside = [f[2] for f in self.frames if start <= f[0] <= stop]
        return max(inside) if inside else None


# -- the app under test ---------------------------------------------------------------------
def pin_idle_clip(data_dir: Path, clip: str) -> None:
    """Her idle pool in the data folder ``data_dir`` (made if new) holds ``clip`` only, as
    Settings > Animations would leave it; ValueError when it is not a built-in idle."""
    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.pipeline.animations import AnimationService
    from companion_desktop.storage.db import Database

    with Database.open(data_dir) as db:
        service = AnimationService(db, data_dir, AnimationLibrary())
        idles = [entry.id for entry in service.idle_choices() if entry.builtin]
        if clip not in idles:
            raise ValueError(f"{clip!r} is not one of her idle clips ({', '.join(idles)})")
        service.save_edits({ident: {"in_idle_pool": ident == clip} for ident in idles})


class RunningApp:
    """``python -m companion_desktop`` on a fresh data folder, read through /proc;
    ``idle_clip``: the one idle clip she plays (``pin_idle_clip``), else her usual pool."""

    def __init__(self, folder: Path, idle_clip: str | None = None) -> None:
        if idle_clip is not None:
            pin_idle_clip(folder / "data", idle_clip)
        self.stats_path = folder / "frames.jsonl"
        self.last_motion: tuple[float, float] | None = None
        self.last_rough: tuple[int, int] | None = None  # (steps, over 0.7 px) of cpu_share
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

    def wait_shown(self, timeout: float = 15.0, chat: bool = False) -> float | None:
        """Seconds from launch to the first window shown (``chat``: the chat window
        itself, which follows once storage is open), or None (no hook, or none showed)."""
        deadline = time.monotonic() + timeout
        while self.alive and time.monotonic() < deadline:
            stats = self.stats()
            shown = stats.chat_shown if chat else stats.shown
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
        self.last_rough = stats.rough_steps(wall0 - 0.6, wall1 + 1.2)
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


# -- a model server for it ------------------------------------------------------------------
class LocalServer:
    """``handler`` (a BaseHTTPRequestHandler class) serving on 127.0.0.1 in a thread;
    ``url`` is its API root (``/v1``)."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class ReplyServer(LocalServer):
    """An OpenAI-compatible chat server on 127.0.0.1 that streams ``reply`` at once, eight
    characters a chunk, to every request."""

    def __init__(self, reply: str) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                try:
                    for start in range(0, len(reply), 8):
                        delta = {"content": reply[start:start + 8]}
                        chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except OSError:  # a reader may stop early (the first sentence is enough)
                    pass

        super().__init__(Handler)
