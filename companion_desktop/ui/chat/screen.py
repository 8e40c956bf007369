""""Look at this": the chat's side of showing her the screen.

The eye button in the input row (click: the active window; its arrow: the whole screen),
her right-click menu, the global hotkey and ``ChatWindow.look_at_screen`` all come here.
One capture (``ui.desktop.take_screenshot``: the deny-list applied, her windows cut out)
is staged through the photo path as a preview strip: nothing leaves the machine until
Send (or Enter); Cancel drops it. A refusal or a failure is one clear line in the chat
(and on her, through ``photo_problem``); typing is untouched.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QIcon, QScreen

from companion_desktop.engine.screen_look import ACTIVE, FULL
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import ProactiveSettings, load_settings
from companion_desktop.ui.drawn import INK, drawn, paint_eye

if TYPE_CHECKING:
    from companion_desktop.ui.chat.photos import ChatPhotos

#: Wait before a capture so a menu or button press has gone from the screen (ms).
SETTLE_MS = 150


def eye_icon(size: int = 20, color: str = INK) -> QIcon:
    """A drawn eye, ``size`` logical pixels square."""
    return QIcon(drawn(size, lambda painter: paint_eye(painter, color, 2, 22, 1.8, 7)))


class ChatScreen(QObject):
    """Looks at the screen for ``photos``' window (a ``ChatWindow``)."""

    def __init__(self, photos: ChatPhotos) -> None:
        super().__init__(photos)
        self.photos = photos
        self.window: Any = photos.window  # the ChatWindow
        self.last_problem: str | None = None
        chip = self.window.chip
        chip.send_requested.connect(self._send)

    def look(self, mode: str = ACTIVE, screen: QScreen | None = None,
             settle_ms: int | None = None, bring_up: bool = False) -> None:
        """Capture ``mode`` ("active" or "full") on ``screen`` (None: the chat window's)
        after ``settle_ms`` (None: SETTLE_MS), and stage it for the user to send or
        cancel; ``bring_up`` shows the chat window once it is staged."""
        mode = FULL if mode == FULL else ACTIVE
        wait = SETTLE_MS if settle_ms is None else max(0, settle_ms)
        QTimer.singleShot(wait, lambda: self._look_now(mode, screen, bring_up))

    def _look_now(self, mode: str, screen: QScreen | None, bring_up: bool) -> None:
        if self.capture(mode, screen) and bring_up:
            window = self.window
            window.show()
            window.raise_()
            window.activateWindow()

    def capture(self, mode: str, screen: QScreen | None = None) -> bool:
        """Capture now; True when a picture was staged."""
        from companion_desktop.ui.desktop import ScreenRefused, take_screenshot

        try:
            with self.window.service.db.read_session() as session:
                deny = load_settings(session, ProactiveSettings).window_deny
        except StorageError as error:
            return self._refused(f"I couldn't read your privacy settings, so I didn't look "
                                 f"({error}).")
        target = screen or self.window.screen()
        try:
            shot = take_screenshot(mode, deny, target)
        except ScreenRefused as error:
            return self._refused(str(error))
        self.last_problem = None
        if shot.hidden:
            names = ", ".join(sorted(set(shot.hidden)))
            self.window.transcript.add_notice(
                f"I blacked out your private windows in the picture: {names}.", "info")
        self.photos.stage_screen(shot.image, shot.name, shot.label)
        self.window.input.setFocus()
        return True

    def _refused(self, message: str) -> bool:
        self.last_problem = message
        self.window.transcript.add_notice(f"👁 {message}", "setup")
        self.window.photo_problem.emit(message)
        return False

    def _send(self) -> None:
        window = self.window
        window.submit(window.input.toPlainText())

