"""Quitting the real app (a subprocess) while a photo is prepared, a big avatar model
loads, the memory model re-embeds many facts, and she speaks a reply: each ends within
3 s with exit code 0 (no running thread destroyed), the database intact, nothing half
saved, and the next start on the same folder comes up."""

from __future__ import annotations

import json
import shutil
import sqlite3
import struct
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.keepsakes import KEEPSAKE_DIR
from companion_desktop.storage.paths import DB_FILENAME
from companion_desktop.storage.settings import AvatarSettings, VoiceSettings, save_settings
from tests.conftest import SHARED_ASSETS
from tests.ui.app_process import AppProcess, integrity
from tests.ui.scripted_provider import Script, ScriptedServer
from tests.ui.test_quit import prepare

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display"),
              pytest.mark.slow]
GODETTE = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"


def comes_up_again(data: Path, work: Path) -> None:
    """A new start on ``data`` shows her (nothing the quit left blocks it)."""
    assert integrity(data) == "ok"
    app = AppProcess(data, work)
    try:
        app.wait_shown()
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()


@pytest.fixture(scope="module")
def big_photo(tmp_path_factory) -> Path:  # noqa: ANN001
    """A 7000 x 7000 JPEG (49 megapixels, 1.5 MB): seconds to prepare."""
    from PIL import Image

    path = tmp_path_factory.mktemp("photo") / "big.jpg"
    ramp = Image.linear_gradient("L").resize((7000, 7000))
    flipped = ramp.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    Image.merge("RGB", (ramp, ramp.rotate(90), flipped)).save(path, quality=95)
    return path


@pytest.mark.parametrize("how", ["sigterm", "menu"])
def test_quit_while_a_photo_is_prepared(tmp_path, big_photo, how):
    data = tmp_path / "data"
    app = AppProcess(data, tmp_path / "run", quit_flag=True, photo=big_photo)
    try:
        app.wait_shown()
        app.wait_said("photo staged")
        time.sleep(0.3)  # decoding 49 megapixels is under way
        assert app.quit(how) < 3.0
    finally:
        app.kill()
    kept = data / KEEPSAKE_DIR
    assert not kept.exists() or not any(kept.iterdir())  # nothing was sent, nothing kept
    comes_up_again(data, tmp_path / "again")


def big_vrm(source: Path, out: Path, extra_nodes: int) -> Path:
    """``source`` (a .vrm) with ``extra_nodes`` more empty nodes: the same avatar, seconds
    longer to read."""
    data = source.read_bytes()
    magic, version, _ = struct.unpack_from("<III", data, 0)
    length, kind = struct.unpack_from("<II", data, 12)
    doc = json.loads(data[20:20 + length])
    doc["nodes"] += [{"name": f"extra {i}"} for i in range(extra_nodes)]
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    body = struct.pack("<II", len(text), kind) + text + data[20 + length:]
    out.write_bytes(struct.pack("<III", magic, version, 12 + len(body)) + body)
    return out


@pytest.mark.skipif(not GODETTE.exists(), reason="the shared VRM models are not here")
def test_quit_while_a_big_model_loads(tmp_path):
    model = big_vrm(GODETTE, tmp_path / "big.vrm", 19900)  # 0.65 s to read alone here
    data = tmp_path / "data"
    with Database.open(data) as db, db.session() as session:
        save_settings(session, AvatarSettings(model_path=str(model)))
    app = AppProcess(data, tmp_path / "run")
    try:
        app.wait_for(lambda: app.notes("model_loading"), 30, "her model being read")
        assert app.quit("sigterm") < 3.0  # at once: the read has just begun
    finally:
        app.kill()
    assert not app._noted(lambda n: n.get("pictures", 0) > 0)  # it quit before she showed
    assert integrity(data) == "ok"


FACTS = 1500


def vectors(data: Path) -> list[tuple[bytes | None, str | None]]:
    with sqlite3.connect(data / DB_FILENAME) as connection:
        return connection.execute("SELECT embedding, embedding_model FROM facts").fetchall()


def test_quit_while_facts_are_re_embedded(tmp_path):
    data = tmp_path / "data"
    now = datetime.now().astimezone()
    with Database.open(data) as db, db.session() as session:
        for i in range(FACTS):
            repo.add_fact(session, f"She once read book number {i} about tea and rivers.",
                          "user", now)
    app = AppProcess(data, tmp_path / "run")
    try:
        app.wait_shown()
        app.wait_for(lambda: any(model for _, model in vectors(data)), 30, "re-embedding")
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    rows = vectors(data)
    done = [(vector, model) for vector, model in rows if model is not None]
    assert 0 < len(done) < FACTS  # quit in the middle
    assert all(vector is not None and len(vector) == 384 * 4 for vector, _ in done)
    assert all(vector is None for vector, model in rows if model is None)  # none half
    comes_up_again(data, tmp_path / "again")


@pytest.mark.skipif(not shutil.which("espeak-ng"), reason="her offline voice is espeak-ng")
def test_quit_while_she_speaks(tmp_path):
    words = "Tea is lovely in the morning, and the river is calm today. " * 6
    with ScriptedServer() as server:
        server.default = Script(chunks=[words])
        data = tmp_path / "data"
        prepare(data, server)
        with Database.open(data) as db, db.session() as session:
            save_settings(session, VoiceSettings(enabled=True, backend="espeak"))
        app = AppProcess(data, tmp_path / "run", send="tell me about tea")
        try:
            app.wait_shown()
            app.wait_said("she speaks")
            time.sleep(0.5)
            assert app.quit("sigterm") < 3.0
        finally:
            app.kill()
    with sqlite3.connect(data / DB_FILENAME) as connection:
        replies = connection.execute(
            "SELECT content FROM conversation_turns WHERE role = 'assistant'").fetchall()
    assert [reply.strip() for (reply,) in replies] == [words.strip()]  # her reply, whole
    comes_up_again(data, tmp_path / "again")
