"""The real app as a subprocess (``python -m companion_desktop``, or the quit driver),
for tests of quitting and of one instance per data folder."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from companion_desktop.app import NO_WELCOME_ENV
from companion_desktop.storage.paths import DB_FILENAME
from companion_desktop.ui.frame_stats import FRAME_STATS_ENV

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("quit_driver.py")


class AppProcess:
    """One app on ``data``; its output goes to ``log`` (stdout and stderr). ``script``:
    Python code run instead of ``-m companion_desktop`` (same arguments); ``welcome``:
    the first-run welcome is not skipped; ``session``: environment variables set for it
    (None removes one; e.g. a Wayland session's, leaving the platform to the app)."""

    def __init__(self, data: Path, work: Path, quit_flag: bool = False,
                 args: tuple[str, ...] = (), send: str | None = None,
                 photo: Path | None = None, script: str | None = None,
                 welcome: bool = False,
                 session: dict[str, str | None] | None = None) -> None:
        work.mkdir(parents=True, exist_ok=True)
        self.data = data
        self.stats = work / "frames.jsonl"
        self.log = work / "app.log"
        self.flag = work / "quit-now"
        env = {**os.environ, NO_WELCOME_ENV: "1", FRAME_STATS_ENV: str(self.stats),
               "QT_QPA_PLATFORM": "xcb", "DISPLAY": os.environ.get("DISPLAY", ":99"),
               "PYTHONPATH": str(ROOT)}
        for name, value in (session or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        self.display = env.get("DISPLAY", "")
        env.pop("COMPANION_API_KEY", None)
        if welcome:  # a folder with no model set up shows the welcome first
            env.pop(NO_WELCOME_ENV)
        entry = ["-c", script] if script is not None else ["-m", "companion_desktop"]
        command = [sys.executable, *entry, "--data-dir", str(data), *args]
        if quit_flag or send is not None or photo is not None:
            extra = ["--send", send] if send is not None else []
            extra += ["--photo", str(photo)] if photo is not None else []
            command = [sys.executable, str(DRIVER), "--quit-flag", str(self.flag), *extra,
                       "--", *command[3:]]
        self.started = time.monotonic()
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(command, env=env, cwd=ROOT, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=subprocess.STDOUT)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def notes(self, event: str) -> list[dict]:
        """The frame-stats notes named ``event`` so far."""
        if not self.stats.exists():
            return []
        return [note for line in self.stats.read_text().splitlines() if line.strip()
                for note in (json.loads(line),) if note.get("event") == event]

    def _noted(self, wanted) -> bool:  # noqa: ANN001
        if not self.stats.exists():
            return False
        return any(wanted(json.loads(line)) for line in self.stats.read_text().splitlines()
                   if line.strip())

    def wait_shown(self, timeout: float = 30.0) -> None:
        """Until the chat window has painted and her first picture is drawn (the start-up
        work on the GUI thread is done then)."""
        self.wait_for(lambda: self._noted(lambda n: n.get("event") == "chat_shown"),
                      timeout, "window shown")
        self.wait_for(lambda: self._noted(lambda n: n.get("pictures", 0) > 0), timeout,
                      "her first picture")

    def shows_window(self, title: str) -> bool:
        """A window of this process whose title starts with ``title`` is on the display
        (X11)."""
        tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                              env={**os.environ, "DISPLAY": self.display}).stdout
        for line in tree.splitlines():
            if f' "{title}' in line:
                window = line.split()[0]
                owner = subprocess.run(["xprop", "-id", window, "_NET_WM_PID"],
                                       capture_output=True, text=True,
                                       env={**os.environ, "DISPLAY": self.display}).stdout
                if owner.strip().endswith(f"= {self.proc.pid}"):
                    return True
        return False

    def wait_said(self, text: str, timeout: float = 30.0) -> None:
        """Until the app (the quit driver) has printed ``text``."""
        self.wait_for(lambda: text in self.output(), timeout, repr(text))

    def wait_for(self, condition, timeout: float = 30.0, what: str = "") -> None:  # noqa: ANN001
        deadline = time.monotonic() + timeout
        while not condition():
            assert self.alive, f"the app ended before {what}: {self.output()[-2000:]}"
            assert time.monotonic() < deadline, f"no {what} within {timeout} s"
            time.sleep(0.05)

    def quit(self, how: str = "sigterm", within: float = 3.0) -> float:
        """Quit by a signal ("sigterm", "sigint", "sighup") or her menu's Quit ("menu"); the
        seconds it took. Asserts exit code 0 within ``within`` s (else the process is killed)."""
        started = time.monotonic()
        if how == "menu":
            self.flag.write_text("quit")
        else:
            self.proc.send_signal(getattr(signal, how.upper()))
        try:
            code = self.proc.wait(within)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {within} s after quit: "
                                 f"{self.output()[-3000:]}") from None
        took = time.monotonic() - started
        output = self.output()
        assert "QThread: Destroyed" not in output, output[-3000:]
        assert code == 0, f"exit code {code}: {output[-3000:]}"
        return took

    def kill(self) -> None:
        if self.alive:
            self.proc.kill()
            self.proc.wait(10)


def integrity(data: Path) -> str:
    with sqlite3.connect(data / DB_FILENAME) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]
