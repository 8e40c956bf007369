"""Crash safety of ``import --replace``: the real command killed with SIGKILL at random
moments (seeded) leaves a database that passes ``PRAGMA integrity_check`` and holds
either all of the old data or all of the new, never a mix."""

from __future__ import annotations

import json
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from tests.cli.test_cli import ENV

RUNS = 8
T = datetime(2026, 3, 1, tzinfo=timezone.utc)


def old_folder(folder: Path) -> Path:
    db = Database.open(folder)
    try:
        with db.session() as session:
            sid = repo.start_session(session, T)
            for i in range(300):
                repo.add_turn(session, sid, "user", f"old message {i}", T + timedelta(seconds=i))
            for i in range(50):
                repo.add_fact(session, f"Old fact number {i}.", "user", T)
    finally:
        db.close()
    return folder


def new_save(path: Path) -> Path:
    stamp = "2026-02-01T10:00:00Z"
    data = {
        "version": "2.0",
        "data": {
            "sessions": [{"id": 1, "startedAt": stamp}],
            "conversationTurns": [
                {"sessionId": 1, "role": "user", "content": f"new message {i} " + "x" * 1500,
                 "createdAt": f"2026-02-01T10:{i // 60 % 60:02d}:{i % 60:02d}Z"}
                for i in range(3000)
            ],
            "facts": [{"content": f"New fact number {i}.", "category": "user", "createdAt": stamp}
                      for i in range(1500)],
        },
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def contents(folder: Path) -> tuple[str, frozenset[str], frozenset[str]]:
    conn = sqlite3.connect(folder / "companion.sqlite3")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        turns = frozenset(r[0] for r in conn.execute("SELECT content FROM conversation_turns"))
        facts = frozenset(r[0] for r in conn.execute("SELECT content FROM facts"))
    finally:
        conn.close()
    kinds = {t.split()[0] for t in turns} | {f.split()[0] for f in facts}
    return "/".join(sorted(kinds)), turns, facts


def start_import(folder: Path, save: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "companion_desktop", "--data-dir", str(folder), "import", str(save),
         "--replace"], env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for_writing(wal: Path, proc: subprocess.Popen) -> None:
    """Until the WAL holds more than the backup's and the start's few pages."""
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        if wal.exists() and wal.stat().st_size > 1_000_000:
            return
        time.sleep(0.005)


@pytest.mark.slow
def test_import_killed_at_random_moments_is_all_or_nothing(tmp_path):
    template = old_folder(tmp_path / "template")
    save = new_save(tmp_path / "save.json")
    old = contents(template)
    assert old[0] == "Old/old"

    clean = tmp_path / "clean"
    shutil.copytree(template, clean)
    started = time.monotonic()
    assert start_import(clean, save).wait(120) == 0
    duration = time.monotonic() - started
    new = contents(clean)
    assert new[0] == "New/new"

    rng = random.Random(13)
    outcomes = []
    for run in range(RUNS):
        folder = tmp_path / f"run{run}"
        shutil.copytree(template, folder)
        proc = start_import(folder, save)
        if run % 2:  # inside the replacing transaction: once it spills pages into the WAL
            wait_for_writing(folder / "companion.sqlite3-wal", proc)
            time.sleep(rng.uniform(0, 0.2))
        else:
            time.sleep(rng.uniform(0.1, duration * 1.15))  # anywhere, some after it finished
        finished = proc.poll() is not None
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        got = contents(folder)
        assert got in (old, new), f"run {run}: a mix ({got[0]})"
        outcomes.append(("new" if got == new else "old", finished))
        Database.open(folder).close()  # and the app opens it again
    assert ("old", False) in outcomes  # at least one kill landed before the commit
    assert len(outcomes) == RUNS  # which ones land depends on timing; each is whole
    survivor = tmp_path / "run0"
    assert start_import(survivor, save).wait(120) == 0  # a killed backup's leftovers go
    assert not list((survivor / "backups").glob(".backup-*"))
