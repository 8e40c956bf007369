"""What the window manager knows about the desktop, read over X11 (EWMH).

``DesktopX11`` keeps a picture of the other programs' windows: the normal, visible ones in
stacking order (top-most first) with their outer frames, the active window (its application
name from WM_CLASS, its title, whether it is fullscreen) and the work area. It is event
driven: the window manager's property changes on the root window and the frames' configure,
map and unmap events wake it (one coalesced re-read per burst); nothing runs between events,
and nothing at all while no behaviour wants it (``want``). Her overlay and this app's
dialogs are left out; her chat window is a window like any other (she can stand on it),
but never reported as the active window.

Where there is no X11 (Wayland without XWayland, Windows, macOS, no display, a window
manager without EWMH), ``available`` is False and ``reason`` says why; every behaviour
built on it then stays as it was.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal
from PySide6.QtGui import QGuiApplication

from companion_desktop.ui.desktop.surfaces import Box, Surface, Win, surfaces
from companion_desktop.ui.desktop.x11_probe import ewmh_check, x11_unavailable_reason
from companion_desktop.ui.desktop.x11_props import NORMAL_TYPE, WindowProps, window_type

log = logging.getLogger(__name__)
COALESCE_MS = 30  # events within this time are read as one change
ANY_DESKTOP = 0xFFFFFFFF
#: Property changes that matter (a window's title changing at every key press does not).
WATCHED = ("_NET_CLIENT_LIST_STACKING", "_NET_CLIENT_LIST", "_NET_ACTIVE_WINDOW",
           "_NET_WORKAREA", "_NET_CURRENT_DESKTOP", "_NET_WM_STATE", "_NET_WM_DESKTOP",
           "_NET_FRAME_EXTENTS", "WM_STATE")
TITLES = ("_NET_WM_NAME", "WM_NAME")  # only the active window's title is read again


@dataclass(frozen=True)
class WindowInfo:
    """One client window: ``box`` is its outer frame in logical pixels."""

    wid: int
    app: str
    title: str
    box: Box
    fullscreen: bool


class DesktopX11(QObject):
    """The desktop as the window manager sees it; ``changed`` when windows move, open,
    close or restack, ``active_changed`` when the active window (or its fullscreen state,
    or title) changes."""

    changed = Signal()
    active_changed = Signal()

    def __init__(self, parent: QObject | None = None, own_pid: int | None = None) -> None:
        super().__init__(parent)
        self.own_pid = os.getpid() if own_pid is None else own_pid
        self.reason: str | None = x11_unavailable_reason()
        self._display = None
        self._props: WindowProps | None = None  # reads properties over ``_display``
        self._wanted: set[str] = set()
        self._notifier: QSocketNotifier | None = None
        self._timer = QTimer(self, singleShot=True, interval=COALESCE_MS, timeout=self.refresh)
        self._static: dict[int, tuple[int | None, bool, str]] = {}  # wid -> (pid, normal, app)
        self._frames: dict[int, int] = {}  # the window manager's frame -> its client
        self._frame_of: dict[int, int] = {}  # client -> frame
        self._own_frames: set[int] = set()  # our windows' frames: their moves are ignored
        self._insets: dict[int, tuple[int, int, int, int]] = {}  # frame -> its client's box
        self._watched_atoms: set[int] = set()
        self._title_atoms: set[int] = set()
        self._windows: list[WindowInfo] = []
        self._shown: list[WindowInfo] = []  # every viewable client of any type, top-most first
        self._active: WindowInfo | None = None
        self._active_key: tuple | None = None
        self._workarea: Box | None = None
        self.refreshes = 0  # how many times the desktop was read (tests, cost checks)

    # ------------------------------------------------------------ on/off
    @property
    def available(self) -> bool:
        return self.reason is None

    @property
    def running(self) -> bool:
        return self._display is not None

    def want(self, who: str, on: bool) -> None:
        """``who`` (a behaviour) needs the desktop read, or no longer does; the connection
        is open only while someone wants it."""
        (self._wanted.add if on else self._wanted.discard)(who)
        if self._wanted and self._display is None and self.available:
            self._open()
        elif not self._wanted and self._display is not None:
            self._close()

    def _open(self) -> None:
        try:
            from Xlib import X, display, error
        except ImportError:
            self.reason = "The X11 library (python-xlib) is not installed."
            return
        try:
            self._display = display.Display()
        except (error.DisplayError, error.ConnectionClosedError, OSError) as problem:
            self.reason = f"Could not reach the X11 display ({problem})."
            return
        self._display.set_error_handler(lambda *_args: None)  # a window gone mid-read
        self._root = self._display.screen().root
        self._props = WindowProps(self._display)
        if not ewmh_check(self._display):
            self._display.close()
            self._display = None
            self.reason = "The window manager does not tell apps where windows are (no EWMH)."
            return
        self._watched_atoms = {self._props.atom(name) for name in WATCHED}
        self._title_atoms = {self._props.atom(name) for name in TITLES}
        self._root.change_attributes(event_mask=X.PropertyChangeMask | X.SubstructureNotifyMask)
        self._display.flush()
        self._notifier = QSocketNotifier(self._display.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._events)
        self.refresh()

    def _close(self) -> None:
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        self._timer.stop()
        try:
            self._display.close()
        except Exception:  # noqa: BLE001 - closing a dead connection
            pass
        self._display = None
        for cache in (self._static, self._frames, self._frame_of, self._own_frames,
                      self._insets):
            cache.clear()
        self._windows, self._shown, self._active, self._active_key = [], [], None, None

    def _events(self, *_args) -> None:  # noqa: ANN002
        """Something happened: a frame that moved is updated from its event alone; anything
        else (a window opened, closed, restacked, changed state) re-reads the desktop once
        things settle. Our own windows' moves (her falls and walks) cost nothing."""
        if self._display is None:
            return
        try:
            full, moved, titles = self._drain()
            if not full and self._active is not None and self._active.wid in titles:
                self._retitle()
        except Exception as problem:  # noqa: BLE001 - the display went away
            log.warning("the X11 connection closed: %s", problem)
            self.reason = "The X11 connection closed."
            self._close()
            self.changed.emit()
            return
        if moved and not full:
            self._move_frames(moved)
        if full and not self._timer.isActive():
            self._timer.start()

    def _drain(self) -> tuple[bool, dict[int, Box], set[int]]:
        """Reads the waiting events: (whether a full re-read is needed, frames moved,
        windows whose title changed)."""
        from Xlib import X

        full, moved, titles = False, {}, set()
        while self._display.pending_events():
            ev = self._display.next_event()
            kind = ev.type
            if kind == X.ConfigureNotify:
                frame = ev.window.id
                if frame in self._frames and frame in self._insets:
                    bw = 2 * ev.border_width
                    moved[frame] = Box(ev.x, ev.y, ev.x + ev.width + bw, ev.y + ev.height + bw)
                elif not ev.override and frame not in self._own_frames:
                    full = True
            elif kind == X.PropertyNotify:
                full = full or ev.atom in self._watched_atoms
                if ev.atom in self._title_atoms:
                    titles.add(ev.window.id)
            elif kind == X.MapNotify:
                full = full or (not ev.override and ev.window.id not in self._own_frames)
            elif kind in (X.UnmapNotify, X.DestroyNotify):
                full = full or ev.window.id in self._frames or ev.window.id in self._static
            elif kind == X.ReparentNotify:
                full = True
        return full, moved, titles

    def _retitle(self) -> None:
        """The active window's title changed (a player's, a browser's): that alone is read."""
        active = self._active
        title = self._props.title(self._display.create_resource_object("window", active.wid))
        if title != active.title:
            self._active = replace(active, title=title)
            self._active_key = (active.wid, active.app, title, active.fullscreen)
            self.active_changed.emit()

    def _move_frames(self, moved: dict[int, Box]) -> None:
        changed = False
        for index, info in enumerate(self._windows):
            frame = self._frame_of.get(info.wid)
            box = moved.get(frame) if frame is not None else None
            inset = self._insets.get(frame)
            if box is not None and inset is not None:
                box = Box(box.left + inset[0], box.top + inset[1], box.right - inset[2],
                          box.bottom - inset[3])
            if box is not None and self._logical(box) != info.box:
                self._windows[index] = replace(info, box=self._logical(box))
                changed = True
        if changed:
            self.changed.emit()

    # ------------------------------------------------------------ reading
    def _prop(self, window, name: str):  # noqa: ANN001
        """A 32-bit property's values (None when absent, of another format, or gone)."""
        return self._props.values(window, name)

    def refresh(self) -> None:
        """Read the window list, geometry and the active window now."""
        if self._display is None:
            return
        self.refreshes += 1
        try:
            self._drain()  # what happened so far is covered by this read
        except Exception:  # noqa: BLE001 - the display went away: the next event says so
            return
        from Xlib import error

        before, active_before, area_before = self._windows, self._active_key, self._workarea
        stacking = self._prop(self._root, "_NET_CLIENT_LIST_STACKING") or []
        current = self._prop(self._root, "_NET_CURRENT_DESKTOP")
        current = int(current[0]) if current is not None and len(current) else 0
        area = self._prop(self._root, "_NET_WORKAREA")
        if area is not None and len(area) >= 4 * (current + 1):
            x, y, w, h = (int(v) for v in area[4 * current:4 * current + 4])
            self._workarea = self._logical(Box(x, y, x + w, y + h))
        active_id = self._prop(self._root, "_NET_ACTIVE_WINDOW")
        active_id = int(active_id[0]) if active_id is not None and len(active_id) else 0
        windows, shown, active = [], [], None
        for wid in reversed([int(w) for w in stacking]):  # top-most first
            try:
                info = self._read(self._display.create_resource_object("window", wid), current)
            except (error.XError, error.BadWindow, error.BadDrawable):
                continue
            if info is None:
                continue
            shown.append(info)
            if wid == active_id and self._static[wid][0] != self.own_pid:
                active = info  # (her own chat window active: nothing to report)
            if info.fullscreen or self._static[wid][1]:
                windows.append(info)
        for gone in set(self._static) - set(int(w) for w in stacking):
            del self._static[gone]
            frame = self._frame_of.pop(gone, None)
            self._frames.pop(frame, None)
            self._insets.pop(frame, None)
            self._own_frames.discard(frame)
        if self._display.pending_events():  # arrived while reading: looked at once settled
            QTimer.singleShot(0, self._events)
        self._windows, self._shown = windows, shown
        self._active = active
        key = None if active is None else (active.wid, active.app, active.title, active.fullscreen)
        self._active_key = key
        if [(w.wid, w.box) for w in before] != [(w.wid, w.box) for w in self._windows] \
                or area_before != self._workarea:
            self.changed.emit()
        if key != active_before:
            self.active_changed.emit()

    def _read(self, window, current: int) -> WindowInfo | None:  # noqa: ANN001
        """One client: None when it is ours, not shown, on another desktop or minimised."""
        from Xlib import X

        wid = window.id
        if wid not in self._static:
            self._learn(window)
        pid, normal, app = self._static[wid]
        if pid == self.own_pid and not normal:
            return None  # her overlay, our dialogs (her chat window is a window like any)
        desktop = self._prop(window, "_NET_WM_DESKTOP")
        if desktop is not None and len(desktop) and int(desktop[0]) not in (current, ANY_DESKTOP):
            return None
        states = set(self._props.names(self._prop(window, "_NET_WM_STATE")))
        if "_NET_WM_STATE_HIDDEN" in states:
            return None
        if window.get_attributes().map_state != X.IsViewable:
            return None
        geometry = window.get_geometry()
        origin = self._root.translate_coords(window, 0, 0)
        left, right, top, bottom = self._sides(window, "_NET_FRAME_EXTENTS")
        # a window that draws its own frame has an invisible shadow around it: left out
        shadow = self._sides(window, "_GTK_FRAME_EXTENTS")
        box = Box(origin.x - left + shadow[0], origin.y - top + shadow[2],
                  origin.x + geometry.width + right - shadow[1],
                  origin.y + geometry.height + bottom - shadow[3])
        frame = self._frame_of.get(wid)
        if frame is not None and frame != wid:  # how the frame's box maps to this one
            g = self._display.create_resource_object("window", frame).get_geometry()
            edge = 2 * g.border_width
            self._insets[frame] = (box.left - g.x, box.top - g.y,
                                   g.x + g.width + edge - box.right,
                                   g.y + g.height + edge - box.bottom)
        return WindowInfo(wid, app, self._props.title(window), self._logical(box),
                          "_NET_WM_STATE_FULLSCREEN" in states)

    def _sides(self, window, name: str) -> tuple[int, int, int, int]:  # noqa: ANN001
        """A (left, right, top, bottom) property, zeros when absent or malformed."""
        value = self._prop(window, name)
        if value is None or len(value) != 4:
            return 0, 0, 0, 0
        return tuple(max(0, min(int(v), 10_000)) for v in value)

    def _learn(self, window) -> None:  # noqa: ANN001
        """What does not change about a client: its process, type, application and frame."""
        from Xlib import X

        pid = self._prop(window, "_NET_WM_PID")
        pid = int(pid[0]) if pid is not None and len(pid) else None
        kind = window_type(self._props.names(self._prop(window, "_NET_WM_WINDOW_TYPE")))
        wm_class = window.get_wm_class()
        frame = window
        while True:  # the window manager's frame: the ancestor that is a child of the root
            parent = frame.query_tree().parent
            if parent is None or parent.id in (0, self._root.id):
                break
            frame = parent
        normal = kind == NORMAL_TYPE  # unknown types passed over, none known: NORMAL
        if pid == self.own_pid and not normal:
            self._own_frames.add(frame.id)  # her overlay: its moves are hers
        else:
            window.change_attributes(event_mask=X.PropertyChangeMask)  # state, title changes
            self._frames[frame.id] = window.id
        self._frame_of[window.id] = frame.id
        self._static[window.id] = (pid, normal, (wm_class[1] or wm_class[0]) if wm_class else "")

    def _logical(self, box: Box) -> Box:
        """X pixels to Qt's logical pixels (a scaled screen)."""
        screen = QGuiApplication.primaryScreen()
        ratio = screen.devicePixelRatio() if screen is not None else 1.0
        if ratio == 1.0:
            return box
        return Box(*(round(v / ratio) for v in box))

    # ------------------------------------------------------------ the API
    def windows(self) -> list[WindowInfo]:
        """The visible normal windows (and fullscreen ones), top-most first."""
        return list(self._windows)

    def shown_windows(self) -> list[WindowInfo]:
        """Every viewable window of other programs (and her chat window), of any type
        (dialogs too), top-most first: what a screen capture may show."""
        return list(self._shown)

    def active_info(self) -> WindowInfo | None:
        """The active window with its frame (None: unknown, or her own)."""
        return self._active

    def wins(self) -> list[Win]:
        return [Win(w.wid, w.box) for w in self._windows]

    def active_window(self) -> tuple[str, str, bool] | None:
        """(application, title, fullscreen) of the active window, None when none is known
        (or the desktop is not being read)."""
        if self._active is None:
            return None
        return self._active.app, self._active.title, self._active.fullscreen

    def work_areas(self) -> list[Box]:
        """Each screen's free area (without panels), as Qt and the window manager agree."""
        areas = []
        for screen in QGuiApplication.screens():
            g = screen.availableGeometry()
            box = Box(g.x(), g.y(), g.x() + g.width(), g.y() + g.height())
            wa = self._workarea
            if wa is not None:
                inner = Box(max(box.left, wa.left), max(box.top, wa.top),
                            min(box.right, wa.right), min(box.bottom, wa.bottom))
                if inner.left < inner.right and inner.top < inner.bottom:
                    box = inner
            areas.append(box)
        return areas

    def surfaces_for(self, left: int, right: int, area: Box, headroom: int = 0) -> list[Surface]:
        """The surfaces in ``area`` that meet the x-range [left, right)."""
        return surfaces(self.wins(), area, headroom, (left, right))
