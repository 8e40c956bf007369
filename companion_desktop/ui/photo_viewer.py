"""The photo viewer of the photoboard: one kept photo, full size, with her note and the date.

The photo is scaled to fit the dialog (and again when it is resized); a missing or
damaged file says so instead. ``when_text`` and ``note_text`` format a keepsake's
date and note for the viewer and the board's cards.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from companion_desktop.storage.keepsakes import Keepsake

#: Characters of her note the viewer shows at most.
NOTE_MAX = 2000


def when_text(keepsake: Keepsake) -> str:
    """The keepsake's date in local time, e.g. "03 March 2026, 14:05"."""
    try:
        return keepsake.created_at.astimezone().strftime("%d %B %Y, %H:%M")
    except (AttributeError, ValueError, OverflowError):
        return ""


def note_text(keepsake: Keepsake, limit: int = NOTE_MAX) -> str:
    """Her note (model output: plain text, cut to ``limit`` characters)."""
    note = " ".join(str(keepsake.note or "").split())
    return note if len(note) <= limit else note[: limit - 1] + "…"


class PhotoViewer(QDialog):
    """The full photo, scaled to fit the dialog, with her note and the date."""

    def __init__(self, keepsake: Keepsake, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Photo · {when_text(keepsake)}")
        self.resize(820, 680)
        layout = QVBoxLayout(self)
        self.image = QImage(str(keepsake.image_path))
        self.picture = QLabel(alignment=Qt.AlignmentFlag.AlignCenter)
        self.picture.setMinimumSize(200, 160)
        if self.image.isNull():
            self.picture.setText("This photo could not be opened (the file is missing or damaged).")
        layout.addWidget(self.picture, 1)
        note = QLabel(note_text(keepsake), wordWrap=True)
        note.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(note)
        layout.addWidget(QLabel(when_text(keepsake), objectName="viewerDate"))

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        if not self.image.isNull():
            size = self.picture.size()
            scaled = self.image.scaled(size, Qt.AspectRatioMode.KeepAspectRatio,
                                       Qt.TransformationMode.SmoothTransformation)
            pixmap = QPixmap.fromImage(scaled)
            self.picture.setPixmap(pixmap)
