"""Whether the desktop can be read here: an X11 display (XWayland included) with an EWMH
window manager, or why not (a sentence for Settings)."""

from __future__ import annotations

import os
import sys

from PySide6.QtGui import QGuiApplication


def x11_unavailable_reason() -> str | None:
    """Why the desktop cannot be read here, or None when X11 is there."""
    if not sys.platform.startswith("linux") and not sys.platform.startswith("freebsd"):
        return "Only on Linux desktops (X11) for now."
    app = QGuiApplication.instance()
    platform = app.platformName() if app is not None else ""
    if platform and platform != "xcb":
        if platform == "wayland" and os.environ.get("DISPLAY"):
            return ("Her windows are native Wayland windows, and Wayland lets no app see "
                    "other windows. Turn off Settings > Display > Use native Wayland "
                    "windows to use XWayland (after a restart).")
        if platform == "wayland":
            return ("This Wayland session has no XWayland, and Wayland lets no app see "
                    "other windows.")
        return f"The app is not drawing on an X11 display here ({platform})."
    if not os.environ.get("DISPLAY"):
        return "There is no X11 display."
    return None


def ewmh_check(display) -> bool:  # noqa: ANN001 - an Xlib display
    """An EWMH window manager runs on ``display``: the root names a check window, and that
    window (still there: a stopped manager leaves the root's property behind) names itself."""
    from Xlib import X, error

    atom = display.intern_atom("_NET_SUPPORTING_WM_CHECK")
    try:
        named = display.screen().root.get_full_property(atom, X.AnyPropertyType)
        if named is None or not len(named.value):
            return False
        check = display.create_resource_object("window", int(named.value[0]))
        itself = check.get_full_property(atom, X.AnyPropertyType)
    except (error.XError, error.BadWindow):
        return False
    return itself is not None and len(itself.value) > 0 and int(itself.value[0]) == check.id


def wm_cannot_keep_above() -> bool:
    """An X11 window manager runs (EWMH) but does not keep a window above the others
    (``_NET_WM_STATE_ABOVE`` missing from its ``_NET_SUPPORTED``), as the window manager of
    some compositors' XWayland. Then the overlay bypasses it (override-redirect) to stay on
    top and where she was put. False when unsure: no X11, no window manager, an error."""
    if x11_unavailable_reason() is not None:
        return False
    try:
        from Xlib import X, display, error
    except ImportError:
        return False
    try:
        connection = display.Display()
    except Exception:  # noqa: BLE001 - no X server after all: nothing to bypass
        return False
    try:
        if not ewmh_check(connection):
            return False
        supported = connection.screen().root.get_full_property(
            connection.intern_atom("_NET_SUPPORTED"), X.AnyPropertyType)
        above = connection.intern_atom("_NET_WM_STATE_ABOVE")
        return supported is not None and above not in {int(atom) for atom in supported.value}
    except error.XError:
        return False
    finally:
        connection.close()
