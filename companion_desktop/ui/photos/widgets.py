"""How a photo looks in the GUI: rounded pictures, the paperclip, the staged-photo chip
and the drop highlight.

``rounded_pixmap`` scales encoded image bytes into a box with rounded corners (the
chip, the transcript's bubbles, the photoboard's cards). ``PhotoChip`` is the staged
photo above the message box; ``DropHint`` the highlight shown while a photo is
dragged over a window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.ui.plain import plain, plain_tip

if TYPE_CHECKING:
    from companion_desktop.pipeline.images import PreparedImage

#: The chip's thumbnail edge, in pixels.
CHIP_THUMB = 52
#: The screen preview's box (width, height), in pixels.
PREVIEW_BOX = (240, 150)
SCREEN_STATUS = "Nothing leaves your computer until you press Send. Add a message if you like."

CHIP_STYLE = """
#photoChip { background: #f6eefa; border: 1px solid #e3d3ee; border-radius: 12px; }
#chipName { color: #5b3a6e; font-weight: 600; }
#chipStatus { color: #8a7d93; font-size: 12px; }
#chipThumb { background: #eadff0; border-radius: 8px; color: #b3a6bc; }
#chipClose { background: transparent; color: #8a7d93; border: none; font-size: 16px;
  padding: 0 6px; }
#chipClose:hover { color: #c0354f; }
#screenPreview { background: #222; border-radius: 8px; }
#screenSend { background: #8e4fb8; color: white; border: none; border-radius: 12px;
  padding: 5px 16px; font-weight: 600; }
#screenCancel { background: white; color: #5b3a6e; border: 1px solid #e3d3ee;
  border-radius: 12px; padding: 5px 14px; }
"""
DROP_STYLE = """
#dropHint { background: rgba(184, 106, 214, 38); border: 3px dashed #b86ad6; border-radius: 18px;
  color: #7a3ea1; font-size: 20px; font-weight: 600; }
