"""A centred notice in the conversation (info, error with buttons, setup, the relationship
card, a day line) and the label helpers it shares with the message bubbles."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout

from companion_desktop.ui.style import fixed_font


def fit_label(label: QLabel, max_width: int) -> None:
    """Give a wrapped label its natural width (its longest line), at most ``max_width``.

    A word-wrapped QLabel otherwise settles on a narrow guess; fixing the width lets
    the layout ask for the right height (heightForWidth).
    """
    label.ensurePolished()
    metrics = label.fontMetrics()
    lines = label.text().split("\n") or [""]
    natural = max(metrics.horizontalAdvance(line) for line in lines) + 4
    label.setFixedWidth(max(8, min(natural, max_width)))


def text_label(text: str, name: str) -> QLabel:
    """A selectable, word-wrapped plain-text label named ``name`` for the style sheet."""
    label = QLabel(text, objectName=name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    return label


class Notice(QFrame):
    """A centred line: ``kind`` is "info", "error", "setup", "card" or "day"; buttons below."""

    def __init__(self, text: str, kind: str = "info",
                 actions: list[tuple[str, Callable[[], None]]] | None = None) -> None:
        super().__init__()
        self.kind = kind
        names = {"info": "systemNotice", "error": "errorNotice", "card": "cardNotice",
                 "day": "dayNotice", "setup": "setupNotice", "ask": "setupNotice"}
        self.setObjectName(names[kind])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 8, 14, 8)
        self.label = text_label(text, "noticeText")
        if kind == "card":
            self.label.setFont(fixed_font(9))
        else:
            self.label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        layout.addWidget(self.label)
        self.buttons: dict[str, QPushButton] = {}
        if actions:
            row = QHBoxLayout()
            row.addStretch(1)
            for title, callback in actions:
                button = QPushButton(title, objectName="noticeButton")
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.clicked.connect(callback)
                self.buttons[title] = button
                row.addWidget(button)
            row.addStretch(1)
            layout.addLayout(row)

    def text(self) -> str:
        return self.label.text()

    def fit(self, max_width: int) -> None:
        self._max_width = max_width
        margins = self.layout().contentsMargins()
        fit_label(self.label, max_width - margins.left() - margins.right())
