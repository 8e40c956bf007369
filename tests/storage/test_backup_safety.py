"""Backups that lose nothing of the user's: the folders they clean up, the archives they
prune, what a restore may unpack, and archives whose dates are no dates."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from companion_desktop.storage import backup, backup_limits
from companion_desktop.storage.backup import BackupError, create_backup, list_backups
from companion_desktop.storage.backup_restore import restore_backup
from companion_desktop.storage.backup_work import MARKER, PREFIX, drop_leftovers
from companion_desktop.storage.locks import try_lock
from tests.storage.test_backup import NOW, facts, fill, tree

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    fill(folder)
    return folder


# ------------------------------------------------------------------ what is cleaned up
def test_a_backup_next_to_the_users_own_backup_folders_leaves_them(data_dir, tmp_path):
    target = tmp_path / "target"
    mine = target / ".backup-2019-photos"
    mine.mkdir(parents=True)
    (mine / "beach.jpg").write_bytes(b"summer")
    ours_too = target / ".backup-1-2"  # the old code's pattern, with a dead process id
    ours_too.mkdir()
    (ours_too / "notes.txt").write_text("mine")
    inside = data_dir / ".backup-work-photos"  # near the work folders' name, not one
    inside.mkdir()
    create_backup(data_dir, target / "mine.zip", now=NOW)
    assert (mine / "beach.jpg").read_bytes() == b"summer"
    assert (ours_too / "notes.txt").read_text() == "mine" and inside.is_dir()
    assert sorted(p.name for p in target.iterdir()) == [".backup-1-2", ".backup-2019-photos",
                                                        "mine.zip"]


SLOW_BACKUP = """
import sys, time
from pathlib import Path
from companion_desktop.storage.backup import create_backup
def slow(done, total):
    Path(sys.argv[3]).write_text("started")
    time.sleep(30)