"""


# ------------------------------------------------------------------ pictures
def rounded_pixmap(data: bytes | None, max_w: int, max_h: int, radius: float = 10.0,
                   fill: bool = False) -> QPixmap | None:
    """Encoded image ``data`` scaled to fit ``max_w`` x ``max_h`` pixels (with ``fill``:
    to cover exactly that box, cropped from the centre) with rounded corners
    (``radius`` pixels), or None when it does not decode."""
    if not data:
        return None
    image = QImage.fromData(data)
    if image.isNull():
        return None
    width, height = max(1, max_w), max(1, max_h)
    aspect = Qt.AspectRatioMode
    mode = aspect.KeepAspectRatioByExpanding if fill else aspect.KeepAspectRatio
    image = image.scaled(width, height, mode, Qt.TransformationMode.SmoothTransformation)
    if fill:
        left, top = (image.width() - width) // 2, (image.height() - height) // 2
        image = image.copy(left, top, width, height)
    return round_corners(image, radius)


def round_corners(image: QImage, radius: float) -> QPixmap:
    """``image`` clipped to a rounded rectangle on a transparent background."""
    out = QPixmap(image.size())
    out.fill(Qt.GlobalColor.transparent)
    painter = QPainter(out)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    path = QPainterPath()
    path.addRoundedRect(QRectF(0, 0, image.width(), image.height()), radius, radius)
    painter.setClipPath(path)
    painter.drawImage(0, 0, image)
    painter.end()
    return out


def paperclip_icon(size: int = 20, color: str = "#7a3ea1") -> QIcon:
    """A drawn paperclip (no emoji font needed), ``size`` logical pixels square."""
    scale = 2  # drawn at twice the size, so it stays crisp on HiDPI screens
    pixmap = QPixmap(size * scale, size * scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size * scale / 24, size * scale / 24)
    painter.translate(12, 12)
    painter.rotate(40)
    painter.translate(-12, -12)
    pen = QPen(QColor(color), 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap,
               Qt.PenJoinStyle.RoundJoin)
    painter.setPen(pen)
    path = QPainterPath()
    path.moveTo(14, 8)
    path.lineTo(14, 17)
    path.arcTo(QRectF(10, 15, 4, 4), 0, -180)
    path.lineTo(10, 5)
    path.arcTo(QRectF(10, 2, 6, 6), 180, -180)
    path.lineTo(16, 18)
    path.arcTo(QRectF(8, 14, 8, 8), 0, -180)
    path.lineTo(8, 8)
    painter.drawPath(path)
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return QIcon(pixmap)


# ------------------------------------------------------------------ widgets
class PhotoChip(QFrame):
    """The staged photo: thumbnail, file name, a status line and × to remove it.

    A picture of the user's screen shows as a preview strip instead: a larger picture,
    Send and Cancel, and Keep (on the photoboard; off by default)."""

    removed = Signal()
    send_requested = Signal()
    keep_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("photoChip")
        self.setStyleSheet(CHIP_STYLE)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 6, 6, 6)
        row.setSpacing(10)
        self.thumb = QLabel(objectName="chipThumb", alignment=Qt.AlignmentFlag.AlignCenter)
        self.thumb.setFixedSize(CHIP_THUMB, CHIP_THUMB)
        row.addWidget(self.thumb)
        column = QVBoxLayout()
        column.setSpacing(2)
        self.name_label = QLabel(objectName="chipName")
        self.name_label.setTextFormat(Qt.TextFormat.PlainText)
        self.status = plain(QLabel(objectName="chipStatus"))  # names the file's format
        column.addStretch(1)
        column.addWidget(self.name_label)
        column.addWidget(self.status)
        column.addStretch(1)
        row.addLayout(column, 1)
        self.close_button = QPushButton("×", objectName="chipClose")
        self.close_button.setToolTip("Don't show this photo")
        self.close_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.close_button.clicked.connect(self.removed.emit)
        row.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        self._screen_parts(row, column)
        self.hide()

    def _screen_parts(self, row: QHBoxLayout, column: QVBoxLayout) -> None:
        """The preview strip's parts (hidden while a photo is staged)."""
        self.preview = QLabel(objectName="screenPreview", alignment=Qt.AlignmentFlag.AlignCenter)
        self.preview.setFixedSize(*PREVIEW_BOX)
        row.insertWidget(0, self.preview)
        self.keep_box = QCheckBox("Keep it on the photoboard", objectName="screenKeep")
        self.keep_box.toggled.connect(self.keep_changed.emit)
        buttons = QHBoxLayout()
        self.send_button = QPushButton("Send", objectName="screenSend")
        self.cancel_button = QPushButton("Cancel", objectName="screenCancel")
        for button in (self.send_button, self.cancel_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.send_button.clicked.connect(self.send_requested.emit)
        self.cancel_button.clicked.connect(self.removed.emit)
        column.insertWidget(column.count() - 1, self.keep_box)
        column.insertLayout(column.count() - 1, buttons)
        self._screen_mode(False)

    def _screen_mode(self, on: bool) -> None:
        self.screen = on
        self.thumb.setVisible(not on)
        self.close_button.setVisible(not on)
        for part in (self.preview, self.keep_box, self.send_button, self.cancel_button):
            part.setVisible(on)
        if on:
            self.keep_box.setChecked(False)

    def show_preparing(self, name: str) -> None:
        self._screen_mode(False)
        self._set_name(name)
        self.thumb.clear()
        self.thumb.setText("…")
        self.status.setText("Preparing photo…")
        self.show()

    def show_ready(self, image: PreparedImage) -> None:
        self._set_name(image.source_name)
        if image.screen is not None:
            self._screen_mode(True)
            pixmap = rounded_pixmap(image.thumbnail, *PREVIEW_BOX, 8)
            if pixmap is not None:
                self.preview.setPixmap(pixmap)
            self.status.setText(SCREEN_STATUS)
            self.show()
            return
        self._screen_mode(False)
        pixmap = rounded_pixmap(image.thumbnail, CHIP_THUMB, CHIP_THUMB, 8, fill=True)
        if pixmap is not None:
            self.thumb.setPixmap(pixmap)
        note = f"{image.width} × {image.height}"
        wire = image.mime_type.split("/")[-1].upper()
        if image.converted and image.original_format.upper() != wire:  # HEIF, BMP, TIFF…
            note += f", converted from {image.original_format}"
        self.status.setText(f"Ready to show her · {note}")
        self.show()

    def _set_name(self, name: str) -> None:
        shown = name if len(name) <= 60 else name[:57] + "…"
        self.name_label.setText(shown)
        self.name_label.setToolTip(plain_tip(name))


class DropHint(QLabel):
    """The highlight over a window while a photo is dragged onto it."""

    def __init__(self, parent: QWidget, text: str = "Show her this photo") -> None:
        super().__init__(text, parent)
        self.setObjectName("dropHint")
        self.setStyleSheet(DROP_STYLE)
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.hide()

    def cover(self, on: bool = True) -> None:
        """Show over the whole parent, a few pixels in from its edges (hide: ``on`` False)."""
        if not on:
            self.hide()
            return
        self.setGeometry(self.parentWidget().rect().adjusted(8, 8, -8, -8))
        self.show()
        self.raise_()

