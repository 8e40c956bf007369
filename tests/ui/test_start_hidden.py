"""Settings > Display > At start, in the real app: "overlay" starts with only her on the
desktop (the chat window stays hidden until asked for); "no" shows both; "tray" with no
tray to come back from (Xvfb has none) shows her rather than nothing."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import DisplaySettings, save_settings
from tests.ui.app_process import AppProcess

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display")]


def viewable(app: AppProcess, title: str) -> bool:
    """A mapped, viewable window of the app's process whose title is ``title``, or starts
    with it and " — " (Qt adds the application's name) (X11)."""
    env = {**os.environ, "DISPLAY": app.display}
    tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                          env=env).stdout
    for line in tree.splitlines():
        name = line.split('"')[1] if line.count('"') >= 2 else ""
        if name != title and not name.startswith(f"{title} — "):
            continue
        window = line.split()[0]
        owner = subprocess.run(["xprop", "-id", window, "_NET_WM_PID"], capture_output=True,
                               text=True, env=env).stdout
        state = subprocess.run(["xwininfo", "-id", window], capture_output=True,
                               text=True, env=env).stdout
        if owner.strip().endswith(f"= {app.proc.pid}") and "IsViewable" in state:
            return True
    return False


@pytest.mark.parametrize("start_hidden,chat,overlay", [("overlay", False, True), ("no", True, True),
                                                      ("tray", False, True)])
def test_at_start(tmp_path, start_hidden, chat, overlay):
    with Database.open(tmp_path / "data") as db, db.session() as session:
        save_settings(session, DisplaySettings(start_hidden=start_hidden))
    app = AppProcess(tmp_path / "data", tmp_path / "run")
    try:
        app.wait_for(lambda: viewable(app, "Hana"), 40, "her overlay on screen")
        assert viewable(app, "companion-desktop") is chat
        assert app.quit() < 3.0
    finally:
        app.kill()
