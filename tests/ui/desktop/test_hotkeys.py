"""Global hotkeys: real key presses (the XTEST extension through xdotool) on the Xvfb
display reach her from outside her windows; Settings keeps the keys and says when the
system refuses them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest
from PySide6.QtGui import QKeySequence

from companion_desktop.storage.settings import HotkeySettings, load_settings, save_settings
from companion_desktop.ui.desktop import hotkeys
from companion_desktop.ui.desktop.hotkeys import GlobalHotkeys, HotkeyError, to_pynput
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - the real app's windows

pytestmark = pytest.mark.qt


def press(*args: str) -> None:
    time.sleep(0.2)  # the X RECORD context is set up once the listener runs
    subprocess.run(["xdotool", *args], check=True, timeout=10)


@pytest.mark.parametrize("qt,expected", [
    ("Ctrl+Alt+H", "<ctrl>+<alt>+h"), ("F10", "<f10>"),
    ("Meta+Shift+Space", "<cmd>+<shift>+<space>"),
    ("Ctrl+PgDown", "<ctrl>+<page_down>"), ("Alt+1", "<alt>+1"),
])
def test_qt_key_text_becomes_pynput_text(qt, expected):
    assert to_pynput(qt) == expected


@pytest.mark.parametrize("qt,message", [
    ("", "No key"), ("Ctrl+K, Ctrl+C", "one key combination"), ("Hyper+X", "not a modifier"),
    ("Ctrl+VolumeUp", "cannot be a global hotkey"),
])
def test_keys_that_cannot_be_global_are_refused(qt, message):
    with pytest.raises(HotkeyError, match=message):
        to_pynput(qt)




@pytest.fixture
def neutral_focus(qtbot):
    """A plain window under the pointer with the focus: the synthesised keys land there,
    as they would in another program, not in a window an earlier test left behind."""
    from PySide6.QtWidgets import QWidget

    window = QWidget()
    qtbot.addWidget(window)
    window.setGeometry(0, 0, 400, 300)
    window.show()
    qtbot.waitExposed(window)
    center = window.mapToGlobal(window.rect().center())
    subprocess.run(["xdotool", "mousemove", str(center.x()), str(center.y())], check=True,
                   timeout=10)
    window.activateWindow()
    return window


LIVE = textwrap.dedent("""
    import subprocess, sys, time
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication
    from companion_desktop.ui.desktop.hotkeys import GlobalHotkeys

    app = QApplication([])
    keys = GlobalHotkeys()
    seen = []
    keys.triggered.connect(lambda action: seen.append(action))
    keys.talk.connect(lambda down: seen.append("down" if down else "up"))
    print(keys.start({"toggle_overlay": "Ctrl+Alt+H", "push_to_talk": "F10"}), keys.running)
    steps = [["key", "ctrl+alt+h"], ["keydown", "F10"], ["keyup", "F10"], ["key", "a"],
             "stop", ["key", "ctrl+alt+h"], "quit"]

    def step():
        item = steps.pop(0)
        if item == "quit":
            print(" ".join(seen), keys.running)
            app.quit()
            return
        if item == "stop":
            keys.stop()
        else:
            subprocess.run(["xdotool", *item], check=True)
        QTimer.singleShot(400, step)

    QTimer.singleShot(400, step)
    app.exec()
