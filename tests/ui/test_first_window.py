"""The first window: the chat window's frame, painted before storage, SQLAlchemy and the
pipeline are imported, with nothing to type into; the chat window takes its place."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

from companion_desktop.storage.db import Database
from companion_desktop.storage.quick_read import setting
from companion_desktop.storage.settings import DisplaySettings, save_settings

pytestmark = pytest.mark.qt

CHECK = """
import json, sys
from companion_desktop import app
seen = {}
paint_now = app._paint_now
def painted(window):
    paint_now(window)
    from PySide6.QtWidgets import QAbstractButton, QAbstractScrollArea, QLineEdit
    seen["first"] = type(window).__name__
    seen["storage_loaded"] = sorted(m for m in ("sqlalchemy", "companion_desktop.storage.db",
                                    "companion_desktop.pipeline.companion") if m in sys.modules)
    seen["inputs"] = len(window.findChildren(QLineEdit) + window.findChildren(QAbstractButton)
                         + window.findChildren(QAbstractScrollArea))
    seen["geometry"] = list(window.geometry().getRect())
    seen["first_window"] = window
app._paint_now = painted
def chat_painted(window, then):
    def look():
        then()
        first = seen.pop("first_window")
        seen["chat"] = type(window).__name__
        seen["first_visible_after"] = first.isVisible()
        seen["chat_geometry"] = list(window.geometry().getRect())
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        QTimer.singleShot(0, QApplication.instance().quit)
    if "chat" not in seen and "first_window" in seen and then.__name__ == "go":
        from PySide6.QtCore import QTimer
        QTimer.singleShot(0, look)
app._after_first_paint = chat_painted
first_window = app._first_window
def first_or_none(folder):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    QTimer.singleShot(6000, QApplication.instance().quit)  # started hidden: nothing paints
    return first_window(folder)
app._first_window = first_or_none
app.run_gui(sys.argv[1])
seen.pop("first_window", None)
print(json.dumps(seen))
"""


def run(data: str) -> dict:
    env = {**os.environ, "COMPANION_NO_WELCOME": "1"}
    out = subprocess.run([sys.executable, "-c", CHECK, data], capture_output=True, text=True,
                         env=env, timeout=90)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_first_window_comes_before_storage_and_the_chat_window_takes_its_place():
    seen = run(tempfile.mkdtemp() + "/data")
    assert seen["first"] == "FirstWindow" and seen["chat"] == "ChatWindow"
    assert seen["storage_loaded"] == []  # painted before any of them was imported
    assert seen["inputs"] == 0  # nothing to type into or press before storage is open
    assert not seen["first_visible_after"]  # gone once the chat window has painted
    assert seen["chat_geometry"][2:] == seen["geometry"][2:]  # in its place, at its size


def test_started_hidden_there_is_no_first_window(tmp_path):
    with Database.open(tmp_path / "data") as db, db.session() as session:
        save_settings(session, DisplaySettings(start_hidden="overlay"))
    assert setting(tmp_path / "data", "display", "start_hidden") == "overlay"
    seen = run(str(tmp_path / "data"))
    assert "first" not in seen


def test_the_quick_read_never_fails(tmp_path):
    assert setting(tmp_path / "none", "display", "start_hidden", "no") == "no"  # no file
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "companion.sqlite3").write_bytes(b"not a database at all" * 100)
    assert setting(broken, "display", "start_hidden", "no") == "no"
    with Database.open(tmp_path / "data") as db:
        assert setting(tmp_path / "data", "display", "start_hidden", "no") == "no"  # default
        with db.session() as session:
            save_settings(session, DisplaySettings(start_hidden="tray"))
        assert setting(tmp_path / "data", "display", "start_hidden", "no") == "tray"
        assert setting(tmp_path / "data", "display", "missing_key", 7) == 7
        assert json.dumps(setting(tmp_path / "data", "nothing", "x")) == "null"


def test_the_first_window_has_the_chat_windows_frame():
    from companion_desktop.ui.chat import window
    from companion_desktop.ui.start import first_window

    assert first_window.AVATAR_HEIGHT == window.AVATAR_HEIGHT
    assert first_window.AVATAR_RGB == tuple(round(255 * c) for c in window.AVATAR_BACKGROUND[:3])
    from companion_desktop.ui.chat.state_panel import StatePanel

    assert first_window.SIDE_WIDTH == StatePanel().minimumWidth()
