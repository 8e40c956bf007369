"""attach_talk on the real desktop (Xvfb, GL): the header switch, the hotkey, the
runner's window hook, and a speaking-first moment shown on her and in the chat."""

from __future__ import annotations

import os
import shutil
from datetime import timedelta

import pytest

from companion_desktop.engine.proactive import ActiveWindow
from companion_desktop.storage.settings import (
    HotkeySettings,
    ProactiveSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.desktop.talk import SPOKE_FIRST_NOTICE, attach_talk
from tests.conftest import T0
from tests.ui.desktop.test_hotkeys import neutral_focus, press  # noqa: F401 - fixture
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = [
    pytest.mark.gl,
    pytest.mark.qt,
    pytest.mark.skipif(not os.environ.get("DISPLAY"),
                       reason="needs an X display (Xvfb) for OpenGL windows"),
]


def talk_of(desktop, windows=None):  # noqa: ANN001, ANN201
    """The desktop's own (once ``Desktop`` attaches it) or a new one."""
    talk = getattr(desktop, "talk", None)
    if talk is None:
        return attach_talk(desktop, windows)
    talk.set_windows(windows)
    return talk


class Windows:
    def __init__(self) -> None:
        self.window = ActiveWindow("gedit", "notes.txt")

    def active_window(self):
        return self.window


class StillIdle:
    """The user's idle time, as the test sets it."""

    def __init__(self) -> None:
        self.value = timedelta(seconds=1)

    def idle(self) -> timedelta:
        return self.value


def test_switch_hotkey_hook_and_a_moment_she_starts(desktop, qtbot, server):  # noqa: F811
    service = desktop.service
    windows = Windows()
    talk = talk_of(desktop, windows)
    header = desktop.chat.settings_button.parentWidget().layout()
    assert header.indexOf(talk.button) == header.indexOf(desktop.chat.settings_button) - 1
    assert desktop.overlay.dnd is talk.dnd
    desktop.hotkeys.triggered.emit("toggle_dnd")
    assert talk.dnd.on and talk.button.isChecked()
    with service.db.read_session() as session:
        assert load_settings(session, ProactiveSettings).do_not_disturb is True
    assert desktop.backend.runner.window_layer is not None
    talk.driver.stop()
    talk.driver.idle = StillIdle()
    talk.speaker.presence.observe(T0 - timedelta(hours=1), timedelta(0))  # at the keys an hour
    assert talk.driver.tick() is False and talk.driver.last_why == "do not disturb"
    talk.button.click()
    windows.window = ActiveWindow("mpv", "film", fullscreen=True)
    assert talk.driver.tick() is False and talk.driver.last_why == "fullscreen"
    windows.window = ActiveWindow("gedit", "notes.txt")
    server.default = Script(reply_with_block("Still working hard? Want a break?"))
    with qtbot.waitSignal(talk.driver.spoke, timeout=15000):
        assert talk.driver.tick() is True
    her = desktop.chat.transcript.bubbles("her")
    assert her and "Want a break?" in her[-1].text()
    assert "Want a break?" in desktop.overlay.bubble.label.text()
    assert desktop.chat.transcript.notices("info")[-1].label.text() == SPOKE_FIRST_NOTICE
    assert talk.driver.tick() is False and talk.driver.last_why == "too soon"


@pytest.mark.skipif(shutil.which("xdotool") is None, reason="needs xdotool")
def test_the_global_hotkey_toggles_do_not_disturb(desktop, qtbot, neutral_focus):  # noqa: F811
    service = desktop.service
    with service.db.session() as session:
        save_settings(session, HotkeySettings(enabled=True, toggle_dnd="Ctrl+Alt+N"))
    talk = talk_of(desktop)
    desktop.start_hotkeys()
    assert desktop.hotkeys.problem is None
    press("key", "ctrl+alt+n")
    qtbot.waitUntil(lambda: talk.dnd.on, timeout=5000)
    press("key", "ctrl+alt+n")
    qtbot.waitUntil(lambda: not talk.dnd.on, timeout=5000)
    with service.db.read_session() as session:
        assert load_settings(session, ProactiveSettings).do_not_disturb is False
    desktop.hotkeys.stop()


def test_her_menu_has_the_switch_and_a_quiet_reminder_keeps_to_the_chat(desktop, qtbot):  # noqa: F811
    talk = talk_of(desktop)
    menu = desktop.overlay.menu()
    [action] = [a for a in menu.actions() if a.text() == "Do not disturb"]
    assert action.isCheckable() and not action.isChecked()
    action.trigger()
    assert talk.dnd.on and talk.button.isChecked()
    assert desktop.overlay.menu() is not menu  # a fresh menu shows the state
    assert [a.isChecked() for a in desktop.overlay.menu().actions()
            if a.text() == "Do not disturb"] == [True]

    class Record:
        id, content = 1, "water the plants"

    desktop.overlay.bubble.label.setText("")
    desktop._reminder_fired(Record(), "Time to water the plants!")
    assert "water the plants" not in desktop.overlay.bubble.label.text()  # no bubble on her
    assert "Time to water the plants!" in desktop.chat.transcript.bubbles("her")[-1].text()
    talk.dnd.toggle()
    desktop._reminder_fired(Record(), "Plants again!")
    assert "Plants again!" in desktop.overlay.bubble.label.text()


def test_she_does_not_walk_off_while_she_listens(desktop, qtbot):  # noqa: F811
    walker = desktop.life.walker
    assert walker is not None  # her avatar's director walks her
    # she may still be coming down to her floor after being placed (that comes first)
    qtbot.waitUntil(lambda: walker.placement.busy_reason != "falling", timeout=10_000)
    desktop.chat.hearing.state = "hearing"
    assert walker.busy_reason() == "listening"
    desktop.chat.hearing.state = "recognising"
    assert walker.busy_reason() == "listening"
    desktop.chat.hearing.state = "off"
    assert walker.busy_reason() in (None, "hidden")
