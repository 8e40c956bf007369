"""The overlay's conversation: a speech bubble near her and a compact input.

Both follow the one ``TurnController`` the chat window also uses, so a message
typed here shows in the chat window and the other way round.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QLabel, QLineEdit, QVBoxLayout, QWidget

from companion_desktop.ui.shimmer import ShimmerLabel, phase_text

#: How long a finished reply stays up: a base plus reading time per character.
LINGER_BASE_MS = 4000
LINGER_PER_CHAR_MS = 45
LINGER_MAX_MS = 20000
MAX_SHOWN_CHARS = 420


def linger_ms(text: str) -> int:
    return min(LINGER_MAX_MS, LINGER_BASE_MS + LINGER_PER_CHAR_MS * len(text))


def tail_of(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    """The end of a long reply (the bubble shows the latest words as they stream)."""
    if len(text) <= limit:
        return text
    cut = text[-limit:]
    space = cut.find(" ")
    return "…" + (cut[space + 1:] if 0 <= space < 40 else cut)


class SpeechBubble(QFrame):
    """Shows the phase label, then her streaming reply; hides itself after a while."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("speechBubble")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 10, 14, 12)
        self.phase = ShimmerLabel()
        self.label = QLabel(objectName="speechText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # her words are model output
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.phase)
        layout.addWidget(self.label)
        self._hide_timer = QTimer(self, singleShot=True, timeout=self.hide)
        self.hide()

    def show_phase(self, phase: str) -> None:
        self._hide_timer.stop()
        self.label.hide()
        self.phase.setText(phase_text(phase))
        self.phase.show()
        self._show()

    def show_text(self, text: str) -> None:
        if not text.strip():
            return
        self._hide_timer.stop()
        self.phase.hide()
        self.label.setText(tail_of(text))
        self.label.show()
        self._show()

    def finish(self, text: str, error: bool = False) -> None:
        """The turn ended: show the final text (or the error) and hide after reading time."""
        self.setProperty("error", error)
        self.style().unpolish(self)
        self.style().polish(self)
        self.show_text(text)
        self._hide_timer.start(linger_ms(text))

    def _show(self) -> None:
        self.adjustSize()
        self.show()
        self.raise_()


class CompactInput(QLineEdit):
    """A one-line box under her: Enter sends; Escape hides it."""

    submitted = Signal(str)
    dismissed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compactInput")
        self.setPlaceholderText("Talk to her…")
        self.returnPressed.connect(self._submit)

    def _submit(self) -> None:
        text = self.text().strip()
        if text:
            self.clear()
            self.submitted.emit(text)

    def keyPressEvent(self, event) -> None:  # noqa: N802, ANN001
        if event.key() == Qt.Key.Key_Escape:
            self.dismissed.emit()
            return
        super().keyPressEvent(event)
