"""Where she stands on the desktop: gravity, window tops, screens.

``Placement`` moves a top-level widget (the overlay) by its feet: the middle of its bottom
edge, raised by ``feet_inset()`` (the empty pixels under her feet). With gravity on, let go
in mid-air she falls (an ease-in, then a small bounce) onto the nearest surface below: the
top of a window (``DesktopX11``) or the bottom of her screen's work area. On a window's top
she rides along when it moves and falls when it closes, is minimised or covered. She stays
inside one screen's work area, and comes back when her screen goes away (gravity or not).

For the walker (``ui.walker``): ``surface_span()`` is the stretch she stands on,
``feet_x()`` and ``move_feet_to(x)`` move her along it, ``busy_reason`` (dragging, falling)
says when not to, ``on_window_top`` where she may sit, ``set_sitting(seat_px)`` lowers her
onto the edge and ``avatar_height_px()`` sets her pace.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QRect, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from companion_desktop.ui.avatar.overlay_geometry import bring_back
from companion_desktop.ui.desktop.surfaces import (
    BOUNCE_S,
    Box,
    Surface,
    area_for,
    bounce,
    fall_duration,
    fall_y,
    keep_inside,
    still_standing,
    surface_below,
    window_box,
)
from companion_desktop.ui.desktop.x11 import DesktopX11

FRAME_MS = 16  # the fall's frame time (only while falling or bouncing)
HEADROOM = 0.5  # this share of her height must fit above a window top she stands on


class Placement(QObject):
    """Gravity and surfaces for ``widget``; ``landed`` when a fall ends (save the place)."""

    landed = Signal()

    def __init__(self, widget: QWidget, desk: DesktopX11,
                 feet_inset: Callable[[], int] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 avatar_height: Callable[[], int | None] | None = None) -> None:
        super().__init__(widget)
        self.widget = widget
        self.desk = desk
        self.feet_inset = feet_inset or (lambda: 0)
        self.avatar_height = avatar_height or (lambda: None)
        self.seat = 0  # sitting on an edge: her feet hang this far below it
        self.clock = clock
        self.gravity = False
        self.surface: Surface | None = None
        self.busy_reason: str | None = None  # "dragging" or "falling": a walker waits
        self._box: Box | None = None  # the window she stands on, when she landed on it
        self._fall: tuple[float, float, float, Surface] | None = None  # start y, end y, t0
        self._timer = QTimer(self, interval=FRAME_MS, timeout=self._tick)
        desk.changed.connect(self._desk_changed)
        app = QGuiApplication.instance()
        app.screenAdded.connect(self._watch_screen)
        app.screenAdded.connect(self.screens_changed)
        app.screenRemoved.connect(lambda _s: QTimer.singleShot(0, self.screens_changed))
        for screen in QGuiApplication.screens():
            self._watch_screen(screen)

    def keep_footing(self) -> None:
        """After a resize (another scale): her feet back on what she stands on."""
        if self.surface is not None and self.busy_reason is None and self._fall is None:
            self.move_feet(self.feet()[0], self.surface.y + self.seat)

    def _watch_screen(self, screen) -> None:  # noqa: ANN001
        screen.availableGeometryChanged.connect(self.screens_changed)

    # ------------------------------------------------------------ on/off
    @property
    def active(self) -> bool:
        """Gravity is on and the desktop can be read."""
        return self.gravity and self.desk.running

    def set_gravity(self, on: bool) -> None:
        """Gravity on: she falls to the surface below now. Off: she stays where she is."""
        self.gravity = on
        self.desk.want("gravity", on)
        if self.active:
            self.settle()
        else:
            self._stop()
            self.surface = None

    # ------------------------------------------------------------ her feet
    def feet(self) -> tuple[float, float]:
        w = self.widget
        return w.x() + w.width() / 2, w.y() + w.height() - self.feet_inset()

    def move_feet(self, x: float, y: float) -> None:
        w = self.widget
        w.move(round(x - w.width() / 2), round(y - w.height() + self.feet_inset()))

    def headroom(self) -> int:
        return round(self.widget.height() * HEADROOM)

    def areas(self) -> list[Box]:
        return self.desk.work_areas() if self.desk.running else [
            _box(s.availableGeometry()) for s in QGuiApplication.screens()]

    # ------------------------------------------------------------ for a walker
    def surface_span(self) -> tuple[int, int, int] | None:
        """(left, right, y) of where her feet may go on what she stands on, None when she
        is not standing (gravity off, in the air, held)."""
        if self.surface is None or self.busy_reason is not None:
            return None
        x, y = self.feet()
        area = area_for(x, y, self.areas())
        half = self.widget.width() // 2
        left = max(self.surface.left, area.left + half) if area else self.surface.left
        right = min(self.surface.right, area.right - half) if area else self.surface.right
        return (left, right, self.surface.y) if left < right else None

    def move_feet_to(self, x: float) -> bool:
        """Moves her along her surface (kept on it); False when she is not standing."""
        span = self.surface_span()
        if span is None:
            return False
        left, right, y = span
        self.move_feet(min(max(x, left), right - 1), y + self.seat)
        return True

    def feet_x(self) -> int:
        return round(self.feet()[0])

    @property
    def on_window_top(self) -> bool:
        """She stands on a window's top (where she may sit), not on the floor."""
        return self.surface is not None and self.surface.wid is not None

    def avatar_height_px(self) -> float | None:
        """Her standing height on screen (a walker paces by it)."""
        return self.avatar_height()

    def set_sitting(self, seat_px: int | None) -> None:
        """She sits on the edge: her feet ``seat_px`` below it (None: standing again)."""
        self.seat = max(0, int(seat_px or 0))
        if self.surface is not None and self.busy_reason is None:
            self.move_feet(self.feet()[0], self.surface.y + self.seat)

    # ------------------------------------------------------------ dragging
    def grabbed(self) -> None:
        self._stop()
        self.busy_reason = "dragging"
        self.surface = None
        self.seat = 0

    def released(self) -> None:
        self.busy_reason = None
        if self.active:
            self.settle()

    # ------------------------------------------------------------ falling
    def settle(self) -> None:
        """Keep her on her screen and fall onto the surface below her feet."""
        if not self.active or self.busy_reason == "dragging":
            return
        x, y = self.feet()
        y -= self.seat  # sitting, her feet hang below the edge she sits on
        area = area_for(x, y, self.areas())
        if area is None:
            return
        x, y = keep_inside(x, y, area, self.widget.width() // 2, self.headroom())
        target = surface_below(x, y, self.desk.wins(), area, self.headroom())
        if self.surface is not None and target == self.surface:
            self.move_feet(x, target.y + self.seat)  # already there (seated, perhaps)
            return
        self.move_feet(x, y)
        self.fall_to(target)

    def fall_to(self, target: Surface) -> None:
        if self._fall is not None and self.busy_reason == "falling" and self._fall[3] == target:
            return  # already falling onto it (the desktop changed elsewhere)
        x, y = self.feet()
        self.surface, self.seat = None, 0
        if fall_duration(abs(target.y - y)) <= 0:
            self.move_feet(x, target.y)
            self._land(target)
            return
        self._fall = (y, float(target.y), self.clock(), target)
        self.busy_reason = "falling"
        if not self._timer.isActive():
            self._timer.start()

    def _tick(self) -> None:
        if self._fall is None:
            self._timer.stop()
            return
        start, end, t0, target = self._fall
        elapsed = self.clock() - t0
        x, _ = self.feet()
        duration = fall_duration(abs(end - start))
        if elapsed < duration:
            self.move_feet(x, fall_y(start, end, elapsed))
            return
        if self.surface is None:  # down: she stands there (a walker may go) while she bounces
            self.surface = target
            self._box = window_box(self.desk.wins(), target.wid)
            self.busy_reason = None
        after = elapsed - duration
        if after < BOUNCE_S:  # a walker may have seated her meanwhile: the bounce keeps it
            self.move_feet(x, end + self.seat - bounce(end - start, after))
            return
        self.move_feet(x, end + self.seat)
        self._fall = None
        self._timer.stop()
        self.landed.emit()

    def _land(self, target: Surface) -> None:
        self.surface = target
        self._box = window_box(self.desk.wins(), target.wid)
        self.busy_reason = None
        self._fall = None
        self._timer.stop()
        self.landed.emit()

    def _stop(self) -> None:
        """The fall ends where she is now (held, or a new fall starts from here)."""
        self._fall = None
        self._timer.stop()
        if self.busy_reason == "falling":
            self.busy_reason = None

    # ------------------------------------------------------------ the desktop moved
    def _desk_changed(self) -> None:
        if not self.active or self.busy_reason == "dragging":
            return
        if self.busy_reason == "falling":
            self.settle()  # the same surface below: the fall goes on; another: from here
            return
        if self.surface is None:
            self._stop()
            self.settle()
            return
        x, y = self.feet()
        wins = self.desk.wins()
        box = window_box(wins, self.surface.wid)
        if box is not None and self._box is not None:
            x += box.left - self._box.left  # ride along
            area = area_for(x, box.top, self.areas())
            kept = still_standing(self.surface, x, wins, area, self.headroom()) if area else None
            if kept is not None:
                self._stop()  # a landing bounce ends: she rides now
                self.move_feet(x, kept.y + self.seat)
                self.surface, self._box = kept, box
                return
        if self.surface.wid is None:
            area = area_for(x, y, self.areas())
            if area is not None and area.bottom == self.surface.y:
                return  # still on the floor: a window opening under her is behind her
        self.surface = None
        self.settle()

    def screens_changed(self, *_args) -> None:  # noqa: ANN002
        """A screen came, went or changed its work area: back on a screen, onto a surface."""
        if self.busy_reason == "dragging":
            return
        if self.active:
            self._stop()
            self.surface = None
            self.settle()
            return
        rects = [s.availableGeometry() for s in QGuiApplication.screens()]
        self.widget.move(bring_back(self.widget.geometry(), rects))


def _box(rect: QRect) -> Box:
    return Box(rect.x(), rect.y(), rect.x() + rect.width(), rect.y() + rect.height())
