"""The photo viewer of the photoboard: one kept photo, full size, with her note and the date.

The photo is scaled to fit the dialog (and again when it is resized); a missing or
damaged file says so instead. "Edit note…" asks the board (``edit_requested``) to
open the note dialog; the board calls ``show_note`` once the note is stored. An
empty note reads as a muted "No note". ``when_text``, ``note_text`` and
``show_note_on`` format a keepsake's date and note for the viewer and the board's
cards; ``read_bytes`` and ``kept_thumbnails`` read the kept files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.keepsakes import Keepsake, list_keepsakes

#: Characters of her note the viewer shows at most.
NOTE_MAX = 2000
#: What the viewer shows for an empty note (muted).
NO_NOTE = "No note"

VIEWER_STYLE = """
#viewerNote { font-size: 14px; }
#viewerNote[empty="true"] { color: #b3a6bc; font-style: italic; }
"""


def when_text(keepsake: Keepsake) -> str:
    """The keepsake's date in local time, e.g. "03 March 2026, 14:05"."""
    try:
        return keepsake.created_at.astimezone().strftime("%d %B %Y, %H:%M")
    except (AttributeError, ValueError, OverflowError):
        return ""


def note_text(keepsake: Keepsake, limit: int = NOTE_MAX, *, keep_lines: bool = False) -> str:
    """Her note as plain text cut to ``limit`` characters (>= 1): runs of spaces become
    one; line breaks too, unless ``keep_lines`` (then empty lines are dropped)."""
    raw = str(keepsake.note or "")
    if keep_lines:
        lines = (" ".join(line.split()) for line in raw.splitlines())
        note = "\n".join(line for line in lines if line)
    else:
        note = " ".join(raw.split())
    limit = max(1, limit)
    return note if len(note) <= limit else note[: limit - 1] + "…"


def show_note_on(label: QLabel, keepsake: Keepsake, limit: int, empty: str, *,
                 keep_lines: bool = False) -> None:
    """Put ``keepsake``'s note (``limit`` characters at most) on ``label``; ``empty``, muted
    (the label's ``empty`` property, styled by the sheets), when there is none."""
    note = note_text(keepsake, limit, keep_lines=keep_lines)
    label.setText(note or empty)
    label.setProperty("empty", not note)
    label.style().unpolish(label)
    label.style().polish(label)


def read_bytes(path: Path) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except (OSError, TypeError):
        return None


def kept_thumbnails(service: Any) -> dict[int, bytes]:
    """Thumbnail bytes of the kept photos by the id of the turn they were shown in
    (for the chat history); empty when they cannot be read."""
    try:
        with service.db.read_session() as session:
            keepsakes = list_keepsakes(session, Path(service.db.path).parent)
    except StorageError:
        return {}
    photos: dict[int, bytes] = {}
    for keepsake in keepsakes:
        data = read_bytes(keepsake.thumbnail_path)
        if data and keepsake.turn_id is not None:
            photos[keepsake.turn_id] = data
    return photos


class PhotoViewer(QDialog):
    """The full photo, scaled to fit the dialog, with her note, the date and "Edit note…"."""

    edit_requested = Signal(object)  # the keepsake shown

    def __init__(self, keepsake: Keepsake, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.keepsake = keepsake
        self.setWindowTitle(f"Photo · {when_text(keepsake)}")
        self.setStyleSheet(VIEWER_STYLE)
        self.resize(820, 680)
        layout = QVBoxLayout(self)
        self.image = QImage(str(keepsake.image_path))
        self.picture = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(200, 160)
        if self.image.isNull():
            self.picture.setText("This photo could not be opened (the file is missing or damaged).")
        layout.addWidget(self.picture, 1)
        self.note = QLabel(objectName="viewerNote", wordWrap=True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.note)
        row = QHBoxLayout()
        row.addWidget(QLabel(when_text(keepsake), objectName="viewerDate"), 1)
        self.edit_button = QPushButton("Edit note…", objectName="secondaryButton")
        self.edit_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.edit_button.setAutoDefault(False)
        self.edit_button.clicked.connect(lambda: self.edit_requested.emit(self.keepsake))
        row.addWidget(self.edit_button)
        layout.addLayout(row)
        self.show_note(keepsake)

    def show_note(self, keepsake: Keepsake) -> None:
        """Show ``keepsake``'s note (after an edit); a muted "No note" when empty."""
        self.keepsake = keepsake
        show_note_on(self.note, keepsake, NOTE_MAX, NO_NOTE, keep_lines=True)

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        if not self.image.isNull():
            size = self.picture.size()
            scaled = self.image.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation)
            pixmap = QPixmap.fromImage(scaled)
            self.picture.setPixmap(pixmap)
