"""Do not disturb under pytest-qt: menu items, the header button and Settings toggle and
persist it; a fired reminder during it is saved and shown but sends no tray message."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from companion_desktop.llm.base import ProviderConfig
from companion_desktop.llm.registry import create_provider
from companion_desktop.pipeline.reminders import ReminderService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import reminders as reminder_store
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import ProactiveSettings, load_settings
from companion_desktop.ui.dnd import (
    TOOLTIP_MARK,
    DndState,
    add_dnd_action,
    dnd_button,
    quiet,
    watch_tray,
)
from companion_desktop.ui.reminder_poller import ReminderPoller
from companion_desktop.ui.settings.desktop.proactive_section import ProactiveSection
from companion_desktop.ui.settings.llm_page import SettingsProblem
from tests.conftest import T0
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt


def saved(db: Database) -> ProactiveSettings:
    with db.read_session() as session:
        return load_settings(session, ProactiveSettings)


def test_menu_items_and_button_toggle_and_persist(qtbot, service):
    db = service.db
    state = DndState(db)
    assert state.on is False
    first, second = QMenu(), QMenu()
    action = add_dnd_action(first, state)
    quit_action = second.addAction("Quit")
    other = add_dnd_action(second, state, before=quit_action)
    assert second.actions().index(other) < second.actions().index(quit_action)
    button = dnd_button(state)
    qtbot.addWidget(button)
    tray = QSystemTrayIcon()
    tray.setToolTip("companion-desktop")
    watch_tray(tray, state)
    action.trigger()
    assert state.on and saved(db).do_not_disturb is True
    assert other.isChecked() and button.isChecked()
    assert tray.toolTip() == "companion-desktop" + TOOLTIP_MARK
    assert DndState(db).on is True  # what a new start reads
    button.click()
    assert not state.on and saved(db).do_not_disturb is False
    assert not action.isChecked() and tray.toolTip() == "companion-desktop"
    calls = []
    notify = quiet(lambda title, text: calls.append(text), state)
    state.toggle()
    notify("Reminder", "stretch")
    state.toggle()
    notify("Reminder", "water")
    assert calls == ["water"]


def test_settings_section_saves_and_refuses(qtbot, service):
    db = service.db
    section = ProactiveSection(service)
    qtbot.addWidget(section)
    assert section.speak_first.currentData() is None and not section.window.isChecked()
    assert section.deny.isEnabled()  # it also keeps windows out of screen pictures
    assert not section.glance.isChecked() and section.glance_minutes.value() == 30
    section.dnd.setChecked(True)
    section.speak_first.setCurrentIndex(section.speak_first.findData(True))
    section.silence.setValue(10_000)  # beyond the range: held at the top
    section.cap.setValue(5)
    section.window.setChecked(True)
    section.glance.setChecked(True)
    section.glance_minutes.setValue(1)  # below the range: held at the bottom
    section.deny.setPlainText("Signal\n\n  my   bank \nsignal\n")
    section.apply()
    stored = saved(db)
    assert stored.do_not_disturb and stored.speak_first is True and stored.daily_cap == 5
    assert stored.silence_minutes == 480 and stored.window_awareness
    assert stored.window_deny == ["Signal", "my bank"]
    assert stored.glance and stored.glance_minutes == 5
    state = DndState(db)
    section.dnd.setChecked(False)
    section.apply()
    state.reload()
    assert state.on is False
    section.deny.setPlainText("x" * 81)
    with pytest.raises(SettingsProblem, match="longer than 80"):
        section.check()
    assert saved(db).window_deny == ["Signal", "my bank"]


def test_settings_save_keeps_a_toggle_made_elsewhere_while_open(qtbot, service):
    section = ProactiveSection(service)
    qtbot.addWidget(section)
    DndState(service.db).set_on(True)  # her menu, while Settings is open
    section.cap.setValue(4)
    section.apply()
    assert saved(service.db).do_not_disturb is True and saved(service.db).daily_cap == 4
    section.dnd.setChecked(True)  # touched here: this one wins
    section.dnd.setChecked(False)
    section.apply()
    assert saved(service.db).do_not_disturb is False


def test_reminder_during_dnd_is_saved_and_shown_without_a_popup(qtbot, service, server):
    db = service.db
    server.default = Script(reply_with_block("Time to stretch!"))
    runner = TurnRunner(service, create_provider(
        ProviderConfig("openai-compatible", server.base_url, "tiny-model")), lambda: T0)
    reminders = ReminderService(db, clock=lambda: T0)
    with db.session() as session:
        reminder_store.add_reminder(session, T0 - timedelta(minutes=1), "stretch", T0, None)
    state = DndState(db)
    state.set_on(True)
    popups: list[str] = []

    def fire(record, done):
        result = reminders.fire(record, runner)
        done(result.reply if result else None)

    poller = ReminderPoller(reminders, fire, notify=quiet(lambda t, m: popups.append(m), state),
                            windows_visible=lambda: False)
    with qtbot.waitSignal(poller.fired, timeout=5000) as fired:
        poller.poll()
    assert fired.args[1] == "Time to stretch!"  # the chat shows it (Desktop connects this)
    assert popups == []
    with db.read_session() as session:
        turns = repo.recent_turns(session, 4)
    assert turns[-1].role == "assistant" and turns[-1].content == "Time to stretch!"
    state.set_on(False)
    with db.session() as session:
        reminder_store.add_reminder(session, T0 - timedelta(minutes=1), "water", T0, None)
    with qtbot.waitSignal(poller.fired, timeout=5000):
        poller.poll()
    assert popups == ["Time to stretch!"]
