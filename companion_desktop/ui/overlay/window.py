"""Her desktop overlay: frameless, transparent, always on top, with no taskbar entry.

Drag to move, scroll to scale, right-click for the menu (open chat, settings,
always on top, click-through, photo mode, hide, quit). A tap on her head or body
gets a reaction. Clicks on transparent pixels pass through to the desktop (an
input mask from the rendered alpha; a menu toggle). The position is remembered
per screen arrangement and brought back when it would be off-screen. A speech
bubble shows the phase and her streamed reply; a compact box lets the user talk
to her without opening the chat window. A photo dropped on her (an image file or
image data) is shown to her through ``show_image``; the menu opens the photoboard.
Where the X11 window manager cannot keep a window above (``bypass_wm``: the one some
compositors run for XWayland), she bypasses it while on top. As a native Wayland window
(``ui.start.session``) the compositor moves her when dragged (``startSystemMove``) and her
position is neither known nor remembered; the input mask still lets clicks through.
While hearing is on, a mic button at her lower right is held to talk (push-to-talk)
or toggles listening (hands-free); ``ui.voice_in_desktop`` drives it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QRegion
from PySide6.QtWidgets import QMenu, QVBoxLayout, QWidget

from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.avatar.overlay_geometry import (
    arrangement_key,
    bring_back,
    default_position,
    mask_region,
)
from companion_desktop.ui.avatar.view import AvatarView
from companion_desktop.ui.overlay.bubble import CompactInput, SpeechBubble
from companion_desktop.ui.photos import DropTarget, Source, as_path_or_bytes
from companion_desktop.ui.start.session import native_wayland
from companion_desktop.ui.voice import MicButton

BASE_SIZE = QSize(340, 640)
BUBBLE_AREA = 0.24  # the top share of the window kept for her speech bubble

OVERLAY_STYLE = """
#speechBubble { background: rgba(255, 255, 255, 246); border: 1px solid #e4d3ee;
  border-radius: 16px; }
#speechBubble[error="true"] { background: rgba(255, 240, 243, 246); border-color: #f2b8c6; }
#speechText { color: #3a3340; font-size: 13px; background: transparent; }
#compactInput { background: rgba(255, 255, 255, 250); border: 1px solid #d9c4e6;
  border-radius: 14px; padding: 6px 12px; color: #3a3340; font-size: 13px; }
