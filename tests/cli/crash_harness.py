"""Running ``companion-desktop`` as a real process and killing it (SIGKILL) mid-flight,
then reading what the database holds with the sqlite3 module (no app code)."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion_desktop.storage.paths import DB_FILENAME
from tests.cli.test_chat_cli import ENV, NOW


@dataclass
class Run:
    """One process: the JSON lines it printed whole, and whether it was killed."""

    lines: list[dict] = field(default_factory=list)
    killed: bool = False
    returncode: int | None = None
    stderr: str = ""


def run_killed(data_dir: Path, args: list[str], kill_after: float | None,
               after: Callable[[], bool] | None = None, timeout: float = 60) -> Run:
    """Run ``companion-desktop --data-dir DIR --now NOW ARGS``; SIGKILL it ``kill_after``
    seconds after ``after()`` first holds (default: at start); None lets it finish.
    Only lines printed whole are kept."""
    argv = [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir),
            "--now", NOW, *args]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV)
    out: list[bytes] = []
    err: list[bytes] = []
    readers = [threading.Thread(target=lambda s=s, b=b: b.extend(iter(s.readline, b"")),
                                daemon=True)
               for s, b in ((proc.stdout, out), (proc.stderr, err))]
    for reader in readers:
        reader.start()
    run = Run()
    give_up = time.monotonic() + timeout
    deadline = None if after is not None and kill_after is not None else \
        time.monotonic() + (kill_after if kill_after is not None else timeout)
    while proc.poll() is None and time.monotonic() < min(deadline or give_up, give_up):
        if deadline is None and after is not None and after():
            deadline = time.monotonic() + (kill_after or 0.0)
        time.sleep(0.002)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
        run.killed = kill_after is not None
    run.returncode = proc.wait()  # reaped: its pid is gone, as after a real crash
    for reader in readers:
        reader.join(5)
    run.lines = [json.loads(line) for line in out if line.endswith(b"\n")]
    run.stderr = b"".join(err).decode(errors="replace")
    return run


def query(data_dir: Path, sql: str, *params: object) -> list[tuple]:
    with sqlite3.connect(data_dir / DB_FILENAME) as raw:
        return raw.execute(sql, params).fetchall()


def integrity(data_dir: Path) -> str:
    return query(data_dir, "PRAGMA integrity_check")[0][0]
