"""Settings > Desktop > Global hotkeys: show or hide her, click-through on or off (the way
back when clicks pass through her and her menu cannot be reached), push-to-talk, do
not disturb on or off, and "look at this" (the active window, into the chat's preview).

Each key is picked with Qt's key-sequence editor (one combination; Clear turns it off).
The line under them says whether the keys are heard: listening, or why not (a Wayland
session, no display, a refused permission), so a key that does nothing never goes
unexplained.
"""

from __future__ import annotations

import os

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import HotkeySettings, load_settings, save_settings
from companion_desktop.ui.desktop import ACTIONS, GlobalHotkeys, HotkeyError, refusal, to_pynput
from companion_desktop.ui.settings.llm_page import SettingsProblem
from companion_desktop.ui.start.session import wayland_session
from companion_desktop.ui.switch import Switch

#: What each action is called in Settings.
LABELS = {"toggle_overlay": "Show or hide her",
          "toggle_click_through": "Click-through on or off",
          "push_to_talk": "Push-to-talk (hold)",
          "toggle_dnd": "Do not disturb on or off",
          "look_at_screen": "Show her your screen (a preview first)"}


class HotkeysSection(QWidget):
    """Rows for a form; ``check()`` refuses a key that cannot be global, ``apply()`` saves."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            settings = load_settings(session, HotkeySettings)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.enabled = Switch("Keys that work in every window")
        self.enabled.setObjectName("hotkeysSwitch")
        self.enabled.setChecked(settings.enabled)
        column.addWidget(self.enabled)
        form = QFormLayout()
        self.edits: dict[str, QKeySequenceEdit] = {}
        for action in ACTIONS:
            edit = QKeySequenceEdit(QKeySequence(getattr(settings, action)),
                                    objectName=f"hotkey_{action}")
            edit.setMaximumSequenceLength(1)
            clear = QPushButton("Clear", objectName=f"hotkeyClear_{action}")
            clear.clicked.connect(edit.clear)
            row = QHBoxLayout()
            row.addWidget(edit, 1)
            row.addWidget(clear)
            form.addRow(LABELS[action], row)
            self.edits[action] = edit
        column.addLayout(form)
        self.status = QLabel(objectName="hotkeysStatus", wordWrap=True)
        column.addWidget(self.status)
        self.enabled.toggled.connect(self.show_status)
        self.show_status()

    def keys(self) -> dict[str, str]:
        """Action -> key text as stored (Qt's portable form, "" when none)."""
        return {action: edit.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
                for action, edit in self.edits.items()}

    def show_status(self) -> None:
        """Listening, off, or why the system refuses."""
        running = GlobalHotkeys.current
        if not self.enabled.isChecked():
            text = "Off: the keys work only while her windows have the focus."
        elif why := refusal():
            text = why
        elif running is not None and running.problem:
            text = running.problem
        elif running is not None and running.running and wayland_session(os.environ):
            text = ("Listening while an X11 app has the focus: in this Wayland session "
                    "native Wayland apps keep their keys to themselves.")
        elif running is not None and running.running:
            text = "Listening in every window."
        else:
            text = "Heard in every window once saved."
        self.status.setText(text)

    def check(self) -> None:
        """SettingsProblem naming the action whose key cannot be a global hotkey."""
        if not self.enabled.isChecked():
            return
        seen: dict[str, str] = {}
        for action, key in self.keys().items():
            if not key:
                continue
            try:
                to_pynput(key)
            except HotkeyError as error:
                raise SettingsProblem(f"Global hotkeys > {LABELS[action]}: {error}") from None
            if key in seen:
                raise SettingsProblem(f"Global hotkeys: {key} is chosen for both "
                                      f"{LABELS[seen[key]]!r} and {LABELS[action]!r}.")
            seen[key] = action

    def apply(self) -> None:
        with self.service.db.session() as session:
            settings = load_settings(session, HotkeySettings)
            settings.enabled = self.enabled.isChecked()
            for action, key in self.keys().items():
                setattr(settings, action, key)
            save_settings(session, settings)
