"""A real EWMH window manager (openbox) on the test display, and real X windows of another
"program" (their own X connection, no process id of ours) that tests open, move, minimise,
make fullscreen, activate and close."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

Xlib = pytest.importorskip("Xlib")
from Xlib import X, Xatom, Xutil, display  # noqa: E402
from Xlib.protocol import event  # noqa: E402


def wm_running(d) -> bool:  # noqa: ANN001
    """An EWMH window manager runs: its check window exists (a stopped one leaves the root's
    property behind)."""
    from companion_desktop.ui.desktop.x11_probe import ewmh_check

    return ewmh_check(d)


def start_window_manager():
    """Yields an X connection with an EWMH window manager running on $DISPLAY (openbox,
    started here and stopped after, unless one already runs); skips when there is none."""
    if not os.environ.get("DISPLAY") or os.environ.get("QT_QPA_PLATFORM") not in (None, "xcb"):
        pytest.skip("needs an X display (Xvfb) with Qt on xcb")
    d = display.Display()
    process = None
    if not wm_running(d):
        if shutil.which("openbox") is None:
            d.close()
            pytest.skip("needs the openbox window manager (scripts/bootstrap.sh installs it)")
        process = subprocess.Popen(["openbox", "--sm-disable"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not wm_running(d):
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                d.close()
                pytest.skip("openbox did not start on this display")
            time.sleep(0.05)
        time.sleep(0.3)  # it manages the windows already there
    try:
        yield d
    finally:
        if process is not None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
        d.close()


class XWindow:
    """A plain X window, managed by the window manager like any program's."""

    def __init__(self, d, x: int, y: int, w: int, h: int, app: str = "testapp",  # noqa: ANN001
                 title: str = "A window", kind: str | list[str | int] | None = None,
                 props: tuple[tuple[str, str, int, bytes | list[int]], ...] = ()) -> None:
        """``kind``: its window type, or a list of them in order of preference (an atom's
        name, or a raw atom number, possibly one the X server never made); ``props``:
        more properties set before it is mapped, as (name, type, format, value)."""
        self.d = d
        screen = d.screen()
        self.win = screen.root.create_window(
            x, y, w, h, 0, screen.root_depth, X.InputOutput, X.CopyFromParent,
            background_pixel=screen.white_pixel, event_mask=X.StructureNotifyMask)
        self.win.set_wm_class(app, app)
        self.win.set_wm_name(title)
        self.win.change_property(d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING"),
                                 8, title.encode())
        self.win.set_wm_normal_hints(flags=Xutil.USPosition | Xutil.USSize, x=x, y=y,
                                     width=w, height=h)
        if kind is not None:
            kinds = [kind] if isinstance(kind, str) else kind
            self.win.change_property(d.intern_atom("_NET_WM_WINDOW_TYPE"), Xatom.ATOM, 32,
                                     [k if isinstance(k, int) else d.intern_atom(k)
                                      for k in kinds])
        for name, kind_name, fmt, value in props:
            self.set(name, kind_name, fmt, value)
        self.win.map()
        d.sync()

    def set(self, name: str, kind: str, fmt: int, value: bytes | list[int]) -> None:
        """Sets the property ``name`` of type ``kind`` and format ``fmt`` (8, 16, 32)."""
        self.win.change_property(self.d.intern_atom(name), self.d.intern_atom(kind), fmt, value)
        self.d.sync()

    def retitle(self, title: str) -> None:
        self.win.change_property(self.d.intern_atom("_NET_WM_NAME"),
                                 self.d.intern_atom("UTF8_STRING"), 8, title.encode())
        self.d.sync()

    def shadow(self, size: int) -> None:
        """Draws its own frame with an invisible shadow ``size`` pixels wide around it."""
        self.win.change_property(self.d.intern_atom("_GTK_FRAME_EXTENTS"), Xatom.CARDINAL, 32,
                                 [size] * 4)
        self.d.sync()

    def strut_bottom(self, height: int) -> None:
        """Reserve ``height`` pixels at the bottom of the screen (a panel)."""
        width = self.d.screen().width_in_pixels
        self.win.change_property(self.d.intern_atom("_NET_WM_STRUT_PARTIAL"), Xatom.CARDINAL,
                                 32, [0, 0, 0, height, 0, 0, 0, 0, 0, 0, 0, width - 1])
        self.win.change_property(self.d.intern_atom("_NET_WM_STRUT"), Xatom.CARDINAL, 32,
                                 [0, 0, 0, height])
        self.d.sync()

    def frame(self) -> tuple[int, int, int, int]:
        """Where the window manager's frame around it is: (left, top, right, bottom)."""
        window = self.win
        root = self.d.screen().root
        while True:
            parent = window.query_tree().parent
            if parent.id == root.id:
                break
            window = parent
        g = window.get_geometry()
        return g.x, g.y, g.x + g.width + 2 * g.border_width, g.y + g.height + 2 * g.border_width

    def move(self, x: int, y: int) -> None:
        self.win.configure(x=x, y=y)
        self.d.sync()

    def _message(self, name: str, data: list[int]) -> None:
        root = self.d.screen().root
        message = event.ClientMessage(window=self.win, client_type=self.d.intern_atom(name),
                                      data=(32, (data + [0] * 5)[:5]))
        root.send_event(message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        self.d.sync()

    def minimise(self) -> None:
        self._message("WM_CHANGE_STATE", [Xutil.IconicState])

    def activate(self) -> None:
        self._message("_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])

    def fullscreen(self, on: bool) -> None:
        self._message("_NET_WM_STATE", [1 if on else 0,
                                        self.d.intern_atom("_NET_WM_STATE_FULLSCREEN"), 0, 1])

    def close(self) -> None:
        self.win.destroy()
        self.d.sync()


@pytest.fixture
def windows(xd):  # noqa: ANN001 - the test module's X connection fixture
    """Opens XWindows on ``xd`` (``windows(x, y, w, h, ...)``), closing them after the test."""
    made: list[XWindow] = []

    def make(*args, **kwargs) -> XWindow:  # noqa: ANN002, ANN003
        win = XWindow(xd, *args, **kwargs)
        made.append(win)
        return win

    yield make
    for win in made:
        try:
            win.close()
        except Exception:  # noqa: BLE001 - closed by the test already
            pass


class PatternWindow:
    """Another program's window: left half red, right half blue, drawn by the X server
    itself (a background pixmap), so no redraw code is needed."""

    def __init__(self, d, x: int, y: int, w: int, h: int, app: str, title: str) -> None:  # noqa: ANN001
        self.d = d
        screen = d.screen()
        root = screen.root
        pixmap = root.create_pixmap(w, h, screen.root_depth)
        for colour, left in ((0xFF0000, 0), (0x0000FF, w // 2)):
            gc = root.create_gc(foreground=colour)
            pixmap.fill_rectangle(gc, left, 0, w - w // 2, h)
            gc.free()
        self.win = root.create_window(x, y, w, h, 0, screen.root_depth, X.InputOutput,
                                      X.CopyFromParent, background_pixmap=pixmap,
                                      event_mask=X.StructureNotifyMask)
        self.win.set_wm_class(app, app)
        self.win.set_wm_name(title)
        self.win.change_property(d.intern_atom("_NET_WM_NAME"), d.intern_atom("UTF8_STRING"),
                                 8, title.encode())
        self.win.set_wm_normal_hints(flags=Xutil.USPosition | Xutil.USSize, x=x, y=y,
                                     width=w, height=h)
        self.win.map()
        d.sync()

    def client_box(self) -> tuple[int, int, int, int]:
        origin = self.win.translate_coords(self.d.screen().root, 0, 0)
        g = self.win.get_geometry()
        return -origin.x, -origin.y, -origin.x + g.width, -origin.y + g.height

    def frame(self) -> tuple[int, int, int, int]:
        """The window manager's frame around it (left, top, right, bottom)."""
        window, root = self.win, self.d.screen().root
        while True:
            parent = window.query_tree().parent
            if parent.id == root.id:
                break
            window = parent
        g = window.get_geometry()
        return g.x, g.y, g.x + g.width + 2 * g.border_width, g.y + g.height + 2 * g.border_width

    def activate(self) -> None:
        message = event.ClientMessage(window=self.win,
                                      client_type=self.d.intern_atom("_NET_ACTIVE_WINDOW"),
                                      data=(32, [2, X.CurrentTime, 0, 0, 0]))
        self.d.screen().root.send_event(
            message, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        self.d.sync()

    def close(self) -> None:
        self.win.destroy()
        self.d.sync()
