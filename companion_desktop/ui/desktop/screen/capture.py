"""Taking one picture of the user's screen, on request: the active window or the screen.

X11 (XWayland included): the windows are read over EWMH (``DesktopX11``: the same reading
as desktop life and window awareness, opened for this one capture and closed after),
``engine.screen_look.plan_look`` decides what is taken, and Qt grabs that rectangle of
the root window (``QScreen.grabWindow(0, ...)``). Her own windows are painted over
(grey) rather than hidden, so nothing flickers; every window on the deny-list inside the
picture is painted black, and a denied active window is not captured at all.

Wayland without X11: the desktop portal's Screenshot call (``portal``), with her
windows hidden meanwhile; where no portal runs, a clear line. Windows and macOS: the
window list comes from the system (``native``: written from the systems' documentation,
not run here; the README says so), then the same plan and grab as on X11.
Every failure raises :class:`ScreenRefused`, whose text is meant for the user.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QGuiApplication, QImage, QPainter, QScreen
from PySide6.QtWidgets import QApplication, QWidget

from companion_desktop.engine.screen_look import FULL, LookPlan, Rect, SeenWindow, plan_look

GREY = QColor(128, 128, 128)
BLACK = QColor(0, 0, 0)


class ScreenRefused(RuntimeError):
    """Nothing was captured; ``str()`` says why, for the user."""


@dataclass(frozen=True)
class ScreenShot:
    """A capture: ``image`` (never written to disk), ``label`` what it shows ("Firefox",
    "your screen") and ``hidden`` the private windows blacked out in it."""

    image: QImage
    label: str
    hidden: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """How the staged picture is called: "Your screen (Firefox)"."""
        return "Your whole screen" if self.label == "your screen" else \
            f"Your screen ({self.label})"


def own_widgets() -> list[QWidget]:
    """This app's visible top-level windows (the chat, her overlay, dialogs, menus)."""
    return [w for w in QApplication.topLevelWidgets() if w.isVisible() and w.isWindow()]


def _rect(box: tuple[int, int, int, int]) -> Rect:
    return (int(box[0]), int(box[1]), int(box[2]), int(box[3]))


def _frame(widget: QWidget) -> Rect:
    g = widget.frameGeometry()
    return (g.x(), g.y(), g.x() + g.width(), g.y() + g.height())


def take_screenshot(mode: str, deny: list[str] | tuple[str, ...], screen: QScreen | None = None,
         mine: list[QWidget] | None = None) -> ScreenShot:
    """One capture (``mode``: "active" or "full") on ``screen`` (None: the primary);
    ``mine``: her windows (None: every visible window of this app). ScreenRefused when
    nothing may or can be captured."""
    app = QGuiApplication.instance()
    platform = app.platformName() if app is not None else ""
    mine = own_widgets() if mine is None else mine
    if platform == "xcb":
        return _take_x11(mode, deny, screen, mine)
    if platform == "wayland":
        from companion_desktop.ui.desktop.screen.portal import portal_screenshot

        return ScreenShot(portal_screenshot(mine), "your screen")
    if platform in ("windows", "cocoa"):
        return _take_native(mode, deny, screen, mine, platform)
    raise ScreenRefused("There is no screen here for me to look at. You can still type.")


def _take_native(mode: str, deny: list[str] | tuple[str, ...], screen: QScreen | None,
                 mine: list[QWidget], platform: str) -> ScreenShot:
    from companion_desktop.ui.desktop.screen import native

    try:
        raw, active_id = native.window_list("win32" if platform == "windows" else "darwin")
    except native.NoWindowList as error:
        raise ScreenRefused(str(error)) from None
    if platform == "cocoa" and native.missing_permission(raw, os.getpid()):
        raise ScreenRefused(native.MAC_PERMISSION)
    primary = screen or QGuiApplication.primaryScreen()
    scale = primary.devicePixelRatio() if platform == "windows" and primary else 1.0
    windows = native.seen_windows(raw, os.getpid(), scale)
    active = next((w for w in windows if w.wid == active_id), None)
    return _planned(mode, deny, screen, mine, windows, active)


def _take_x11(mode: str, deny: list[str] | tuple[str, ...], screen: QScreen | None,
              mine: list[QWidget]) -> ScreenShot:
    from companion_desktop.ui.desktop.x11 import DesktopX11

    desk = DesktopX11(own_pid=os.getpid())
    if not desk.available:
        raise ScreenRefused(f"I couldn't look at your screen: {desk.reason}")
    desk.want("screen", True)
    try:
        if not desk.running:
            raise ScreenRefused(f"I couldn't look at your screen: {desk.reason}")
        ours = {int(w.winId()) for w in mine}
        windows = [SeenWindow(w.app, w.title, _rect(w.box), w.wid in ours, w.wid)
                   for w in desk.shown_windows()]
        info = desk.active_info()
    finally:
        desk.want("screen", False)
        desk.deleteLater()
    active = next((w for w in windows if info is not None and w.wid == info.wid), None)
    return _planned(mode, deny, screen, mine, windows, active)


def _planned(mode: str, deny: list[str] | tuple[str, ...], screen: QScreen | None,
             mine: list[QWidget], windows: list[SeenWindow], active: SeenWindow | None
             ) -> ScreenShot:
    """The plan for the listed ``windows`` (top-most first) on ``screen`` (None: the
    primary; "active" takes the active window's own screen), grabbed."""
    screen = screen or QGuiApplication.primaryScreen()
    if screen is None:
        raise ScreenRefused("I couldn't find a screen to look at. You can still type.")
    g = screen.geometry()
    bounds = (g.x(), g.y(), g.x() + g.width(), g.y() + g.height())
    if mode != FULL and active is not None:  # the active window's own screen
        for other in QGuiApplication.screens():
            o = other.geometry()
            cx, cy = (active.box[0] + active.box[2]) // 2, (active.box[1] + active.box[3]) // 2
            if o.contains(cx, cy):
                screen, bounds = other, (o.x(), o.y(), o.x() + o.width(), o.y() + o.height())
    plan = plan_look(mode, windows, active, bounds, deny, [_frame(w) for w in mine])
    if plan.area is None:
        raise ScreenRefused(plan.refusal or "I didn't look.")
    return ScreenShot(_grab(screen, plan), plan.label, plan.hidden)


def _grab(screen: QScreen, plan: LookPlan) -> QImage:
    """The plan's area grabbed from the root window, her windows grey, denied ones black."""
    assert plan.area is not None
    left, top, right, bottom = plan.area
    g = screen.geometry()
    pixmap = screen.grabWindow(0, left - g.x(), top - g.y(), right - left, bottom - top)
    image = pixmap.toImage().convertToFormat(QImage.Format.Format_RGB32)
    if image.isNull() or image.width() < 1:
        raise ScreenRefused("I couldn't look at your screen: the system gave me no picture "
                            "(it may need a permission). You can still type.")
    sx, sy = image.width() / (right - left), image.height() / (bottom - top)
    painter = QPainter(image)
    for colour, rects in ((GREY, plan.grey), (BLACK, plan.black)):
        for r in rects:
            painter.fillRect(QRect(int((r[0] - left) * sx), int((r[1] - top) * sy),
                                   int(round((r[2] - r[0]) * sx)) + 1,
                                   int(round((r[3] - r[1]) * sy)) + 1), colour)
    painter.end()
    return image