create_backup(Path(sys.argv[1]), Path(sys.argv[2]), progress=slow)
"""


def test_the_leftovers_of_a_killed_backup_are_cleaned_up_and_nothing_else(data_dir, tmp_path):
    target = tmp_path / "target" / "mine.zip"
    target.parent.mkdir()
    (target.parent / ".backup-2019-photos").mkdir()
    started = tmp_path / "started"
    proc = subprocess.Popen([sys.executable, "-c", SLOW_BACKUP, str(data_dir), str(target),
                             str(started)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(600):
            if started.exists():
                break
            time.sleep(0.05)
        assert started.exists(), "the backup did not start"
        work = list(data_dir.glob(f"{PREFIX}*"))
        partial = list(target.parent.glob(".companion-backup-*.partial"))
        assert len(work) == 1 and len(partial) == 1
        assert drop_leftovers(data_dir) == [] and work[0].is_dir()  # still running: kept
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert work[0].is_dir() and partial[0].is_file() and not target.exists()
    made = create_backup(data_dir, now=NOW)
    assert made.path.is_file()
    assert not work[0].exists() and not partial[0].exists()
    assert (target.parent / ".backup-2019-photos").is_dir()


def test_a_work_folder_whose_backup_runs_is_not_removed(data_dir):
    folder = data_dir / f"{PREFIX}0123456789ab"
    folder.mkdir()
    lock = try_lock(folder / MARKER)
    lock.write(json.dumps({"kind": "companion-desktop-backup-work", "partial": None}).encode())
    lock.flush()
    try:
        create_backup(data_dir, now=NOW)
        assert folder.is_dir()
    finally:
        lock.close()
    create_backup(data_dir, now=NOW)
    assert not folder.exists()


# ------------------------------------------------------------------ pruning
def _fake_archive(folder: Path, name: str, created: datetime, **fields) -> Path:
    """An archive as an older version wrote it: automatic, dated ``created``."""
    path = folder / name
    manifest = {"format": "companion-desktop-backup", "format_version": 1, "files": [],
                "created_at": created.isoformat(), "reason": "daily", "automatic": True,
                **fields}
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
    return path


def test_backups_dated_in_the_future_do_not_outlive_new_ones(data_dir):
    folder = backup.backup_dir(data_dir)
    folder.mkdir()
    ahead = [_fake_archive(folder, f"companion-2030010{i}-000000-daily.zip",
                           datetime(2030, 1, 1 + i, tzinfo=timezone.utc)) for i in range(7)]
    made = backup.auto_backup(data_dir, backup.REASON_RESTORE, NOW)
    assert made.path.is_file(), "the backup just written was pruned"
    for day in range(1, 8):
        backup.auto_backup(data_dir, backup.REASON_DAILY, NOW + timedelta(days=day))
    left = list_backups(data_dir, NOW + timedelta(days=8))
    assert len(left) == 7 and not any(p.exists() for p in ahead)
    assert [b.sequence for b in left] == [8, 7, 6, 5, 4, 3, 2]


def test_the_newest_is_the_last_made_even_when_the_clock_went_back(data_dir):
    first = backup.auto_backup(data_dir, backup.REASON_DAILY,
                               datetime(2031, 5, 1, tzinfo=timezone.utc))
    second = backup.auto_backup(data_dir, backup.REASON_DAILY, NOW)  # the clock was put right
    assert [b.path for b in list_backups(data_dir)] == [second.path, first.path]
    for _ in range(7):
        backup.auto_backup(data_dir, backup.REASON_DAILY, NOW)
    assert not first.path.exists() and not second.path.exists()


def test_a_restore_names_a_before_restore_backup_that_exists(data_dir, tmp_path):
    folder = backup.backup_dir(data_dir)
    folder.mkdir()
    for i in range(7):
        _fake_archive(folder, f"companion-2030-{i}.zip",
                      datetime(2030, 1, 1 + i, tzinfo=timezone.utc))
    archive = create_backup(data_dir, tmp_path / "keep.zip", now=NOW).path
    done = restore_backup(data_dir, archive, now=NOW)
    assert done.previous is not None and done.previous.path.is_file()


# ------------------------------------------------------------------ size limits
def _bomb(data_dir: Path, tmp_path: Path, name: str, size: int,
          block: bytes = bytes(1 << 20)) -> Path:
    """A real backup with one member of ``size`` bytes added, ``block`` repeated (zeros by
    default: deflated, tiny)."""
    good = create_backup(data_dir, tmp_path / "good.zip", now=NOW).path
    bad = tmp_path / "bomb.zip"
    with zipfile.ZipFile(good) as source:
        manifest = json.loads(source.read("manifest.json"))
        members = [(i, source.read(i)) for i in source.infolist() if i.filename != "manifest.json"]
    digest = hashlib.sha256()
    with zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as out:
        for info, data in members:
            out.writestr(info, data)
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        with out.open(info, "w", force_zip64=True) as dst:
            for start in range(0, size, len(block)):
                piece = block[:min(len(block), size - start)]
                digest.update(piece)
                dst.write(piece)
        manifest["files"].append({"path": name, "size": size, "sha256": digest.hexdigest()})
        out.writestr("manifest.json", json.dumps(manifest))
    return bad


@pytest.mark.parametrize(("name", "size", "message"), [
    ("keepsakes/huge.jpg", 40 << 20, "more than the 32.0 MB such a file may be"),
    ("animations/zeros.vrma", 30 << 20, "would expand from"),
])
def test_an_archive_that_unpacks_past_its_limits_is_refused_with_nothing_changed(
        data_dir, tmp_path, name, size, message):
    bad = _bomb(data_dir, tmp_path, name, size)
    assert bad.stat().st_size < 1 << 20
    before = tree(data_dir)
    with pytest.raises(BackupError) as caught:
        restore_backup(data_dir, bad, now=NOW)
    assert message in str(caught.value)
    assert tree(data_dir) == before and not list(data_dir.glob(".restore-*"))
    assert not backup.backup_dir(data_dir).exists()  # refused before anything was written


def test_a_total_past_the_limit_is_refused(data_dir, tmp_path, monkeypatch):
    monkeypatch.setattr(backup_limits, "MAX_TOTAL_BYTES", 5 << 20)
    noise = random.Random(23).randbytes(1 << 20)  # does not compress: the ratio is fine
    bad = _bomb(data_dir, tmp_path, "keepsakes/big.jpg", 6 << 20, noise)
    with pytest.raises(BackupError, match=r"would unpack to 6\.\d MB, more than the 5\.0 MB"):
        restore_backup(data_dir, bad, now=NOW)
    assert facts(data_dir) == ["User said first."]


def test_no_room_on_the_disk_is_refused_before_unpacking(data_dir, tmp_path, monkeypatch):
    archive = create_backup(data_dir, tmp_path / "b.zip", now=NOW).path
    real = shutil.disk_usage

    def tiny(path):  # the disk as it would be with 1 MB free
        usage = real(path)
        return type(usage)(usage.total, usage.total - (1 << 20), 1 << 20)

    monkeypatch.setattr(backup_limits.shutil, "disk_usage", tiny)
    before = tree(data_dir)
    with pytest.raises(BackupError, match="not enough free space"):
        restore_backup(data_dir, archive, now=NOW)
    assert tree(data_dir) == before and not list(data_dir.glob(".restore-*"))


# ------------------------------------------------------------------ dates
@pytest.mark.parametrize("created", ["9999-12-31T23:59:59+00:00", "0001-01-01T00:00:00+00:00",
                                     "0001-01-01T00:00:00-05:00", "2026-13-40", None, 20260310])
def test_a_manifest_whose_date_is_no_date_is_damaged(data_dir, tmp_path, created):
    good = create_backup(data_dir, tmp_path / "good.zip", now=NOW).path
    folder = backup.backup_dir(data_dir)
    folder.mkdir()
    bad = folder / "companion-odd.zip"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "manifest.json":
                manifest = json.loads(data)
                manifest["created_at"] = created
                data = json.dumps(manifest).encode()
            out.writestr(info, data)
    with pytest.raises(BackupError, match="is not a real date"):
        restore_backup(data_dir, bad, now=NOW)
    found = list_backups(data_dir)
    assert len(found) == 1 and "not a real date" in found[0].problem
    backup.prune(data_dir, keep=0)
    assert bad.is_file()  # damaged archives are never pruned
