"""The Wayland capture path: the desktop portal's Screenshot call over D-Bus, against a
portal on a private session bus that speaks the portal's interface
(``portal_service.py``): the call carries a handle token and asks for the interactive
dialog, the picture the portal saved reaches the app and the file is deleted at once;
a cancel in the portal's dialog is one clear line. The app side runs in a process of its
own (Qt keeps the first session-bus connection for the life of a process)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("dbus-daemon") is None,
                                 reason="dbus-daemon is not installed")
HERE = Path(__file__).resolve().parent
CLIENT = """
import sys
from PySide6.QtWidgets import QApplication, QWidget
from companion_desktop.ui.desktop.screen.capture import ScreenRefused
from companion_desktop.ui.desktop.screen.portal import portal_screenshot
app = QApplication(sys.argv[:1])
mine = QWidget()
mine.show()
try:
    image = portal_screenshot([mine])
except ScreenRefused as error:
    print("refused:", error)
else:
    left, right = image.pixelColor(20, 100), image.pixelColor(300, 100)
    print("picture:", image.width(), image.height(), left.red(), left.blue(), right.red(),
          right.blue(), "shown again:", mine.isVisible())
"""


@pytest.fixture
def session_bus(tmp_path):
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"],
                              stdout=subprocess.PIPE, text=True)
    address = daemon.stdout.readline().strip()
    assert address, "the session bus did not start"
    yield address
    daemon.terminate()
    daemon.wait(10)


def look(tmp_path: Path, address: str, *portal_args: str) -> tuple[str, list[dict]]:
    env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": address, "QT_QPA_PLATFORM": "offscreen"}
    folder = tmp_path / "portal"
    folder.mkdir()
    portal = subprocess.Popen([sys.executable, str(HERE / "portal_service.py"), str(folder),
                               *portal_args], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert portal.stdout.readline().strip() == "ready"
        app = subprocess.run([sys.executable, "-c", CLIENT], capture_output=True, text=True,
                             env=env, timeout=60)
    finally:
        portal.terminate()
        portal.wait(10)
    calls = [json.loads(line) for line in (folder / "calls.jsonl").read_text().splitlines()]
    leftover = sorted(p.name for p in folder.glob("*.png"))
    left = f" left: {leftover}" if leftover else ""
    return app.stdout.strip() + app.stderr[-2000:] + left, calls


def test_the_portal_gives_the_picture_and_keeps_nothing(tmp_path, session_bus):
    out, calls = look(tmp_path, session_bus)
    assert out.startswith("picture: 320 200 255 0 0 255 shown again: True"), out
    assert "left:" not in out  # the portal's file was deleted once read
    (call,) = calls
    assert call["options"]["interactive"] is True
    assert call["options"]["handle_token"].startswith("companion_")
    assert call["handle"].endswith("/" + call["options"]["handle_token"])


def test_a_cancel_in_the_portal_is_one_clear_line(tmp_path, session_bus):
    out, calls = look(tmp_path, session_bus, "cancel")
    assert out.startswith("refused: No screenshot was taken (cancelled"), out
    assert len(calls) == 1