""")


@pytest.mark.skipif(not os.environ.get("DISPLAY") or shutil.which("xdotool") is None,
                    reason="needs an X display and xdotool")
def test_a_hotkey_and_push_to_talk_arrive_on_the_gui_thread(neutral_focus):
    """In a process of its own (the listener's thread must not outlive a test here)."""
    done = subprocess.run([sys.executable, "-c", LIVE], capture_output=True, text=True,
                          timeout=60, cwd=os.getcwd(),
                          env={**os.environ, "QT_QPA_PLATFORM": "xcb"})
    assert done.returncode == 0, done.stderr
    started, heard = done.stdout.strip().splitlines()
    assert started == "None True"
    assert heard == "toggle_overlay down up False"  # nothing after stop


@pytest.mark.skipif(not os.environ.get("DISPLAY") or shutil.which("xdotool") is None,
                    reason="needs an X display and xdotool")
def test_hotkeys_show_hide_her_and_toggle_click_through(desktop, service, qtbot,  # noqa: F811
                                                       neutral_focus):
    with service.db.session() as session:
        save_settings(session, HotkeySettings(enabled=True, toggle_overlay="Ctrl+Alt+H",
                                              toggle_click_through="Ctrl+Alt+K"))
    desktop.start_hotkeys()
    overlay = desktop.overlay
    assert desktop.hotkeys.problem is None and overlay.isVisible()
    press("key", "ctrl+alt+h")
    qtbot.waitUntil(lambda: not overlay.isVisible(), timeout=5000)
    press("key", "ctrl+alt+h")
    qtbot.waitUntil(overlay.isVisible, timeout=5000)
    clicks_pass = overlay.click_through
    press("key", "ctrl+alt+k")
    qtbot.waitUntil(lambda: overlay.click_through is not clicks_pass, timeout=5000)
    assert overlay.mask().isEmpty()  # every click reaches her now: her menu is back
    desktop.hotkeys.stop()


@pytest.mark.skipif(not os.environ.get("DISPLAY") or shutil.which("xdotool") is None,
                    reason="needs an X display and xdotool")
def test_with_global_hotkeys_off_the_keys_work_in_her_windows(desktop, service, qtbot):  # noqa: F811
    """Off (the default) or refused, the same keys still work while the chat window has
    the focus: the way back from click-through on any system. Real key presses."""
    desktop.start_hotkeys()
    assert not desktop.hotkeys.running
    chat, overlay = desktop.chat, desktop.overlay
    chat.show()
    qtbot.waitExposed(chat)
    chat.activateWindow()
    qtbot.waitUntil(chat.isActiveWindow, timeout=5000)
    press("key", "ctrl+alt+h")
    qtbot.waitUntil(lambda: not overlay.isVisible(), timeout=5000)
    press("key", "ctrl+alt+h")
    qtbot.waitUntil(overlay.isVisible, timeout=5000)
    chat.activateWindow()
    qtbot.waitUntil(chat.isActiveWindow, timeout=5000)
    clicks_pass = overlay.click_through
    press("key", "ctrl+alt+k")
    qtbot.waitUntil(lambda: overlay.click_through is not clicks_pass, timeout=5000)
    quiet = desktop.talk.quiet
    press("key", "ctrl+alt+n")
    qtbot.waitUntil(lambda: desktop.talk.quiet is not quiet, timeout=5000)
    with service.db.session() as session:  # turned on: the listener has them, not the windows
        save_settings(session, HotkeySettings(enabled=True))
    desktop.start_hotkeys()
    assert desktop.hotkeys.running and not desktop.hotkeys._shortcuts
    desktop.hotkeys.stop()


@pytest.mark.skipif(not os.environ.get("DISPLAY") or shutil.which("xdotool") is None,
                    reason="needs an X display and xdotool")
def test_the_push_to_talk_hotkey_opens_and_closes_her_microphone(desktop, service, qtbot,  # noqa: F811
                                                                 neutral_focus, tmp_path):
    """Held in another program's window: the microphone opens on the key's press and
    closes on its release, as with the mic button."""
    from tests.ui.voice.hearing_fixtures import listen_to_file, save_hearing

    hearing = desktop.chat.hearing
    source = listen_to_file(hearing, tmp_path / "cache")
    save_hearing(service, mode="push_to_talk")
    hearing.reload()
    with service.db.session() as session:
        save_settings(session, HotkeySettings(enabled=True, push_to_talk="F10"))
    desktop.start_hotkeys()
    assert desktop.hotkeys.problem is None and hearing.state == "ready"
    press("keydown", "F10")
    qtbot.waitUntil(lambda: hearing.state == "hearing" and source.active, timeout=5000)
    press("keyup", "F10")
    qtbot.waitUntil(lambda: hearing.source is None and hearing.state == "ready", timeout=5000)
    desktop.hotkeys.stop()


def test_settings_round_trip_and_checks(service, qtbot):
    from companion_desktop.ui.settings.desktop.page import DesktopPage
    from companion_desktop.ui.settings.llm_page import SettingsProblem

    page = DesktopPage(service)
    qtbot.addWidget(page)
    edits = page.hotkeys.edits
    assert not page.hotkeys.enabled.isChecked()  # off until the user turns them on
    page.hotkeys.enabled.setChecked(True)
    assert edits["toggle_overlay"].keySequence().toString() == "Ctrl+Alt+H"
    assert edits["push_to_talk"].keySequence().isEmpty()  # off until chosen
    edits["push_to_talk"].setKeySequence(QKeySequence("F10"))
    edits["toggle_click_through"].setKeySequence(QKeySequence("Ctrl+Alt+H"))
    with pytest.raises(SettingsProblem, match="chosen for both"):
        page.check()
    edits["toggle_click_through"].setKeySequence(QKeySequence("Ctrl+Shift+K"))
    page.check()
    page.apply()
    with service.db.read_session() as session:
        saved = load_settings(session, HotkeySettings)
    assert (saved.enabled, saved.toggle_overlay, saved.toggle_click_through,
            saved.push_to_talk) == (True, "Ctrl+Alt+H", "Ctrl+Shift+K", "F10")
    assert saved.bindings()["push_to_talk"] == "F10"
    again = DesktopPage(service)
    qtbot.addWidget(again)
    assert again.hotkeys.keys() == page.hotkeys.keys()
    again.hotkeys.enabled.setChecked(False)
    again.apply()
    with service.db.read_session() as session:
        assert load_settings(session, HotkeySettings).bindings() == {}


def test_settings_say_why_in_a_wayland_session(service, qtbot, monkeypatch):
    from companion_desktop.ui.settings.desktop.hotkeys_section import HotkeysSection

    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("XDG_SESSION_TYPE", "wayland")
    section = HotkeysSection(service)
    qtbot.addWidget(section)
    section.enabled.setChecked(True)
    assert "Wayland" in section.status.text() and "tray icon" in section.status.text()
    section.enabled.setChecked(False)
    assert section.status.text().startswith("Off")


REFUSED = textwrap.dedent("""
    from PySide6.QtCore import QCoreApplication
    from companion_desktop.ui.desktop.hotkeys import GlobalHotkeys
    app = QCoreApplication([])
    keys = GlobalHotkeys()
    print(keys.start({"toggle_overlay": "Ctrl+Alt+H"}))
    print(keys.running)
""")


@pytest.mark.parametrize("env,expected", [
    ({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"},
     "not available in this Wayland"),
    ({}, "need a display"),
    ({"DISPLAY": ":87"}, "Global hotkeys could not start"),  # no X server there
])
def test_the_backend_refusing_is_reported(env, expected):
    full = {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE")}
    full.update(env, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", REFUSED], capture_output=True, text=True,
                          env=full, timeout=60, cwd=os.getcwd())
    assert done.returncode == 0, done.stderr
    problem, running = done.stdout.strip().splitlines()
    assert expected in problem and running == "False"


def test_nothing_to_listen_for_is_not_a_problem(qtbot):
    listener = GlobalHotkeys()
    assert listener.start({"toggle_overlay": " ", "push_to_talk": ""}) is None
    assert not listener.running and hotkeys.GlobalHotkeys.current is listener
