"""``companion-desktop reminders [--json]``: id, text, trigger time (local), status."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

from companion_desktop import cli
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database

NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)
KEYS = {"id", "text", "trigger_at", "status"}


def seed(data_dir) -> None:
    with Database.open(data_dir) as db, db.session() as session:
        a = store.add_reminder(session, NOW - timedelta(minutes=5), "stretch", NOW, None)
        b = store.add_reminder(session, NOW - timedelta(minutes=2), "call mom", NOW, None)
        store.add_reminder(session, NOW + timedelta(hours=1), "lunch", NOW, None)
        store.mark_executed(session, a.id, NOW)
        store.mark_executed(session, b.id, NOW)
        store.dismiss(session, b.id)


def test_json_lists_every_reminder_with_status(tmp_path, capsys):
    data_dir = tmp_path / "data"
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "reminders", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert all(set(item) == KEYS for item in listed)
    assert [(r["text"], r["status"]) for r in listed] == [
        ("stretch", "fired"), ("call mom", "dismissed"), ("lunch", "pending")]
    when = datetime.fromisoformat(listed[2]["trigger_at"])
    assert when == NOW + timedelta(hours=1)
    assert when.utcoffset() == (NOW + timedelta(hours=1)).astimezone().utcoffset()


def test_text_table_and_empty(tmp_path, capsys):
    data_dir = tmp_path / "data"
    assert cli.main(["--data-dir", str(data_dir), "reminders"]) == 0
    assert "No reminders." in capsys.readouterr().out
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "reminders"]) == 0
    out = capsys.readouterr().out
    assert "stretch" in out and "dismissed" in out and "pending" in out
