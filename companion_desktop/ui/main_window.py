"""The main window: her state beside the relationship card, and the mode switch.

The conversation view joins this window with the chat work; until then the
right side shows the relationship card so the window is useful on its own.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QTimer
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.state_panel import StatePanel
from companion_desktop.ui.style import STYLE_SHEET

REFRESH_MS = 60_000


class MainWindow(QMainWindow):
    """Shows the state from ``service``; ``clock`` gives the current local time."""

    def __init__(self, service: CompanionService, clock: Callable[[], datetime]) -> None:
        super().__init__()
        self.service = service
        self.clock = clock
        self.setWindowTitle("companion-desktop")
        self.setStyleSheet(STYLE_SHEET)
        self.resize(900, 560)
        central = QWidget()
        row = QHBoxLayout(central)
        self.panel = StatePanel()
        row.addWidget(self.panel)
        right = QVBoxLayout()
        right.addWidget(QLabel("Mode", objectName="sectionTitle"))
        modes = QHBoxLayout()
        self.mode_group = QButtonGroup(self)
        self.mode_buttons = {
            "dating_sim": QRadioButton("Dating Sim Mode"),
            "companion": QRadioButton("Companion Mode"),
        }
        for mode, button in self.mode_buttons.items():
            self.mode_group.addButton(button)
            modes.addWidget(button)
            button.toggled.connect(lambda on, m=mode: on and self.set_mode(m))
        modes.addStretch(1)
        right.addLayout(modes)
        right.addWidget(QLabel("Relationship", objectName="sectionTitle"))
        self.card = QPlainTextEdit(objectName="relationshipCard")
        self.card.setReadOnly(True)
        self.card.setFont(QFont("DejaVu Sans Mono", 10))
        right.addWidget(self.card, 1)
        row.addLayout(right, 1)
        self.setCentralWidget(central)
        self.timer = QTimer(self, interval=REFRESH_MS, timeout=self.refresh)
        self.timer.start()
        self.refresh()

    def refresh(self) -> None:
        """Reload the state (resolving time decay) and redraw; a database problem is shown."""
        now = self.clock()
        try:
            state = self.service.load(now).state
            card = self.service.relationship_text(now)
        except StorageError as exc:
            self.statusBar().showMessage(str(exc))
            return
        self.statusBar().clearMessage()
        self.panel.show_state(state)
        button = self.mode_buttons[state.app_mode]
        if not button.isChecked():
            button.blockSignals(True)
            button.setChecked(True)
            button.blockSignals(False)
        self.card.setPlainText(card)

    def set_mode(self, mode: str) -> None:
        try:
            self.service.set_mode(mode, self.clock())
        except StorageError as exc:
            self.statusBar().showMessage(f"Could not switch modes: {exc}")
        self.refresh()
