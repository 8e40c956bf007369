"""What a restored database brings over, and what it may not: tool servers, key
addresses and her avatar's file (``storage.restore_trust``)."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path

from companion_desktop.storage.backup import create_backup
from companion_desktop.storage.backup_restore import restore_backup
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    AvatarSettings,
    LlmSettings,
    McpServerEntry,
    McpSettings,
    load_settings,
    save_settings,
)
from tests.storage.test_backup import NOW, fill


def settle(data_dir: Path, *sections) -> None:  # noqa: ANN002 - settings sections
    with Database.open(data_dir) as db, db.session() as session:
        for section in sections:
            save_settings(session, section)


def loaded(data_dir: Path, model):  # noqa: ANN001, ANN201
    with Database.open(data_dir) as db, db.read_session() as session:
        return load_settings(session, model)


def test_tool_servers_come_back_off_unless_the_same_one_is_on_here(tmp_path):
    same = McpServerEntry(name="notes", command="notes-server", args=["--quiet"])
    stranger, home = tmp_path / "stranger", tmp_path / "home"
    settle(stranger, McpSettings(servers=[
        same, McpServerEntry(name="helper", command="sh", args=["-c", "id > /tmp/x"]),
        same.model_copy(update={"name": "notes2", "args": ["--loud"]}),
        McpServerEntry(name="web", transport="http", url="http://127.0.0.1:9/mcp", enabled=False),
    ]))
    settle(home, McpSettings(servers=[same]))
    archive = create_backup(stranger, tmp_path / "b.zip", now=NOW).path
    done = restore_backup(home, archive, now=NOW)
    servers = {s.name: s for s in loaded(home, McpSettings).servers}
    assert (servers["notes"].enabled, servers["notes"].restored_off) == (True, False)
    assert (servers["helper"].enabled, servers["helper"].restored_off) == (False, True)
    assert (servers["notes2"].enabled, servers["notes2"].restored_off) == (False, True)
    assert (servers["web"].enabled, servers["web"].restored_off) == (False, False)  # was off
    assert [(s.name, s.what) for s in done.review.servers] == [
        ("helper", "sh -c id > /tmp/x"), ("notes2", "notes-server --loud")]


def test_a_server_turned_off_by_a_restore_stays_off_through_another(tmp_path):
    """Restoring twice does not launder a server: one still off here stays off."""
    stranger, home = tmp_path / "stranger", tmp_path / "home"
    settle(stranger, McpSettings(servers=[McpServerEntry(name="helper", command="sh")]))
    archive = create_backup(stranger, tmp_path / "b.zip", now=NOW).path
    restore_backup(home, archive, now=NOW)
    again = create_backup(home, tmp_path / "again.zip", now=NOW).path
    restore_backup(home, again, now=NOW)
    (server,) = loaded(home, McpSettings).servers
    assert (server.enabled, server.restored_off) == (False, True)


def test_an_address_waiting_here_still_waits_after_restoring_the_same(tmp_path):
    stranger, home = tmp_path / "stranger", tmp_path / "home"
    settle(stranger, LlmSettings(provider="openai-compatible", base_url="http://10.0.0.9/v1",
                                 model="m"))
    archive = create_backup(stranger, tmp_path / "b.zip", now=NOW).path
    restore_backup(home, archive, now=NOW)
    assert loaded(home, LlmSettings).unconfirmed_url == "http://10.0.0.9/v1"
    mine = create_backup(home, tmp_path / "mine.zip", now=NOW).path
    restore_backup(home, mine, now=NOW)  # the same address, still never confirmed
    assert loaded(home, LlmSettings).unconfirmed_url == "http://10.0.0.9/v1"


def test_her_avatar_never_points_at_a_file_the_archive_does_not_hold(tmp_path):
    secret = tmp_path / "id_ed25519"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----")
    stranger, home = tmp_path / "stranger", tmp_path / "home"
    fill(stranger)
    settle(stranger, AvatarSettings(model_path=str(secret)))
    archive = create_backup(stranger, tmp_path / "b.zip", now=NOW).path
    with zipfile.ZipFile(archive) as zipped:
        assert not any(n.startswith("models/") for n in zipped.namelist())
    # an archive made elsewhere whose settings name a file here, and no model
    conn = sqlite3.connect(stranger / "companion.sqlite3")
    conn.execute("UPDATE settings SET data = json_set(data, '$.model_path', ?) "
                 "WHERE section = 'avatar'", (str(secret),))
    conn.commit()
    conn.close()
    archive = create_backup(stranger, tmp_path / "b2.zip", now=NOW).path
    restore_backup(home, archive, now=NOW)
    assert loaded(home, AvatarSettings).model_path is None  # the built-in avatar
    later = create_backup(home, tmp_path / "later.zip", now=NOW).path
    with zipfile.ZipFile(later) as zipped:
        assert not any(n.startswith("models/") for n in zipped.namelist())


def test_the_manifest_names_her_model_without_the_folder_it_came_from(tmp_path):
    model = tmp_path / "home-of-alice" / "her.vrm"
    model.parent.mkdir()
    model.write_bytes(b"glTF" + bytes(60))
    data = tmp_path / "data"
    fill(data)
    settle(data, AvatarSettings(model_path=str(model)))
    made = create_backup(data, tmp_path / "b.zip", now=NOW).path
    with zipfile.ZipFile(made) as zipped:
        manifest = json.loads(zipped.read("manifest.json"))
    assert manifest["avatar_model"] == "models/her.vrm"
    assert "home-of-alice" not in json.dumps(manifest)
