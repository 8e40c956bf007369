"""``companion-desktop animations [--json]``: built-ins synced first, then every entry."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from companion_desktop import cli
from companion_desktop.avatar.animation.library import default_folder
from companion_desktop.pipeline import animations as anim
from companion_desktop.storage import animations as store
from companion_desktop.storage.db import Database
from tests.pipeline.test_animation_library import BUILTINS, make_library

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}
NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)
KEYS = {"id", "name", "kind", "enabled", "in_idle_pool"}


def seed_upload(data_dir) -> None:
    with Database.open(data_dir) as db, db.session() as session:
        store.add_upload(session, "upload_spin_1", "Spin", "spins around",
                         "animations/upload_spin_1.vrma", NOW, enabled=False, in_idle_pool=True)
    (data_dir / "animations").mkdir(exist_ok=True)
    (data_dir / "animations" / "upload_spin_1.vrma").write_bytes(b"data")


def test_json_lists_builtins_then_uploads(tmp_path, monkeypatch, capsys):
    data_dir = tmp_path / "data"
    seed_upload(data_dir)
    monkeypatch.setattr(anim, "default_library", lambda: make_library(tmp_path / "builtin"))
    assert cli.main(["--data-dir", str(data_dir), "animations", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert all(KEYS <= set(item) for item in listed)
    assert [item["id"] for item in listed] == [
        "idle_breathe", "idle_sway", "wave", "nod", "upload_spin_1"]
    by_id = {item["id"]: item for item in listed}
    assert by_id["wave"] == {"id": "wave", "name": "Wave", "kind": "emote", "enabled": True,
                             "in_idle_pool": False, "description": "waves hello"}
    assert by_id["idle_breathe"]["in_idle_pool"] is True
    assert by_id["upload_spin_1"]["kind"] == "upload"
    assert by_id["upload_spin_1"]["enabled"] is False
    assert by_id["upload_spin_1"]["in_idle_pool"] is True
    assert not {b["id"] for b in BUILTINS if b["kind"] in ("talking", "thinking")} & set(by_id)


def test_the_sync_keeps_edits_made_in_settings(tmp_path, monkeypatch, capsys):
    data_dir = tmp_path / "data"
    monkeypatch.setattr(anim, "default_library", lambda: make_library(tmp_path / "builtin"))
    assert cli.main(["--data-dir", str(data_dir), "animations", "--json"]) == 0
    capsys.readouterr()
    with Database.open(data_dir) as db, db.session() as session:
        store.update_entry(session, "wave", name="Big wave", enabled=False)
    assert cli.main(["--data-dir", str(data_dir), "animations", "--json"]) == 0
    wave = next(i for i in json.loads(capsys.readouterr().out) if i["id"] == "wave")
    assert (wave["name"], wave["enabled"]) == ("Big wave", False)


def test_text_output(tmp_path, monkeypatch, capsys):
    data_dir = tmp_path / "data"
    seed_upload(data_dir)
    monkeypatch.setattr(anim, "default_library", lambda: make_library(tmp_path / "builtin"))
    assert cli.main(["--data-dir", str(data_dir), "animations"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "companion can use" in lines[0] and "idle pool" in lines[0]
    wave = next(line for line in lines if line.startswith("wave "))
    assert "Wave" in wave and "emote" in wave and "yes" in wave
    assert any(line.startswith("upload_spin_1") and "Spin" in line for line in lines)
    assert lines[-1] == "Idle cycle: idle_breathe, idle_sway, upload_spin_1"


def test_as_a_user_runs_it(tmp_path):
    """The real command in a process of its own, with the shipped manifest (if any)."""
    data_dir = tmp_path / "data"
    seed_upload(data_dir)
    proc = subprocess.run(
        [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir), "animations",
         "--json"], capture_output=True, text=True, env=ENV, timeout=120,
        stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    listed = json.loads(proc.stdout)
    assert all(KEYS <= set(item) for item in listed)
    assert listed[-1]["id"] == "upload_spin_1"
    if (default_folder() / "library.json").is_file():
        kinds = [item["kind"] for item in listed]
        assert kinds.count("emote") == 7 and kinds.count("idle") == 5


def test_help_lists_the_command():
    with pytest.raises(SystemExit):
        cli.main(["animations", "--help"])
