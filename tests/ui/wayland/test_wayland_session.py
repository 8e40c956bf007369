"""The real app in a real Wayland session (weston, headless, with XWayland), started
with the environment such a session gives its apps and no ``QT_QPA_PLATFORM``.

By default she runs through XWayland: her overlay is mapped at the position she was saved
at, empty pixels show the desktop through her, and she stays above a normal window opened
after her. With "Use native Wayland windows" on, both windows are native Wayland windows,
Settings > Display says what that gives up, and the app quits cleanly."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QRect

from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    AvatarSettings,
    DesktopLifeSettings,
    DisplaySettings,
    save_settings,
)
from companion_desktop.ui.avatar.overlay_geometry import arrangement_key
from companion_desktop.ui.start.session import NATIVE_LIMITS
from tests.ui.app_process import AppProcess
from tests.ui.test_start_hidden import viewable
from tests.ui.wayland.weston import SIZE, is_desktop

pytestmark = [pytest.mark.slow]
SAVED = (880, 120)  # her top-left, away from where anything else opens
OVERLAY = (340, 640)  # her window's size at scale 1
START_S = 60.0  # a busy two-core machine starts her in well under this
DRIVER = Path(__file__).with_name("settings_driver.py")


def x_geometry(display: str, title: str) -> tuple[int, int, int, int] | None:
    """(x, y, width, height) of the top-level X window named ``title`` on ``display``."""
    env = {**os.environ, "DISPLAY": display}
    tree = subprocess.run(["xwininfo", "-root", "-tree"], capture_output=True, text=True,
                          env=env).stdout
    for line in tree.splitlines():
        if f'"{title}"' in line or f'"{title} — ' in line:
            info = subprocess.run(["xwininfo", "-id", line.split()[0]], capture_output=True,
                                  text=True, env=env).stdout
            values = dict(part.strip().split(":", 1) for part in info.splitlines()
                          if ":" in part)
            return (int(values["Absolute upper-left X"]), int(values["Absolute upper-left Y"]),
                    int(values["Width"]), int(values["Height"]))
    return None


def own_display(xdisplay, name: str):  # noqa: ANN001, ANN201
    """A connection to X server ``name`` whose extension events are its own: the X
    library keeps one table of them for every connection of a process, so an earlier
    connection to another server (this test process's Xvfb) can have put a plain event
    where this server's RandR puts its sub-events, and connecting fails."""
    from Xlib.protocol import display as protocol
    from Xlib.protocol import event

    shared = protocol.Display.event_classes
    protocol.Display.event_classes = event.event_class.copy()
    try:
        return xdisplay.Display(name)
    finally:
        protocol.Display.event_classes = shared


def open_normal_window(display: str, rgb: tuple[int, int, int]):  # noqa: ANN201
    """A plain X11 window as big as the screen, filled with ``rgb``, mapped now (the
    window manager frames and places it like any app's); its display connection."""
    from Xlib import X, Xatom
    from Xlib import display as xdisplay

    connection = own_display(xdisplay, display)
    screen = connection.screen()
    pixel = screen.default_colormap.alloc_color(*(value * 257 for value in rgb)).pixel
    window = screen.root.create_window(0, 0, SIZE[0], SIZE[1], 0, screen.root_depth,
                                       X.InputOutput, X.CopyFromParent,
                                       background_pixel=pixel)
    window.set_wm_name("normal window")
    window.change_property(connection.intern_atom("_NET_WM_NAME"),
                           connection.intern_atom("UTF8_STRING"), 8, b"normal window")
    window.change_property(Xatom.WM_CLASS, Xatom.STRING, 8, b"normal\0Normal\0")
    window.map()
    connection.sync()
    return connection


def poll(condition, timeout: float, what: str):  # noqa: ANN001, ANN201
    """``condition()``'s first value other than None within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value is not None:
            return value
        assert time.monotonic() < deadline, f"no {what} within {timeout} s"
        time.sleep(0.2)


def test_xwayland_by_default_on_top_transparent_where_saved(weston, tmp_path):
    key = arrangement_key([QRect(0, 0, *SIZE)])
    with Database.open(tmp_path / "data") as db, db.session() as session:
        save_settings(session, DisplaySettings(start_hidden="overlay"))  # only her
        save_settings(session, AvatarSettings(positions={key: SAVED}))
        save_settings(session, DesktopLifeSettings(gravity=False))  # she stays where put
    app = AppProcess(tmp_path / "data", tmp_path / "run", session=weston.session)
    normal = None
    try:
        app.wait_for(lambda: app.notes("platform"), START_S, "platform note")
        assert app.notes("platform")[0]["name"] == "xcb", app.notes("platform")
        assert app.notes("platform")[0]["why"] == "xwayland"
        app.wait_for(lambda: viewable(app, "Hana"), START_S, "her overlay mapped on XWayland")
        assert x_geometry(app.display, "Hana") == (*SAVED, *OVERLAY)
        x, y = SAVED
        box = (slice(y, y + OVERLAY[1]), slice(x, x + OVERLAY[0]))

        def her_picture():  # noqa: ANN202
            shot = weston.screenshot("xwayland-her")
            return shot if (~is_desktop(shot[box])).mean() > 0.05 else None

        alone = poll(her_picture, START_S, "her picture on the screen")
        drawn = ~is_desktop(alone[box])
        assert drawn.mean() < 0.6, "her empty pixels do not show the desktop"
        assert is_desktop(alone[y:y + 40, x:x + 40]).all()  # an empty corner: see-through
        outside = np.ones(alone.shape[:2], bool)
        outside[box] = False
        assert is_desktop(alone[outside]).mean() > 0.99  # nothing else was drawn
        green = (20, 200, 60)
        normal = open_normal_window(app.display, green)

        def covered():  # noqa: ANN202
            shot = weston.screenshot("xwayland-above-normal")
            return shot if is_colour(shot[box], green).mean() > 0.2 else None

        over = poll(covered, 30, "the normal window on the screen")[box]
        under_her = is_colour(over, green)
        # she sways a little between the two pictures: her edges may differ
        assert under_her[drawn].mean() < 0.25, "the window opened after her covers her"
        assert under_her[~drawn].mean() > 0.8, "her empty pixels do not show what is below"
        assert app.quit(within=15) < 15
    finally:
        if normal is not None:
            normal.close()
        app.kill()


def test_native_wayland_windows_when_chosen(weston, tmp_path):
    with Database.open(tmp_path / "data") as db, db.session() as session:
        save_settings(session, DisplaySettings(native_wayland=True))
    flag = tmp_path / "open-settings"
    app = AppProcess(tmp_path / "data", tmp_path / "run", script=DRIVER.read_text(),
                     session={**weston.session, "OPEN_SETTINGS_FLAG": str(flag)})
    try:
        app.wait_shown(START_S)
        assert app.notes("platform")[0]["name"] == "wayland", app.notes("platform")
        assert app.notes("platform")[0]["why"] == "native"

        def both_windows():  # noqa: ANN202
            mine = {title: place for pid, title, place in weston.toplevels()
                    if pid == app.proc.pid}
            return mine if {"companion-desktop", "Hana — companion-desktop"} <= set(mine) \
                else None

        places = poll(both_windows, 30, "her two native windows in the compositor's scene")
        assert not x_geometry(app.display, "Hana"), "her overlay went to XWayland"
        left, top, _, _ = places["companion-desktop"]
        slot = (left + 400, top + 420)  # the chat window's own picture of her is inside

        def her_overlay_drawn():  # noqa: ANN202
            shot = weston.screenshot("native")
            hana = is_hana(shot)
            hana[:slot[1], :slot[0]] = False
            return shot if hana.sum() > 500 else None

        poll(her_overlay_drawn, 30, "her overlay drawn over the desktop")
        flag.write_text("open")
        app.wait_said("limits:", START_S)
        assert f"limits: {NATIVE_LIMITS}" in app.output()
        time.sleep(0.5)  # the picture below is for people to look at; nothing waits on it
        weston.screenshot("native-settings")
        assert app.quit(within=15) < 15
        assert "qt.qpa" not in app.output(), app.output()[-3000:]
    finally:
        app.kill()


def is_colour(pixels: np.ndarray, rgb: tuple[int, int, int], tolerance: int = 3) -> np.ndarray:
    """Which pixels (..., 3) are ``rgb``."""
    return (np.abs(pixels.astype(int) - np.array(rgb)) <= tolerance).all(axis=-1)


def is_hana(pixels: np.ndarray) -> np.ndarray:
    """Which pixels (..., 3) are the built-in model's pink hair or blue dress."""
    r, g, b = (pixels[..., i].astype(int) for i in range(3))
    hair = (r > 220) & (g > 110) & (g < 190) & (b > 170) & (b < 235)
    dress = (r > 60) & (r < 110) & (g > 75) & (g < 125) & (b > 170) & (b < 220)
    return hair | dress


def test_under_xwayland_she_falls_past_native_windows_to_the_screen_bottom(weston, tmp_path):
    """Desktop life through XWayland sees X11 windows only: with a native Wayland window
    on the screen (XWayland cannot see it) and gravity on, she falls from where she was
    saved to the bottom of the screen."""
    key = arrangement_key([QRect(0, 0, *SIZE)])
    with Database.open(tmp_path / "data") as db, db.session() as session:
        save_settings(session, DisplaySettings(start_hidden="overlay"))
        save_settings(session, AvatarSettings(positions={key: SAVED}))
    env = {**os.environ, "XDG_RUNTIME_DIR": str(weston.runtime), "WAYLAND_DISPLAY": "",
           **{k: v for k, v in weston.session.items() if v is not None}}
    native = subprocess.Popen(["weston-simple-shm"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    app = AppProcess(tmp_path / "data", tmp_path / "run", session=weston.session)
    try:
        app.wait_for(lambda: viewable(app, "Hana"), START_S, "her overlay mapped on XWayland")

        def landed():  # noqa: ANN202
            place = x_geometry(app.display, "Hana")
            return place if place is not None and place[1] + place[3] >= SIZE[1] - 40 else None

        x, y, width, height = poll(landed, 30, "her fall to the bottom of the screen")
        assert y + height <= SIZE[1] + height // 10  # her feet on the screen's bottom
        assert app.quit(within=15) < 15
    finally:
        native.terminate()
        native.wait(10)
        app.kill()
