"""Showing her a photo from the GUI: where a photo comes from, and how a staged one looks.

A photo arrives from the paperclip's file dialog, a drop (local image files or image
data) or a paste (an image, or an image file copied in a file manager).
``image_from_mime`` turns QMimeData into a *source*: a local path (str), encoded
bytes, or a QImage (encoded to PNG off the GUI thread). ``PhotoStage`` hands the
source to ``pipeline.images`` on a pool thread (checks, downsizing, conversion take
up to ~0.5 s) and reports the ``PreparedImage`` or the user-facing refusal.
``PhotoChip`` is the staged photo above the message box; ``DropHint`` the highlight
shown while a photo is dragged over a window.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Union

from collections.abc import Callable

from PySide6.QtCore import (
    QBuffer,
    QByteArray,
    QEvent,
    QIODevice,
    QMimeData,
    QObject,
    QRectF,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QImage, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.images import (
    ImageRefused,
    PreparedImage,
    prepare_image_bytes,
    prepare_image_file,
)
from companion_desktop.ui.background import run_in_background

#: File name endings taken as photos (drops, pasted files); decoding decides the rest.
IMAGE_SUFFIXES = frozenset({
    ".png", ".jpg", ".jpeg", ".jpe", ".jfif", ".gif", ".webp", ".bmp", ".heic", ".heif",
    ".avif", ".tif", ".tiff",
})
FILE_FILTER = ("Photos (" + " ".join(f"*{s}" for s in sorted(IMAGE_SUFFIXES)) + ");;All files (*)")
#: Clipboard/drop formats passed on as they are (already a wire format).
DIRECT_FORMATS = ("image/png", "image/jpeg", "image/gif", "image/webp")
PASTED_NAME = "pasted image"
#: The chip's thumbnail edge, in pixels.
CHIP_THUMB = 52

Source = Union[str, bytes, QImage]

CHIP_STYLE = """
#photoChip { background: #f6eefa; border: 1px solid #e3d3ee; border-radius: 12px; }
#chipName { color: #5b3a6e; font-weight: 600; }
#chipStatus { color: #8a7d93; font-size: 12px; }
#chipThumb { background: #eadff0; border-radius: 8px; color: #b3a6bc; }
#chipClose { background: transparent; color: #8a7d93; border: none; font-size: 16px;
  padding: 0 6px; }
#chipClose:hover { color: #c0354f; }
"""
DROP_STYLE = """
#dropHint { background: rgba(184, 106, 214, 38); border: 3px dashed #b86ad6; border-radius: 18px;
  color: #7a3ea1; font-size: 20px; font-weight: 600; }
"""


# ------------------------------------------------------------------ sources
def image_path_in(mime: QMimeData) -> str | None:
    """The first local file in ``mime`` whose name ends like a photo, else None."""
    if not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in IMAGE_SUFFIXES:
            return url.toLocalFile()
    return None


def mime_has_image(mime: QMimeData | None) -> bool:
    """Whether ``mime`` carries a photo (a local image file or image data)."""
    if mime is None:
        return False
    if image_path_in(mime) is not None:
        return True
    return any(mime.hasFormat(f) for f in DIRECT_FORMATS) or mime.hasImage()


def image_from_mime(mime: QMimeData | None, name: str = PASTED_NAME) -> tuple[Source, str] | None:
    """``(source, name)`` of the photo in ``mime``, or None when it has none.

    A local file wins (its own name); then encoded data of a wire format (kept as
    it is); then any image Qt decoded (a QImage, encoded later off the GUI thread).
    """
    if mime is None:
        return None
    path = image_path_in(mime)
    if path is not None:
        return path, Path(path).name
    for fmt in DIRECT_FORMATS:
        if mime.hasFormat(fmt):
            data = bytes(mime.data(fmt).data())
            if data:
                return data, name
    if mime.hasImage():
        image = mime.imageData()
        if isinstance(image, QPixmap):
            image = image.toImage()
        if isinstance(image, QImage) and not image.isNull():
            return QImage(image), name
    return None


def png_bytes(image: QImage) -> bytes:
    """``image`` encoded as PNG (empty bytes when it cannot be encoded)."""
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(array.data())


def as_path_or_bytes(source: Source) -> str | bytes:
    """A QImage source encoded to PNG; paths and bytes unchanged."""
    return png_bytes(source) if isinstance(source, QImage) else source


def prepare_source(source: Source, name: str) -> PreparedImage:
    """Check and convert a photo for sending; ImageRefused says why it cannot be shown."""
    if isinstance(source, QImage):
        data = png_bytes(source) if not source.isNull() else b""
        if not data:
            raise ImageRefused("This image could not be read.")
        return prepare_image_bytes(data, name)
    if isinstance(source, bytes):
        return prepare_image_bytes(source, name)
    return prepare_image_file(Path(source))


def choose_image_file(parent: QWidget | None) -> str | None:
    """Ask for a photo with the system file dialog; the path, or None when cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Show her a photo", str(Path.home()), FILE_FILTER)
    return path or None


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
    """The staged photo: thumbnail, file name, a status line and × to remove it."""

    removed = Signal()

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
        self.status = QLabel(objectName="chipStatus")
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
        self.hide()

    def show_preparing(self, name: str) -> None:
        self._set_name(name)
        self.thumb.clear()
        self.thumb.setText("…")
        self.status.setText("Preparing photo…")
        self.show()

    def show_ready(self, image: PreparedImage) -> None:
        self._set_name(image.source_name)
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
        self.name_label.setToolTip(name)


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


