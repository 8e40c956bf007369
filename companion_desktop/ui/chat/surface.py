"""What the chat window's collaborators may use of it, as small protocols.

``ChatPhotos`` (the photo flow) and ``ChatTurns`` (the turns in the transcript) are owned
by ``ChatWindow`` and work on parts of it; they name those parts here instead of
importing the window, so the window imports them and nothing imports the window back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QLabel, QWidget

    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.ui.chat.backend import ChatBackend
    from companion_desktop.ui.chat.state_panel import StatePanel
    from companion_desktop.ui.chat.tools import ToolActivity
    from companion_desktop.ui.chat.transcript import Transcript


class PhotoSurface(Protocol):
    """The parts of the window the photo flow uses: it stages photos in ``chip``, tells
    of problems in ``transcript`` and through ``photo_problem``, and asks ``backend``
    whether the model can see."""

    service: CompanionService
    backend: ChatBackend
    transcript: Transcript
    input: QWidget
    chip: Any  # photos.widgets.PhotoChip
    photo_problem: SignalInstance

    @property
    def busy(self) -> bool: ...

    def open_settings(self) -> None: ...


class KeptPhotos(Protocol):
    """What a turn needs of the photo flow: the photos shown with a message, and the
    keepsake a finished turn saved."""

    def shown_with(self, message: str) -> tuple[bytes | None, bool]: ...

    def screen_shown(self) -> str | None: ...

    def kept(self, result: object) -> None: ...


class TurnSurface(Protocol):
    """The parts of the window the turn display uses."""

    service: CompanionService
    clock: Callable[[], datetime]
    transcript: Transcript
    panel: StatePanel
    title: QLabel
    tools: ToolActivity
    photos: KeptPhotos

    @property
    def busy(self) -> bool: ...

    def retry(self) -> None: ...

    def refresh(self) -> None: ...

    def play_event(self, event: Any) -> None: ...

    def open_settings(self) -> None: ...
