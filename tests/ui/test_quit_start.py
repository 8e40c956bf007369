"""Quitting the real app (a subprocess) while it starts: a SIGTERM in the first seconds,
during the imports, before the window, while her avatar and desktop are being set up,
ends the process within 3 s with exit code 0, and the next start comes up normally."""

from __future__ import annotations

import shutil
import sys
import time

import pytest

from companion_desktop.storage.paths import DB_FILENAME
from tests.ui.app_process import AppProcess, integrity

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display"),
              pytest.mark.slow]


@pytest.mark.parametrize("after", [0.3, 0.8, 1.5, 2.5, 3.5])
def test_sigterm_while_she_starts(tmp_path, after):
    data = tmp_path / "data"
    app = AppProcess(data, tmp_path / "run")
    try:
        time.sleep(max(0.0, after - (time.monotonic() - app.started)))
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    if (data / DB_FILENAME).exists():
        assert integrity(data) == "ok"
    again = AppProcess(data, tmp_path / "again")  # no lock or half state left behind
    try:
        again.wait_shown()
        assert again.quit("sigterm") < 3.0
    finally:
        again.kill()


OWN_PROCESS = """
import atexit, sys
from companion_desktop.app import run_gui
atexit.register(print, "interpreter teardown", flush=True)
raise SystemExit(run_gui(sys.argv[2], end_process=True))
"""


def test_her_own_process_ends_without_the_interpreters_teardown(tmp_path):
    """``end_process``: once all is closed the process ends with her exit code, without
    tearing every module down (a second or more on a busy machine)."""
    app = AppProcess(tmp_path / "data", tmp_path / "run", script=OWN_PROCESS)
    try:
        app.wait_shown()
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    assert "interpreter teardown" not in app.output()
    assert integrity(tmp_path / "data") == "ok"


@pytest.mark.skipif(not shutil.which("xwininfo") or not shutil.which("xprop"),
                    reason="xwininfo and xprop find her welcome on the display")
def test_sigterm_while_the_welcome_is_open(tmp_path):
    """The first run's welcome is a dialog of its own, shown before the event loop runs
    (quitting the loop alone does not end it: the app hung there)."""
    app = AppProcess(tmp_path / "data", tmp_path / "run", welcome=True)
    try:
        app.wait_for(lambda: app.shows_window("Welcome"), 30, "the welcome")
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    assert integrity(tmp_path / "data") == "ok"