class DropTarget(QObject):
    """Makes ``widget`` take dropped photos: ``on_drop(source, name)`` on a drop, and
    ``hint(True)`` while a photo hovers (``hint(False)`` when it leaves or lands).

    Works as an event filter, so the widget needs no drag handlers of its own;
    anything that is not a photo is left to the widget.
    """

    def __init__(self, widget: QWidget, on_drop: Callable[[Source, str], None],
                 hint: Callable[[bool], None] | None = None) -> None:
        super().__init__(widget)
        self.on_drop = on_drop
        self.hint = hint or (lambda _on: None)
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            if not mime_has_image(event.mimeData()):
                return False
            event.acceptProposedAction()
            self.hint(True)
            return True
        if kind == QEvent.Type.DragLeave:
            self.hint(False)
            return False
        if kind == QEvent.Type.Drop:
            found = image_from_mime(event.mimeData(), "dropped image")
            self.hint(False)
            if found is None:
                return False
            event.acceptProposedAction()
            self.on_drop(*found)
            return True
        return False


class PhotoStage(QObject):
    """The photo of the next message: ``stage`` prepares it on a pool thread.

    ``prepared`` is the ready ``PreparedImage`` (None while none is staged or while
    one is ``preparing``). A newer ``stage`` or ``clear`` drops a preparation still
    running. ``ready`` fires with the image; ``refused`` with the user-facing message
    (then nothing is staged).
    """

    ready = Signal(object)
    refused = Signal(str)
    changed = Signal()

    def __init__(self, chip: PhotoChip, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.chip = chip
        self.prepared: PreparedImage | None = None
        self.preparing = False
        self._generation = 0
        chip.removed.connect(self.clear)

    @property
    def staged(self) -> bool:
        return self.preparing or self.prepared is not None

    def stage(self, source: Source, name: str) -> None:
        self._generation += 1
        self.prepared, self.preparing = None, True
        self.chip.show_preparing(name)
        self.changed.emit()
        generation = self._generation
        run_in_background(self, partial(prepare_source, source, name),
                          partial(self._done, generation), partial(self._failed, generation))

    def clear(self) -> None:
        self._generation += 1
        self.prepared, self.preparing = None, False
        self.chip.hide()
        self.changed.emit()

    def _done(self, generation: int, image: PreparedImage) -> None:
        if generation != self._generation:
            return
        self.prepared, self.preparing = image, False
        self.chip.show_ready(image)
        self.changed.emit()
        self.ready.emit(image)

    def _failed(self, generation: int, error: Exception) -> None:
        if generation != self._generation:
            return
        self.clear()
        if isinstance(error, ImageRefused):
            self.refused.emit(str(error))
        else:
            self.refused.emit(f"This photo could not be opened ({type(error).__name__}: {error}).")
