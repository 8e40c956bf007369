""""Do not disturb": one switch, shown in her menu, the tray menu, the chat window's header
and Settings, and reachable by a global hotkey.

While it is on she does not speak first, and nothing pops up: no tray messages (a fired
reminder is still saved and shown in the chat, but without a bubble on her, a tray
message or her voice). The choice is saved (``ProactiveSettings.do_not_disturb``) and
shown: a checked menu item, a pressed header button, a mark in the tray's tooltip.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QPushButton, QSystemTrayIcon

from companion_desktop.storage.db import Database
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import ProactiveSettings, load_settings, save_settings

log = logging.getLogger(__name__)

LABEL = "Do not disturb"
HINT = "While on, she stays quiet: she doesn't speak first and nothing pops up."
TOOLTIP_MARK = " (do not disturb)"
CHECKED_STYLE = "#headerButton:checked { background: #ecdcf7; border: 1px solid #b48fd0; }"


class DndState(QObject):
    """The saved switch; ``changed(on)`` after every change, whoever made it."""

    changed = Signal(bool)

    def __init__(self, db: Database, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.db = db
        self._on = self._read()

    def _read(self) -> bool:
        try:
            with self.db.read_session() as session:
                return load_settings(session, ProactiveSettings).do_not_disturb
        except StorageError:
            return False

    @property
    def on(self) -> bool:
        return self._on

    def set_on(self, on: bool) -> None:
        """Save and announce; unchanged values do nothing."""
        on = bool(on)
        if on == self._on:
            return
        try:
            with self.db.session() as session:
                settings = load_settings(session, ProactiveSettings)
                settings.do_not_disturb = on
                save_settings(session, settings)
        except StorageError as error:
            log.warning("could not save do not disturb: %s", error)
        self._on = on
        self.changed.emit(on)

    def toggle(self) -> None:
        self.set_on(not self._on)

    def reload(self) -> None:
        """Settings were saved elsewhere (the Settings window): follow them."""
        on = self._read()
        if on != self._on:
            self._on = on
            self.changed.emit(on)


def add_dnd_action(menu: QMenu, state: DndState, before: QAction | None = None) -> QAction:
    """A checkable "Do not disturb" item in ``menu`` (before ``before`` when given)."""
    action = QAction(LABEL, menu, checkable=True, checked=state.on)
    action.setObjectName("dndAction")
    action.setToolTip(HINT)
    action.toggled.connect(state.set_on)
    state.changed.connect(action.setChecked)
    if before is not None:
        menu.insertAction(before, action)
    else:
        menu.addAction(action)
    return action


def dnd_button(state: DndState) -> QPushButton:
    """A header button that stays pressed while do not disturb is on."""
    button = QPushButton("🔕  Quiet", objectName="headerButton", checkable=True)
    button.setStyleSheet(CHECKED_STYLE)
    button.setToolTip(f"{LABEL}: {HINT}")
    button.setChecked(state.on)
    button.toggled.connect(state.set_on)
    state.changed.connect(button.setChecked)
    return button


Notify = Callable[[str, str], Any]


def quiet(notify: Notify | None, state: DndState) -> Notify | None:
    """``notify`` (a tray message) that does nothing while do not disturb is on."""
    if notify is None:
        return None

    def maybe(title: str, text: str) -> Any:
        if state.on:
            return None
        return notify(title, text)

    return maybe


def watch_tray(tray: QSystemTrayIcon, state: DndState) -> None:
    """The tray's tooltip carries a mark while do not disturb is on."""
    base = tray.toolTip().removesuffix(TOOLTIP_MARK) or "companion-desktop"

    def show(on: bool) -> None:
        tray.setToolTip(base + (TOOLTIP_MARK if on else ""))

    state.changed.connect(show)
    show(state.on)
