"""The message box: Enter sends, Shift+Enter starts a new line.

While a turn runs the box keeps accepting text (the user can write the next
message) but looks dimmed: the ``busy`` property switches its style.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QPlainTextEdit, QWidget


class ChatInput(QPlainTextEdit):
    """``submitted(text)`` fires on Enter with the whole text (the box is not cleared here)."""

    submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatInput")
        self.setTabChangesFocus(True)
        self.setPlaceholderText("Say something…  (Enter sends, Shift+Enter for a new line)")
        self.setProperty("busy", False)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def set_busy(self, busy: bool) -> None:
        """Dim the box while a turn runs; typing stays possible."""
        if self.property("busy") == busy:
            return
        self.setProperty("busy", busy)
        self.style().unpolish(self)
        self.style().polish(self)
        self.viewport().update()

    def event(self, event) -> bool:  # noqa: ANN001
        # The style sheet's font and padding arrive on polish: measure again then.
        if event.type() in (QEvent.Type.Polish, QEvent.Type.StyleChange, QEvent.Type.FontChange):
            QTimer.singleShot(0, self._fit_height)
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit(self.toPlainText())
            event.accept()
            return
        super().keyPressEvent(event)

    def _fit_height(self) -> None:
        """Grow with the text from one line up to six, then scroll."""
        metrics = self.fontMetrics()
        lines = max(1, min(6, int(self.document().size().height())))
        margins = self.contentsMargins()
        extra = margins.top() + margins.bottom() + 2 * int(self.document().documentMargin()) + 4
        self.setFixedHeight(lines * metrics.lineSpacing() + extra)
