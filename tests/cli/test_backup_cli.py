"""``companion-desktop backup`` run as a user runs it, over real data folders."""

from __future__ import annotations

import json
import re
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from tests.cli.test_cli import cli, web_save, write
from tests.storage.test_backup import facts


def add_fact(data_dir: Path, text: str) -> None:
    db = Database.open(data_dir)
    try:
        with db.session() as session:
            repo.add_fact(session, text, "user", datetime(2026, 3, 10, tzinfo=timezone.utc))
    finally:
        db.close()


def test_create_list_restore(tmp_path):
    data = tmp_path / "data"
    add_fact(data, "User has a cat named Miso.")
    (data / "keepsakes").mkdir()
    (data / "keepsakes" / "photo.jpg").write_bytes(b"\xff\xd8photo")
    out = cli("--now", "2026-03-10T12:00", "backup", "create", data_dir=data).stdout
    assert "Backed up" in out and "backups" in out
    target = tmp_path / "elsewhere" / "mine.zip"
    cli("backup", "create", str(target), data_dir=data)
    with zipfile.ZipFile(target) as archive:
        assert sorted(archive.namelist()) == ["companion.sqlite3", "keepsakes/photo.jpg",
                                              "manifest.json"]
    listing = cli("backup", "list", data_dir=data).stdout.splitlines()
    assert "manual" in listing[0] and listing[-1].startswith("1 backup, ")
    rows = json.loads(cli("backup", "list", "--json", data_dir=data).stdout)
    assert [r["reason"] for r in rows] == ["manual"] and rows[0]["size"] > 0

    add_fact(data, "User moved to Lisbon.")
    (data / "keepsakes" / "photo.jpg").unlink()
    out = cli("backup", "restore", str(target), data_dir=data).stdout
    assert "Restored" in out and "before" in out
    assert re.search(r"\(made \d{4}-\d\d-\d\d \d\d:\d\d\) into", out), out  # as `list` shows it
    assert facts(data) == ["User has a cat named Miso."]
    assert (data / "keepsakes" / "photo.jpg").read_bytes() == b"\xff\xd8photo"
    reasons = [r["reason"]
               for r in json.loads(cli("backup", "list", "--json", data_dir=data).stdout)]
    assert sorted(reasons) == ["before restore", "manual"]


def test_restore_refuses_a_damaged_archive_and_changes_nothing(tmp_path):
    data = tmp_path / "data"
    add_fact(data, "User has a cat named Miso.")
    target = tmp_path / "b.zip"
    cli("backup", "create", str(target), data_dir=data)
    raw = bytearray(target.read_bytes())
    raw[60:70] = b"0123456789"  # inside the database's compressed bytes
    target.write_bytes(bytes(raw))
    add_fact(data, "User moved to Lisbon.")
    proc = cli("backup", "restore", str(target), data_dir=data, ok=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("companion-desktop: ") and "damaged" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert facts(data) == ["User has a cat named Miso.", "User moved to Lisbon."]
    missing = cli("backup", "restore", str(tmp_path / "nope.zip"), data_dir=data, ok=False)
    assert missing.returncode == 1 and "Cannot read" in missing.stderr


def test_restore_refuses_while_the_app_has_the_folder_open(tmp_path):
    data = tmp_path / "data"
    add_fact(data, "User has a cat named Miso.")
    target = tmp_path / "b.zip"
    cli("backup", "create", str(target), data_dir=data)
    add_fact(data, "User moved to Lisbon.")
    app = Database.open(data)  # what the running app holds
    try:
        proc = cli("backup", "restore", str(target), data_dir=data, ok=False)
    finally:
        app.close()
    assert proc.returncode == 1 and "is running on" in proc.stderr
    assert facts(data) == ["User has a cat named Miso.", "User moved to Lisbon."]


def test_a_replace_import_is_backed_up_first(tmp_path):
    data = tmp_path / "data"
    add_fact(data, "User has a cat named Miso.")
    save = write(tmp_path / "save.json", web_save())
    said = cli("import", str(save), "--replace", data_dir=data).stdout
    assert "ImportSummary" not in said and "Imported (replace):" in said
    assert "What was here before is in a backup." in said
    rows = json.loads(cli("backup", "list", "--json", data_dir=data).stdout)
    assert [r["reason"] for r in rows] == ["before replace import"]
    cli("import", str(save), "--merge", data_dir=data)  # a merge deletes nothing: no backup
    assert len(json.loads(cli("backup", "list", "--json", data_dir=data).stdout)) == 1
    cli("backup", "restore", rows[0]["path"], data_dir=data)
    assert facts(data) == ["User has a cat named Miso."]


def test_nothing_to_back_up(tmp_path):
    proc = cli("backup", "create", data_dir=tmp_path / "empty", ok=False)
    assert proc.returncode == 1 and "nothing to back up" in proc.stderr
    out = cli("backup", "list", data_dir=tmp_path / "empty").stdout
    assert out.strip().startswith("0 backups, 0 B")


def test_no_backup_no_replace(tmp_path):
    """A replace whose backup cannot be written does not run: a one-line error, data kept."""
    data = tmp_path / "data"
    add_fact(data, "User has a cat named Miso.")
    (data / "backups").write_text("a file where the backups folder goes")
    save = write(tmp_path / "save.json", web_save())
    proc = cli("import", str(save), "--replace", data_dir=data, ok=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("companion-desktop: Could not write the backup")
    assert "Nothing was imported" in proc.stderr
    assert facts(data) == ["User has a cat named Miso."]
