"""The chat window's header: her name and the model's (plain text), the Photoboard and
Settings buttons."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton

from companion_desktop.ui.plain import plain_label


class ChatHeader:
    """The header's widgets, added to ``row`` (the header's layout); the buttons call
    ``open_photoboard`` and ``open_settings``."""

    def __init__(self, row: QHBoxLayout, open_photoboard: Callable[[], None],
                 open_settings: Callable[[], None]) -> None:
        self.title = plain_label(objectName="chatTitle")  # her name and the model's: plain
        self.model_line = plain_label(objectName="modelLine")
        row.addWidget(self.title)
        row.addWidget(self.model_line, 1)
        self.photoboard = self._button("▦  Photoboard", open_photoboard)
        self.photoboard.setToolTip("Every photo you showed her, with her notes")
        row.addWidget(self.photoboard)
        self.settings = self._button("⚙  Settings", open_settings)
        row.addWidget(self.settings)

    @staticmethod
    def _button(text: str, clicked: Callable[[], None]) -> QPushButton:
        button = QPushButton(text, objectName="headerButton")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(clicked)
        return button