#compactInput:focus { border-color: #b46fd6; }
"""
DRAG_THRESHOLD = 6
FEET_SHARE = 0.03  # her feet's distance from the window bottom before her first picture
MASK_MS = 250
DROP_HINT = "Let go to show her this photo"


def screen_rects() -> list[QRect]:
    return [screen.availableGeometry() for screen in QGuiApplication.screens()]


class OverlayWindow(QWidget):
    """The overlay. ``send`` is called with messages from the compact input;
    ``show_image(path or bytes, name)`` with a photo dropped on her;
    ``open_photoboard()`` from the menu (each item only when given)."""

    open_chat = Signal()
    open_settings = Signal()
    quit_requested = Signal()
    settings_changed = Signal()  # position, scale or a toggle moved: the app saves them
    photo_requested = Signal()
    card_dropped = Signal(str)  # the path of a character card file dropped on her
    look_requested = Signal(str)  # "look at this": "active" (the window) or "full"
    drag_started = Signal()  # the user picked her up (placement: no gravity while held)
    drag_ended = Signal()  # and let go (placement: she falls from there)
    rescaled = Signal()  # a new size: placement puts her feet back on her surface

    def __init__(self, host: AvatarHost, send: Callable[[str], bool] | None = None,
                 always_on_top: bool = True, click_through: bool = True, scale: float = 1.0,
                 show_image: Callable[[str | bytes, str], None] | None = None,
                 open_photoboard: Callable[[], None] | None = None,
                 bypass_wm: bool = False) -> None:
        self.bypass_wm = bypass_wm
        flags = Qt.WindowType.FramelessWindowHint | Qt.WindowType.Tool
        if always_on_top:
            flags |= self._top_flags()
        super().__init__(None, flags)
        self.setObjectName("overlay")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground)
        # macOS hides a Tool window whenever another app is frontmost; she stays shown.
        self.setAttribute(Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow)
        self.setWindowTitle("Hana")
        self.host = host
        self.send = send
        self.show_image = show_image
        self.open_photoboard = open_photoboard
        self.always_on_top = always_on_top
        self.click_through = click_through
        self.scale = scale
        self.positions: dict[str, tuple[int, int]] = {}
        self.system_move = native_wayland()  # the compositor moves her; no positions
        self._press: QPoint | None = None
        self._dragging = False
        self.setStyleSheet(OVERLAY_STYLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.bubble_area = QWidget(self)
        self.bubble_area.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        layout.addWidget(self.bubble_area)
        self.view = AvatarView(host, "full", self)
        self.view.keep_pixels = True
        self.view.setMouseTracking(True)
        layout.addWidget(self.view, 1)
        self.dnd = None  # ui.dnd.DndState, given by the desktop (ui.desktop_talk)
        self.bubble = SpeechBubble(self)
        self.input = CompactInput(self)
        self.input.hide()
        self.input.submitted.connect(self._submit)
        self.input.dismissed.connect(self.input.hide)
        self.mic_button = MicButton(32, self)  # shown while hearing is on (ui.voice_in_desktop)
        from companion_desktop.ui.overlay.eye import GlanceEye

        self.eye = GlanceEye(self)  # shown while she glances at the screen
        self.view.installEventFilter(self)
        self._mask_key = None  # what the current shape was made from
        self._mask_timer = QTimer(self, interval=MASK_MS, timeout=self.update_mask)
        self._mask_timer.start()
        self.resize(self._scaled_size())
        self._hinting = False
        self._feet: tuple[tuple[int, int], tuple[int, int]] | None = None  # size: inset, height
        if show_image is not None:
            self.drop_target = DropTarget(self, self._dropped, self._drop_hint,
                                          on_card=self.card_dropped.emit)

    # ---------------------------------------------------------------- size/place
    def _scaled_size(self) -> QSize:
        return QSize(round(BASE_SIZE.width() * self.scale), round(BASE_SIZE.height() * self.scale))

    def set_scale(self, scale: float) -> None:
        self.scale = max(0.4, min(3.0, scale))
        bottom = self.geometry().bottomLeft()
        self.resize(self._scaled_size())
        self.move(bottom.x(), bottom.y() - self.height() + 1)
        self._place_children()
        self.rescaled.emit()
        self.settings_changed.emit()

    def restore_position(self, positions: dict[str, tuple[int, int]]) -> None:
        """Go where she was on this screen arrangement, or bottom-right; never off-screen."""
        self.positions = dict(positions)
        if self.system_move:  # the compositor places her
            return
        screens = screen_rects()
        saved = self.positions.get(arrangement_key(screens))
        if saved is not None:
            point = QPoint(*saved)
        elif screens:
            point = default_position((self.width(), self.height()), screens[0])
        else:
            point = QPoint(100, 100)
        self.move(bring_back(QRect(point, self.size()), screens))

    def remember_position(self) -> None:
        if self.system_move:  # Wayland tells no app where its window is
            return
        self.positions[arrangement_key(screen_rects())] = (self.x(), self.y())
        self.settings_changed.emit()

    def feet_inset(self) -> int:
        """The empty pixels between her feet and the window's bottom, from her last picture
        (measured once per window size; a share of the height until there is a picture)."""
        measured = self._measure()
        return round(self.height() * FEET_SHARE) if measured is None else measured[0]

    def avatar_height(self) -> int | None:
        """Her height on screen (top of her head to her feet), None before a picture."""
        measured = self._measure()
        return None if measured is None else measured[1]

    def _measure(self) -> tuple[int, int] | None:
        size = self.size().toTuple()
        if self._feet is not None and self._feet[0] == size:
            return self._feet[1]
        alpha = self.view.alpha_mask()
        if alpha is None or not alpha.any():
            return None
        rows = np.flatnonzero(alpha.any(axis=1))
        inset = max(0, self.height() - (self.view.y() + int(rows[-1]) + 1))
        self._feet = (size, (inset, int(rows[-1] - rows[0] + 1)))
        return self._feet[1]

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        self._place_children()

    def _place_children(self) -> None:
        width, area = self.width(), round(self.height() * BUBBLE_AREA)
        self.bubble_area.setFixedHeight(area)
        self.bubble.setMaximumWidth(max(160, width - 16))
        self.bubble.setMaximumHeight(max(60, area + 40))
        self.bubble.adjustSize()
        self.bubble.move((width - self.bubble.width()) // 2,
                         max(4, area - self.bubble.height() + 24))
        self.input.setFixedWidth(max(160, width - 24))
        self.input.move(12, self.height() - self.input.height() - 10)
        self.place_mic()

    def place_mic(self) -> None:
        """The mic button sits at her lower right, above the compact input."""
        button = self.mic_button
        button.move(self.width() - button.width() - 14,
                    self.height() - self.input.height() - button.height() - 20)
        button.raise_()
        self._mask_key = None

    # ---------------------------------------------------------------- toggles
    def _top_flags(self) -> Qt.WindowType:
        """The flags that keep her above the other windows."""
        if self.bypass_wm:
            return Qt.WindowType.WindowStaysOnTopHint | Qt.WindowType.X11BypassWindowManagerHint
        return Qt.WindowType.WindowStaysOnTopHint

    def set_always_on_top(self, on: bool) -> None:
        self.always_on_top = on
        visible = self.isVisible()
        flags = self.windowFlags() & ~self._top_flags()
        self.setWindowFlags(flags | self._top_flags() if on else flags)
        if visible:
            self.show()
        self.settings_changed.emit()

    def set_click_through(self, on: bool) -> None:
        self.click_through = on
        self.update_mask()
        self.settings_changed.emit()

    def update_mask(self) -> None:
        """Clicks pass through where she is transparent (when click-through is on)."""
        if not self.click_through or self.input.isVisible():
            self._mask_key = None
            self.clearMask()
            return
        key = (self.view.serial, self.view.pos().toTuple(),
               self.bubble.geometry().getRect() if self.bubble.isVisible() else None,
               self.mic_button.isVisible(), self.eye.isVisible())
        if key == self._mask_key:
            return  # same picture, same place: the shape has not changed
        alpha = self.view.alpha_mask()
        if alpha is None:
            return
        region = mask_region(alpha).translated(self.view.pos())  # view -> window coordinates
        for widget in (self.bubble, self.mic_button, self.eye):
            if widget.isVisible():
                region = region.united(QRegion(widget.geometry()))
        self.setMask(region)
        self._mask_key = key

    # ---------------------------------------------------------------- talking
    def _submit(self, text: str) -> None:
        if self.send is not None and not self.send(text):
            self.bubble.finish("I'm still answering — one moment!", error=True)

    def show_input(self) -> None:
        self.input.show()
        self.input.raise_()
        self.input.setFocus()
        self.activateWindow()
        self.update_mask()

    def on_phase(self, phase: str) -> None:
        self.bubble.show_phase(phase)
        self._place_children()

    def on_text(self, text: str) -> None:
        self.bubble.show_text(text)
        self._place_children()

    def on_done(self, reply: str) -> None:
        self.bubble.finish(reply)
        self._place_children()

    def show_eye(self, ms: int | None = None) -> None:
        """The small eye on her: she is glancing at the screen (a glance is never unseen)."""
        if ms is None:
            self.eye.flash()
        else:
            self.eye.flash(ms)
        self.update_mask()

    def on_failed(self, message: str) -> None:
        self.bubble.finish(message, error=True)
        self._place_children()

    # ---------------------------------------------------------------- photos
    def _drop_hint(self, on: bool) -> None:
        """While a photo hovers over her, the bubble says what letting go does."""
        if on and not self.bubble.isVisible():
            self.bubble.show_text(DROP_HINT)
            self._hinting = True
        elif not on and self._hinting:
            self.bubble.hide()
        if not on:
            self._hinting = False
        self._place_children()

    def _dropped(self, source: Source, name: str) -> None:
        data = as_path_or_bytes(source)
        if self.show_image is not None and data:
            self.show_image(data, name)

    # ---------------------------------------------------------------- mouse
    def eventFilter(self, obj, event) -> bool:  # noqa: N802, ANN001
        if obj is not self.view:
            return False
        kind = event.type()
        if kind == event.Type.MouseButtonPress and event.button() == Qt.MouseButton.LeftButton:
            self._press = event.globalPosition().toPoint()
            self._origin = self.pos()
            self._dragging = False
            return True
        if kind == event.Type.MouseMove and self._press is not None:
            delta = event.globalPosition().toPoint() - self._press
            if self._dragging or delta.manhattanLength() > DRAG_THRESHOLD:
                if self.system_move and self._move_by_compositor():
                    return True
                if not self._dragging:
                    self.drag_started.emit()
                self._dragging = True
                self.move(self._origin + delta)
            return True
        if kind == event.Type.MouseButtonRelease and self._press is not None:
            self._press = None
            if self._dragging:
                self._dragging = False
                self.move(bring_back(self.geometry(), screen_rects()))
                self.remember_position()
                self.drag_ended.emit()
            else:
                self.tap(event.position().toPoint())
            return True
        if kind == event.Type.MouseButtonDblClick:
            self.show_input()
            return True
        if kind == event.Type.Wheel:
            steps = event.angleDelta().y() / 120
            self.set_scale(self.scale * (1.1 ** steps))
            return True
        if kind == event.Type.ContextMenu:
            self.menu().exec(event.globalPos())
            return True
        return False

    def _move_by_compositor(self) -> bool:
        """Hands the drag to the compositor (native Wayland); False when it refused."""
        handle = self.windowHandle()
        if handle is None or not handle.startSystemMove():
            return False
        self._press = None  # the compositor holds the pointer until the button is let go
        return True

    def tap(self, pos: QPoint) -> str | None:
        region = self.view.hit_region(pos)
        if region is not None and self.host.runtime is not None:
            self.host.runtime.tap(region)
            self.host.poke()
        return region

    def menu(self) -> QMenu:
        """Her right-click menu (``overlay.menu``)."""
        from companion_desktop.ui.overlay.menu import her_menu

        return her_menu(self)
