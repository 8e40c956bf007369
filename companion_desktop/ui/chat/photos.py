"""The chat window's photo flow: staging, gating, the privacy notice and the photoboard.

Showing her a photo: the paperclip, a drop anywhere on the window, or a paste
stages it (prepared off the GUI thread) in a chip above the box; Send sends it
with the text, or alone. A text-only model gets a notice to switch instead; the
first photo per provider gets the privacy notice. The Photoboard (header button)
keeps every photo shown. ``ChatPhotos`` is owned by the chat window, which keeps
the public methods (``show_image``, ``stage_image``, ``choose_photo``,
``open_photoboard``) and the ``photo_problem`` signal and hands them to it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from companion_desktop.pipeline.memory import PHOTO_MARK as SHOW_ONLY_TEXT  # = pipeline.runner's
from companion_desktop.ui.card_import import CardImporter
from companion_desktop.ui.chat.transcript import Notice
from companion_desktop.ui.photos import DropHint, DropTarget, PhotoStage, Source, choose_image_file

if TYPE_CHECKING:
    from companion_desktop.pipeline.images import PreparedImage
    from companion_desktop.ui.chat.surface import PhotoSurface
    from companion_desktop.ui.photos import PhotoboardWindow

def _now() -> datetime:
    return datetime.now().astimezone()


BUSY_TEXT = "She's still answering. The photo is ready in the chat; send it when she's done."
NO_MODEL_TEXT = "No language model is set up yet."


class ChatPhotos(QObject):
    """The photo side of ``window`` (the chat window, as ``surface.PhotoSurface``):
    its chip's ``stage``, the drop ``hint`` and
    ``target``, the gating notice and the photoboard ``board`` (None until opened).

    ``send(image)`` starts a photo-only turn with a prepared image. The window's
    ``transcript``, ``backend``, ``busy``, ``input``, ``service``,
    ``open_settings`` and ``photo_problem`` are used as they are.
    """

    def __init__(self, window: PhotoSurface, send: Callable[[PreparedImage], object]) -> None:
        super().__init__(window)
        self.window = window
        self.send = send
        self.board: PhotoboardWindow | None = None
        self._then: Callable[[], None] | None = None  # what to do once it is prepared
        self._vision: Notice | None = None
        self.stage = PhotoStage(window.chip, window)
        self.stage.ready.connect(self._ready)
        self.stage.refused.connect(self._refused)
        self.hint = DropHint(window)
        self.target = DropTarget(window, self._dropped, self.hint.cover, on_card=self.card)
        self.cards = CardImporter(window.service.db, getattr(window, "clock", _now), window)
        self.cards.refused.connect(lambda text: window.transcript.add_notice(text, "error"))

    # ------------------------------------------------------------- staging
    def choose(self) -> None:
        """The paperclip: pick a photo with the system dialog and stage it."""
        path = choose_image_file(self.window)
        if path:
            self.stage_image(path, Path(path).name)

    def stage_image(self, source: Source, name: str) -> None:
        """Prepare a photo (path, bytes or QImage) for the next message; replaces a staged one."""
        self._then = None
        self.stage.stage(source, name)

    def stage_screen(self, source: Source, name: str, label: str) -> None:
        """Stage a picture of the user's screen showing ``label`` as a preview (sent only
        on Send, not kept unless the user ticks Keep); replaces a staged photo."""
        self._then = None
        self.stage.stage(source, name, screen=label)

    def show_image(self, source: Source, name: str, send_now: bool = False) -> None:
        """Stage a photo from elsewhere; with ``send_now`` it goes once prepared
        (see ``ChatWindow.show_image``)."""
        self.stage_image(source, name)
        if send_now:
            self._then = self._send_now

    def when_ready(self, then: Callable[[], None]) -> None:
        """Run ``then`` once the photo still preparing is ready (dropped on a refusal)."""
        self._then = then

    def shown_with(self, message: str) -> tuple[bytes | None, bool]:
        """``(thumbnail, photo_only)`` of the turn just started with ``message``."""
        image: Any = getattr(self.window.backend.controller, "current_image", None)
        thumbnail = image.thumbnail if image is not None else None
        return thumbnail, image is not None and message == SHOW_ONLY_TEXT

    def kept_now(self) -> bool:
        """Whether the picture of the turn just started is kept (like a photo)."""
        image: Any = getattr(self.window.backend.controller, "current_image", None)
        return bool(getattr(image, "keep", True)) if image is not None else False

    def screen_shown(self) -> str | None:
        """What of the screen the turn just started shows ("Firefox"), None for a photo."""
        image: Any = getattr(self.window.backend.controller, "current_image", None)
        return getattr(image, "screen", None) if image is not None else None

    def _send_now(self) -> None:
        backend = self.window.backend
        if self.window.busy:
            self.problem(BUSY_TEXT)
        elif not backend.ready:
            self.problem(backend.problem or NO_MODEL_TEXT)
        elif self.allowed():
            self.send(self.stage.prepared)

    def _ready(self, _image: object) -> None:
        then, self._then = self._then, None
        if then is not None:
            then()

    def _refused(self, message: str) -> None:
        self._then = None
        self.window.transcript.add_notice(message, "error")
        self.window.photo_problem.emit(message)

    def _dropped(self, source: Source, name: str) -> None:
        self.stage_image(source, name)
        self.window.input.setFocus()

    # ------------------------------------------------------------ character cards
    def card(self, path: str) -> None:
        """A character card dropped here or on her: ask, then import (``ui.card_import``;
        the window's ``greeting`` shows what came of it)."""
        self.cards.import_path(path)

    # -------------------------------------------------------------- gating
    def problem(self, message: str, actions: list | None = None) -> None:
        """Say why the staged photo was not sent (one notice, replaced) and emit it."""
        transcript = self.window.transcript
        transcript.remove(self._vision)
        self._vision = transcript.add_notice(message, "setup", actions)
        self.window.photo_problem.emit(message)

    def allowed(self) -> bool:
        """Vision gating, then the first-photo privacy notice; False keeps the photo staged."""
        backend, transcript = self.window.backend, self.window.transcript
        if not backend.can_show_images():
            self.problem(backend.vision_refusal(), [("Open Settings", self.window.open_settings)])
            return False
        transcript.remove(self._vision)
        self._vision = None
        notice = backend.photo_notice()
        if notice:
            transcript.add_notice(notice, "info")
        return True

    # ---------------------------------------------------------- photoboard
    def open_board(self) -> None:
        """Show the photoboard window (one, reused), up to date."""
        if self.board is None:
            from companion_desktop.ui.photos import PhotoboardWindow

            self.board = PhotoboardWindow(self.window.service, self.window)
        else:
            self.board.refresh()
        self.board.show()
        self.board.raise_()
        self.board.activateWindow()

    def kept(self, result: object) -> None:
        """A turn ended: an open board shows the photo it kept, if any."""
        if getattr(result, "keepsake", None) is not None and self.board is not None:
            self.board.refresh()
