"""The user's idle time: the X server's screen-saver extension on a real display, else
the app's own input."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from datetime import timedelta

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from companion_desktop.ui.desktop.idle import IdleTime

pytestmark = pytest.mark.qt


@pytest.mark.skipif(not os.environ.get("DISPLAY") or shutil.which("xdotool") is None,
                    reason="needs an X display and xdotool")
def test_desktop_idle_time_from_the_x_server(qtbot):
    idle = IdleTime()
    assert idle.source == "x11"
    subprocess.run(["xdotool", "mousemove", "10", "10"], check=True, timeout=10)
    time.sleep(1.2)
    first = idle.idle()
    assert first >= timedelta(seconds=1)
    subprocess.run(["xdotool", "mousemove", "30", "40"], check=True, timeout=10)
    assert idle.idle() < first  # input anywhere on the desktop counts
    idle.close()
    assert idle.source == "app"


def test_the_apps_own_input_without_x(qtbot):
    idle = IdleTime(use_x=False)
    assert idle.source == "app"
    edit = QLineEdit()
    qtbot.addWidget(edit)
    time.sleep(0.3)
    before = idle.idle()
    assert before >= timedelta(seconds=0.3)
    qtbot.keyClick(edit, Qt.Key.Key_A)
    assert idle.idle() < before
