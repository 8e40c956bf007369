"""Showing her a photo from the GUI: where a photo comes from, and how it is prepared.

A photo arrives from the paperclip's file dialog, a drop (local image files or image
data) or a paste (an image, or an image file copied in a file manager).
``image_from_mime`` turns QMimeData into a *source*: a local path (str), encoded
bytes, or a QImage (encoded to PNG off the GUI thread). ``DropTarget`` takes dropped
photos for a widget. ``PhotoStage`` hands the source to ``pipeline.images`` on a pool
thread (checks, downsizing, conversion take up to ~0.5 s) and reports the
``PreparedImage`` or the user-facing refusal. How a staged photo looks (``PhotoChip``,
``DropHint``, ``rounded_pixmap``, ``paperclip_icon``) lives in ``ui.photo_widgets``
and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Union

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QMimeData, QObject, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QFileDialog, QWidget

from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.photos.widgets import (  # re-exported: imported from here elsewhere
    CHIP_STYLE,
    CHIP_THUMB,
    DROP_STYLE,
    DropHint,
    PhotoChip,
    paperclip_icon,
    round_corners,
    rounded_pixmap,
)

if TYPE_CHECKING:  # Pillow and numpy load with the first photo, not with the window
    from companion_desktop.pipeline.images import PreparedImage

__all__ = [
    "CHIP_STYLE", "CHIP_THUMB", "DIRECT_FORMATS", "DROP_STYLE", "FILE_FILTER", "IMAGE_SUFFIXES",
    "PASTED_NAME", "DropHint", "DropTarget", "PhotoChip", "PhotoStage", "Source",
    "as_path_or_bytes", "card_path_in", "choose_image_file", "image_from_mime", "image_path_in",
    "mime_has_image", "paperclip_icon", "png_bytes", "prepare_source", "round_corners",
    "rounded_pixmap",
]

#: File name endings taken as photos (drops, pasted files); decoding decides the rest.
IMAGE_SUFFIXES = frozenset({
    ".png", ".jpg", ".jpeg", ".jpe", ".jfif", ".gif", ".webp", ".bmp", ".heic", ".heif",
    ".avif", ".tif", ".tiff",
})
FILE_FILTER = ("Photos (" + " ".join(f"*{s}" for s in sorted(IMAGE_SUFFIXES)) + ");;All files (*)")
#: Clipboard/drop formats passed on as they are (already a wire format).
DIRECT_FORMATS = ("image/png", "image/jpeg", "image/gif", "image/webp")
PASTED_NAME = "pasted image"

Source = Union[str, bytes, QImage]


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


def prepare_source(source: Source, name: str, screen: str | None = None) -> PreparedImage:
    """Check and convert a photo for sending; ImageRefused says why it cannot be shown.
    ``screen``: a picture of the user's screen (not kept unless the user keeps it)."""
    image = _prepare_source(source, name)
    return replace(image, screen=screen, keep=False) if screen is not None else image


def _prepare_source(source: Source, name: str) -> PreparedImage:
    from companion_desktop.pipeline.images import (
        ImageRefused,
        prepare_image_bytes,
        prepare_image_file,
    )

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


# ------------------------------------------------------------------ drops and staging
def card_path_in(mime: QMimeData | None) -> str | None:
    """The first local file in ``mime`` named like a character card (.png, .json,
    .charx); whether it is one is told by its content when it lands."""
    from companion_desktop.storage.card_file import SUFFIXES

    if mime is None or not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).suffix.lower() in SUFFIXES:
            return url.toLocalFile()
    return None


class DropTarget(QObject):
    """Makes ``widget`` take dropped photos: ``on_drop(source, name)`` on a drop, and
    ``hint(True)`` while a photo hovers (``hint(False)`` when it leaves or lands).
    With ``on_card``, a dropped character card file (a PNG with a card chunk, a card or
    lorebook JSON, a CHARX: told apart by content) goes to ``on_card(path)`` instead.

    Works as an event filter, so the widget needs no drag handlers of its own;
    anything that is not a photo is left to the widget.
    """

    def __init__(self, widget: QWidget, on_drop: Callable[[Source, str], None],
                 hint: Callable[[bool], None] | None = None,
                 on_card: Callable[[str], None] | None = None) -> None:
        super().__init__(widget)
        self.on_drop = on_drop
        self.on_card = on_card
        self.hint = hint or (lambda _on: None)
        widget.setAcceptDrops(True)
        widget.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            card = self.on_card is not None and card_path_in(event.mimeData()) is not None
            if not card and not mime_has_image(event.mimeData()):
                return False
            event.acceptProposedAction()
            self.hint(True)
            return True
        if kind == QEvent.Type.DragLeave:
            self.hint(False)
            return False
        if kind == QEvent.Type.Drop:
            self.hint(False)
            if self.on_card is not None and self._card(event.mimeData()):
                event.acceptProposedAction()
                return True
            found = image_from_mime(event.mimeData(), "dropped image")
            if found is None:
                return False
            event.acceptProposedAction()
            self.on_drop(*found)
            return True
        return False


    def _card(self, mime: QMimeData) -> bool:
        """Hand a dropped card file to ``on_card``; False when it is none."""
        from companion_desktop.storage.card_file import is_card_file

        path = card_path_in(mime)
        if path is None or self.on_card is None or not is_card_file(path):
            return False
        self.on_card(path)
        return True


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
        chip.keep_changed.connect(self.set_keep)
        self.prepared: PreparedImage | None = None
        self.preparing = False
        self._generation = 0
        chip.removed.connect(self.clear)

    @property
    def staged(self) -> bool:
        return self.preparing or self.prepared is not None

    def stage(self, source: Source, name: str, screen: str | None = None) -> None:
        """Prepare ``source`` for the next message. ``screen``: it is a picture of the
        user's screen showing that ("Firefox", "your screen"): staged as a preview
        with Send and Cancel, and not kept unless the user ticks Keep."""
        self._generation += 1
        self.prepared, self.preparing = None, True
        self.chip.show_preparing(name)
        self.changed.emit()
        generation = self._generation
        run_in_background(self, partial(prepare_source, source, name, screen),
                          partial(self._done, generation), partial(self._failed, generation))

    def set_keep(self, keep: bool) -> None:
        """Keep the staged screen picture on the photoboard (or not) once sent."""
        if self.prepared is not None and self.prepared.screen is not None:
            self.prepared = replace(self.prepared, keep=keep)

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
        from companion_desktop.pipeline.images import ImageRefused

        if isinstance(error, ImageRefused):
            self.refused.emit(str(error))
        else:
            self.refused.emit(f"This photo could not be opened ({type(error).__name__}: {error}).")
