"""Backups over real data folders: what goes in, what a restore refuses, crash recovery,
automatic backups and their pruning."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from companion_desktop.storage import backup, backup_restore, migrate
from companion_desktop.storage import repository as repo
from companion_desktop.storage.backup import BackupError, create_backup, list_backups
from companion_desktop.storage.backup_restore import DatabaseInUseError, restore_backup
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import AvatarSettings, save_settings

NOW = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc)


def fill(data_dir: Path, words: str = "first") -> None:
    db = Database.open(data_dir)
    try:
        with db.session() as session:
            repo.add_fact(session, f"User said {words}.", "user", NOW)
    finally:
        db.close()
    (data_dir / "keepsakes").mkdir(exist_ok=True)
    (data_dir / "keepsakes" / f"{words}.jpg").write_bytes(words.encode() * 100)
    (data_dir / "animations").mkdir(exist_ok=True)
    (data_dir / "animations" / "wave.vrma").write_bytes(b"clip" * 50)


def facts(data_dir: Path) -> list[str]:
    conn = sqlite3.connect(data_dir / "companion.sqlite3")
    try:
        return [row[0] for row in conn.execute("SELECT content FROM facts ORDER BY id")]
    finally:
        conn.close()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file outside backups/ with its bytes (the database by its rows)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        if path.is_file() and not relative.startswith("backups/"):
            found[relative] = path.read_bytes() if path.suffix != ".sqlite3" else repr(
                facts(folder)).encode()
    return found


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    fill(folder)
    return folder


def test_the_archive_holds_everything_with_checksums_and_nothing_else(data_dir, tmp_path):
    (data_dir / "notes.txt").write_text("not hers")  # stray files stay out
    (data_dir / ".env").write_text("COMPANION_API_KEY=sk-secret")
    model = tmp_path / "elsewhere" / "her.vrm"
    model.parent.mkdir()
    model.write_bytes(b"glTF" * 64)
    db = Database.open(data_dir)
    with db.session() as session:
        save_settings(session, AvatarSettings(model_path=str(model)))
        repo.add_fact(session, "User said second.", "user", NOW)  # still in the WAL
    made = create_backup(data_dir, tmp_path / "out" / "b.zip", now=NOW)  # while it is open
    db.close()
    with zipfile.ZipFile(made.path) as archive:
        names = sorted(archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
        for entry in manifest["files"]:
            data = archive.read(entry["path"])
            assert len(data) == entry["size"]
            assert hashlib.sha256(data).hexdigest() == entry["sha256"]
        archive.extract("companion.sqlite3", tmp_path / "x")
    assert names == ["animations/wave.vrma", "companion.sqlite3", "keepsakes/first.jpg",
                     "manifest.json", "models/her.vrm"]
    assert manifest["schema_revision"] == [migrate.head_revision()]
    assert manifest["app_version"] and manifest["reason"] == "manual"
    assert facts(tmp_path / "x") == ["User said first.", "User said second."]
    conn = sqlite3.connect(tmp_path / "x" / "companion.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
    assert b"sk-secret" not in made.path.read_bytes()


def test_restore_puts_back_exactly_what_was_saved(data_dir, tmp_path):
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    before = tree(data_dir)
    shutil.rmtree(data_dir / "animations")
    fill(data_dir, "later")  # new fact, new photo
    (data_dir / "models").mkdir()
    (data_dir / "models" / "other.vrm").write_bytes(b"x")
    done = restore_backup(data_dir, made.path, now=NOW)
    assert tree(data_dir) == before
    assert not list(data_dir.glob(".restore-*"))
    assert done.previous is not None and done.previous.reason == "before restore"
    db = Database.open(data_dir)  # and it opens
    db.close()


def test_restore_points_her_model_at_the_restored_copy(data_dir, tmp_path):
    model = tmp_path / "her.vrm"
    model.write_bytes(b"glTF" * 64)
    db = Database.open(data_dir)
    with db.session() as session:
        save_settings(session, AvatarSettings(model_path=str(model)))
    db.close()
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    model.unlink()
    restore_backup(data_dir, made.path, now=NOW)
    copy = data_dir / "models" / "her.vrm"
    assert copy.read_bytes() == b"glTF" * 64
    conn = sqlite3.connect(data_dir / "companion.sqlite3")
    (data,) = conn.execute("SELECT data FROM settings WHERE section = 'avatar'").fetchone()
    conn.close()
    assert json.loads(data)["model_path"] == str(copy.resolve())


def rewrite(archive: Path, target: Path, change) -> Path:  # noqa: ANN001
    """A copy of ``archive`` with ``change(name, data) -> data | None`` applied per member."""
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(target, "w") as dst:
        for name in src.namelist():
            data = change(name, src.read(name))
            if data is not None:
                dst.writestr(name, data)
    return target


def bump_manifest(**changes):  # noqa: ANN003, ANN201
    def change(name, data):  # noqa: ANN001, ANN202
        if name != "manifest.json":
            return data
        manifest = json.loads(data)
        manifest.update(changes)
        return json.dumps(manifest)
    return change


def _flip(name, data):  # noqa: ANN001, ANN202
    return data if name != "keepsakes/first.jpg" else b"X" + data[1:]


def _size_as_text(name, data):  # noqa: ANN001, ANN202
    if name != "manifest.json":
        return data
    manifest = json.loads(data)
    manifest["files"][0]["size"] = "many"
    return json.dumps(manifest)


def _no_manifest(name, data):  # noqa: ANN001, ANN202
    return None if name == "manifest.json" else data


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("not a zip", "is damaged or not a backup"),
        ("truncated", "is damaged"),
        (_flip, "keepsakes/first.jpg does not match its checksum"),
        (_no_manifest, "not a companion-desktop backup (no manifest.json)"),
        (bump_manifest(schema_revision=["9999_future"]), "made by a newer version"),
        (bump_manifest(format="something-else"), "not a companion-desktop backup"),
        (bump_manifest(format_version=2), "newer version of companion-desktop (backup format 2"),
        (bump_manifest(format_version="1"), "no usable format version"),
        (_size_as_text, "companion.sqlite3 does not match its checksum"),
        (bump_manifest(files=[{"path": "../evil", "size": 1, "sha256": "0"}]), "unusable path"),
        ("extra file", "which its manifest does not list"),
        ("newer database", "made by a newer version"),
        ("damaged database", "its database is damaged"),
    ],
)
def test_a_damaged_or_newer_archive_is_refused_and_nothing_changes(data_dir, tmp_path,
                                                                   damage, message):
    good = create_backup(data_dir, tmp_path / "good.zip", now=NOW).path
    bad = tmp_path / "bad.zip"
    if damage == "not a zip":
        bad.write_bytes(b"hello")
    elif damage == "truncated":
        bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif damage == "extra file":
        shutil.copy(good, bad)
        with zipfile.ZipFile(bad, "a") as archive:
            archive.writestr("keepsakes/sneaky.jpg", b"x")
    elif damage in ("newer database", "damaged database"):
        work = tmp_path / "w"
        with zipfile.ZipFile(good) as archive:
            archive.extractall(work)
        db_file = work / "companion.sqlite3"
        if damage == "newer database":
            conn = sqlite3.connect(db_file)
            conn.execute("UPDATE alembic_version SET version_num = '9999_future'")
            conn.commit()
            conn.close()
        else:
            raw = bytearray(db_file.read_bytes())
            raw[4096:8192] = b"\xff" * 4096  # a page of garbage
            db_file.write_bytes(bytes(raw))
        manifest = json.loads((work / "manifest.json").read_text())
        data = db_file.read_bytes()
        manifest["files"][0] = {"path": "companion.sqlite3", "size": len(data),
                                "sha256": hashlib.sha256(data).hexdigest()}
        (work / "manifest.json").write_text(json.dumps(manifest))
        with zipfile.ZipFile(bad, "w") as archive:
            for path in sorted(work.rglob("*")):
                if path.is_file():
                    archive.write(path, path.relative_to(work).as_posix())
    else:
        rewrite(good, bad, damage)
    before = tree(data_dir)
    backups_before = sorted(p.name for p in (data_dir / "backups").glob("*")) if (
        data_dir / "backups").exists() else []
    with pytest.raises(BackupError) as caught:
        restore_backup(data_dir, bad, now=NOW)
    assert message in str(caught.value)
    assert tree(data_dir) == before
    assert not list(data_dir.glob(".restore-*"))
    after = sorted(p.name for p in (data_dir / "backups").glob("*")) if (
        data_dir / "backups").exists() else []
    assert after == backups_before  # refused before anything, even the safety backup


def test_a_member_longer_than_its_manifest_says_is_not_unpacked_whole(data_dir, tmp_path):
    """A member that inflates past the size its manifest gives is cut off there and refused,
    so a small archive cannot fill the disk while it is checked."""
    good = create_backup(data_dir, tmp_path / "good.zip", now=NOW).path
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(bad, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            inflated = name == "keepsakes/first.jpg"
            dst.writestr(name, b"\0" * (8 << 20) if inflated else src.read(name))
    assert bad.stat().st_size < 1 << 20  # zeros deflate to almost nothing
    seen = []
    with pytest.raises(BackupError, match="first.jpg does not match its checksum"):
        restore_backup(data_dir, bad, now=NOW, progress=lambda *moved: seen.append(moved))
    assert seen and max(done for done, _ in seen) <= seen[-1][1]
    assert not list(data_dir.glob(".restore-*"))


def test_restore_refuses_while_the_database_is_open(data_dir, tmp_path):
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    fill(data_dir, "later")
    db = Database.open(data_dir)
    try:
        with pytest.raises(DatabaseInUseError, match="is running on"):
            restore_backup(data_dir, made.path, now=NOW)
        assert facts(data_dir) == ["User said first.", "User said later."]
    finally:
        db.close()


def test_a_pending_restore_is_swapped_in_at_the_next_open(data_dir, tmp_path):
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    fill(data_dir, "later")
    db = Database.open(data_dir)  # the running app stages it
    restore_backup(data_dir, made.path, now=NOW, pending=True)
    assert backup_restore.pending_restore(data_dir) is not None
    other = Database.open(data_dir)  # a second program while the app runs: not yet
    other.close()
    assert "User said later." in facts(data_dir)
    db.close()
    Database.open(data_dir).close()  # the next start
    assert facts(data_dir) == ["User said first."]
    assert not (data_dir / "keepsakes" / "later.jpg").exists()
    assert backup_restore.pending_restore(data_dir) is None


def test_the_last_restore_chosen_in_the_app_wins(data_dir, tmp_path):
    first = create_backup(data_dir, tmp_path / "a.zip", now=NOW)
    fill(data_dir, "later")
    second = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    db = Database.open(data_dir)
    for archive in (second, first, second):
        restore_backup(data_dir, archive.path, now=NOW, pending=True)
    assert len(list(data_dir.glob(".restore-*"))) == 1
    db.close()
    Database.open(data_dir).close()
    assert facts(data_dir) == ["User said first.", "User said later."]


def test_a_restore_cut_off_mid_swap_is_finished_at_the_next_open(data_dir, tmp_path, monkeypatch):
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    fill(data_dir, "later")
    real = backup_restore.os.replace
    moves = []

    def dying(src, dst):  # noqa: ANN001, ANN202
        if len(moves) == 3:
            raise KeyboardInterrupt  # the process dies after moving the database aside and in
        moves.append((src, dst))
        return real(src, dst)

    monkeypatch.setattr(backup_restore.os, "replace", dying)
    with pytest.raises(KeyboardInterrupt):
        restore_backup(data_dir, made.path, now=NOW)
    monkeypatch.setattr(backup_restore.os, "replace", real)
    assert list(data_dir.glob(".restore-*"))
    Database.open(data_dir).close()
    assert facts(data_dir) == ["User said first."]
    assert sorted(p.name for p in (data_dir / "keepsakes").iterdir()) == ["first.jpg"]
    assert not list(data_dir.glob(".restore-*"))


def test_a_restore_that_cannot_move_a_file_says_so_and_is_finished_later(data_dir, tmp_path,
                                                                         monkeypatch):
    made = create_backup(data_dir, tmp_path / "b.zip", now=NOW)
    fill(data_dir, "later")
    real = backup_restore.os.replace
    calls = []

    def refusing(src, dst):  # noqa: ANN001, ANN202
        calls.append(src)
        if len(calls) == 2:
            raise PermissionError(13, "Permission denied")
        return real(src, dst)

    monkeypatch.setattr(backup_restore.os, "replace", refusing)
    with pytest.raises(BackupError, match="stopped midway .Permission denied.; it is finished"):
        restore_backup(data_dir, made.path, now=NOW)
    monkeypatch.setattr(backup_restore.os, "replace", real)
    Database.open(data_dir).close()
    assert facts(data_dir) == ["User said first."]
    assert not list(data_dir.glob(".restore-*"))


def test_a_half_staged_restore_is_dropped(data_dir):
    stage = data_dir / ".restore-0123456789ab"  # as a restore names it, with its marker
    (stage / "new").mkdir(parents=True)
    (stage / "STAGE").touch()
    (stage / "new" / "companion.sqlite3").write_bytes(b"half")
    mine = data_dir / ".restore-abc" / "new"  # not one of ours: left alone
    mine.mkdir(parents=True)
    (mine / "companion.sqlite3").write_bytes(b"the user's")
    Database.open(data_dir).close()
    assert facts(data_dir) == ["User said first."] and not stage.exists()
    assert (mine / "companion.sqlite3").read_bytes() == b"the user's"


def test_automatic_backups_keep_the_last_seven(data_dir):
    for day in range(10):
        backup.auto_backup(data_dir, backup.REASON_REPLACE, NOW + timedelta(hours=day))
    create_backup(data_dir, now=NOW - timedelta(days=1))  # made on request: kept
    found = list_backups(data_dir)
    automatic = [b for b in found if b.automatic]
    assert len(automatic) == 7
    assert automatic[0].created_at == NOW + timedelta(hours=9)
    assert automatic[-1].created_at == NOW + timedelta(hours=3)
    assert [b.reason for b in found if not b.automatic] == ["manual"]
    assert backup.space_used(data_dir) == sum(b.size for b in found)


def test_daily_backup_at_most_once_a_day(data_dir):
    local = timezone(timedelta(hours=2))
    morning = datetime(2024, 5, 1, 8, 0, tzinfo=local)
    assert backup.daily_backup(data_dir, morning) is not None
    assert backup.daily_backup(data_dir, morning + timedelta(hours=10)) is None
    assert backup.daily_backup(data_dir, morning + timedelta(days=1)) is not None
    assert [b.reason for b in list_backups(data_dir)] == ["daily", "daily"]


def test_the_daily_backup_at_start_runs_on_its_own_thread(data_dir):
    thread = backup.start_daily_backup(data_dir)
    thread.join(30)
    assert [b.reason for b in list_backups(data_dir)] == ["daily"]
    backup.start_daily_backup(data_dir).join(30)  # the same day: none more
    assert len(list_backups(data_dir)) == 1


def test_no_backup_of_a_folder_without_data(tmp_path):
    assert backup.daily_backup(tmp_path / "empty", NOW) is None
    with pytest.raises(BackupError, match="nothing to back up"):
        create_backup(tmp_path / "empty", now=NOW)
