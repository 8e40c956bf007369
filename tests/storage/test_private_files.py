"""Her data is the user's alone: the data folder 0700 and what she writes in it 0600,
whatever the umask; a folder an older version left open is tightened when it opens."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from companion_desktop.storage.db import Database
from tests.storage.test_backup import fill

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
ROOT = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def loose(folder: Path) -> list[str]:
    """Everything under ``folder`` (itself included) that others may read or enter."""
    found = [folder, *folder.rglob("*")]
    return sorted(f"{p.relative_to(folder.parent)} {oct(mode(p))}" for p in found
                  if mode(p) & 0o077 and not p.is_symlink())


def cli(data: Path, *args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TZ": "UTC"}
    env.pop("COMPANION_DATA_DIR", None)
    proc = subprocess.run([sys.executable, "-m", "companion_desktop", "--data-dir", str(data),
                           *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60, umask=0o022, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_nothing_she_writes_is_readable_by_others_with_a_umask_of_022(tmp_path):
    data = tmp_path / "data"
    cli(data, "state")
    assert mode(data) == 0o700 and mode(data / "companion.sqlite3") == 0o600
    cli(data, "backup", "create")
    archive = next((data / "backups").glob("*.zip"))
    assert mode(data / "backups") == 0o700 and mode(archive) == 0o600
    old = os.umask(0o022)
    try:
        (data / "keepsakes").mkdir(mode=0o700)
        (data / "keepsakes" / "photo.jpg").write_bytes(b"\xff\xd8 a photo")
        (data / "keepsakes" / "photo.jpg").chmod(0o600)
    finally:
        os.umask(old)
    cli(data, "backup", "create", str(tmp_path / "elsewhere" / "mine.zip"))
    assert mode(tmp_path / "elsewhere" / "mine.zip") == 0o600
    cli(data, "backup", "restore", str(tmp_path / "elsewhere" / "mine.zip"))
    assert (data / "keepsakes" / "photo.jpg").read_bytes() == b"\xff\xd8 a photo"
    cli(data, "export", str(data / "save.json"))
    assert loose(data) == []


def test_a_folder_left_open_by_an_older_version_is_tightened_at_open(tmp_path, caplog):
    data = tmp_path / "data"
    fill(data)
    for path in [data, *data.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    outside = tmp_path / "mine.txt"  # a link to a file of the user's elsewhere: not touched
    outside.write_text("shared on purpose")
    outside.chmod(0o644)
    (data / "link.txt").symlink_to(outside)
    with caplog.at_level(logging.INFO, logger="companion_desktop.storage.private"):
        Database.open(data).close()
    assert loose(data) == []
    assert mode(outside) == 0o644
    assert any("private to you" in r.getMessage() for r in caplog.records)


def test_tightening_takes_nothing_from_the_owner(tmp_path):
    """A read-only folder stays read-only: only the group's and others' bits go."""
    data = tmp_path / "data"
    fill(data)
    (data / "keepsakes" / "first.jpg").chmod(0o444)
    data.chmod(0o755)
    Database.open(data).close()
    assert mode(data / "keepsakes" / "first.jpg") == 0o400
