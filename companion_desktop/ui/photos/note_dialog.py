"""The "Edit note…" dialog of the photoboard: her memory note on one kept photo.

A multi-line editor prefilled with the note, a counter of the characters used out
of ``NOTE_LIMIT`` (500, the storage bound; typing or pasting past it is cut at the
cursor), and Save / Cancel. Save calls the ``save`` function it was given with the
text; that function stores it (one transaction) and returns None, or a message for
the user when it could not, which the dialog shows while staying open with the
text kept. An empty note is allowed: it means "no note".
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.storage.keepsakes import NOTE_MAX as NOTE_LIMIT
from companion_desktop.storage.keepsakes import Keepsake, get_keepsake, set_note
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.style import STYLE_SHEET

__all__ = ["NOTE_LIMIT", "NoteDialog", "store_note", "trim_to_limit"]

NOTE_HINT = "Her memory of this photo, in her words. Leave it empty for none."
#: The counter turns amber at this many characters (of NOTE_LIMIT).
NEAR_LIMIT = 450

NOTE_STYLE = """
#noteTitle { font-size: 17px; font-weight: 600; color: #5b3a6e; }
#noteEditor { font-size: 14px; }
#noteEditor:focus { border: 1px solid #c99ae0; }
#noteCounter { color: #a093aa; font-size: 11px; }
#noteCounter[level="near"] { color: #b5761b; }
#noteCounter[level="full"] { color: #c0354f; font-weight: 600; }
"""


def utf16_units(text: str) -> int:
    """How many UTF-16 code units ``text`` takes (Qt's text positions count these)."""
    return len(text.encode("utf-16-le")) // 2


def chars_before(text: str, units: int) -> int:
    """The number of characters of ``text`` in its first ``units`` UTF-16 code units."""
    return len(text.encode("utf-16-le")[: max(0, units) * 2].decode("utf-16-le", "ignore"))


def trim_to_limit(text: str, cursor: int, limit: int = NOTE_LIMIT) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters (>= 0), and the new ``cursor`` (a character index).

    What is over the limit is taken from just before the cursor (what was typed or
    pasted last); when the cursor is too near the start, from the end instead.
    """
    limit = max(0, limit)
    cursor = min(max(0, cursor), len(text))
    over = len(text) - limit
    if over <= 0:
        return text, cursor
    if cursor >= over:
        return text[: cursor - over] + text[cursor:], cursor - over
    return text[:limit], min(cursor, limit)


def store_note(db: Any, data_dir: Path, keepsake_id: int, note: str | None) -> Keepsake | None:
    """Replace the note of keepsake ``keepsake_id`` in one transaction of ``db`` (a
    ``storage.db.Database``) and return the keepsake as stored (note bounded to
    NOTE_LIMIT characters; empty -> None); None when there is no such keepsake.
    Raises StorageError when the database refuses (then nothing changed)."""
    with db.session() as session:
        if not set_note(session, keepsake_id, note):
            return None
        return get_keepsake(session, data_dir, keepsake_id)


class NoteDialog(QDialog):
    """Edits one note; ``save(text)`` returns None when stored, else a message for the user.

    ``editor`` holds the text, ``counter`` shows "used / NOTE_LIMIT", ``status`` the
    last refusal; ``save_button`` and ``cancel_button`` end it (Ctrl+Return saves,
    Escape cancels).
    """

    def __init__(self, note: str | None, save: Callable[[str], str | None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._save = save
        self.setWindowTitle("Edit her note")
        self.setStyleSheet(STYLE_SHEET + NOTE_STYLE)
        self.setMinimumWidth(440)
        self.resize(480, 320)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(20, 18, 20, 16)
        layout.setSpacing(8)
        layout.addWidget(QLabel("Her note on this photo", objectName="noteTitle"))
        layout.addWidget(QLabel(NOTE_HINT, objectName="pageHint", wordWrap=True))
        self.editor = QPlainTextEdit(objectName="noteEditor")
        self.editor.setPlaceholderText("No note")
        self.editor.setTabChangesFocus(True)
        self.editor.setPlainText(str(note or "")[:NOTE_LIMIT])
        self.editor.moveCursor(QTextCursor.MoveOperation.End)
        self.editor.textChanged.connect(self._text_changed)
        self.editor.installEventFilter(self)
        layout.addWidget(self.editor, 1)
        self.counter = QLabel(objectName="noteCounter", alignment=Qt.AlignmentFlag.AlignRight)
        layout.addWidget(self.counter)
        self.status = plain_label(objectName="statusLine", wordWrap=True)  # storage errors
        self.status.setProperty("kind", "error")
        self.status.hide()
        layout.addWidget(self.status)
        layout.addLayout(self._buttons())
        self._show_count()
        self.editor.setFocus()

    def _buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addStretch(1)
        self.cancel_button = QPushButton("Cancel", objectName="secondaryButton")
        self.cancel_button.clicked.connect(self.reject)
        self.save_button = QPushButton("Save", objectName="primaryButton")
        self.save_button.clicked.connect(self.save)
        for button in (self.cancel_button, self.save_button):
            button.setAutoDefault(False)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            row.addWidget(button)
        return row

    def text(self) -> str:
        """The note as typed (at most NOTE_LIMIT characters)."""
        return self.editor.toPlainText()

    def save(self) -> bool:
        """Store the text through ``save``: closes on success; on a refusal shows the
        message and stays open with the text kept. True when stored."""
        message = self._save(self.text())
        if message:
            self.status.setText(message)
            self.status.show()
            return False
        self.status.hide()
        self.accept()
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Ctrl+Return (or Ctrl+Enter) in the editor saves; plain Return is a new line."""
        if (watched is self.editor and event.type() == QEvent.Type.KeyPress
                and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and event.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.save()
            return True
        return super().eventFilter(watched, event)

    def _text_changed(self) -> None:
        text = self.editor.toPlainText()
        if len(text) > NOTE_LIMIT:
            position = chars_before(text, self.editor.textCursor().position())
            text, position = trim_to_limit(text, position)
            self.editor.setPlainText(text)  # emits textChanged again, now within the limit
            cursor = self.editor.textCursor()
            cursor.setPosition(utf16_units(text[:position]))
            self.editor.setTextCursor(cursor)
            return
        self._show_count()

    def _show_count(self) -> None:
        used = len(self.editor.toPlainText())
        self.counter.setText(f"{used} / {NOTE_LIMIT} characters")
        level = "full" if used >= NOTE_LIMIT else "near" if used >= NEAR_LIMIT else ""
        if self.counter.property("level") != level:
            self.counter.setProperty("level", level)
            self.counter.style().unpolish(self.counter)
            self.counter.style().polish(self.counter)
