"""Which Qt platform she draws with, chosen before Qt starts, and what that session allows.

In a Wayland session (``WAYLAND_DISPLAY`` set, or ``XDG_SESSION_TYPE=wayland``) with
XWayland (``DISPLAY`` set and its server answering) she runs through XWayland by default:
X11 lets her stay on top, stand where she was put, see other windows and hear global
hotkeys; native Wayland lets no app do any of that. Settings > Display > "Use native
Wayland windows" (``DisplaySettings.native_wayland``) chooses native windows instead; a
session without XWayland gets them too. A ``QT_QPA_PLATFORM`` the user set is never
changed. Each choice names a fallback after a semicolon, which Qt tries when the first
platform cannot start, so a wrong guess costs nothing.

Staying on top as a native Wayland window would need a compositor's layer-shell protocol;
no maintained Python binding gives a PySide6 window that role (the Qt plugins for it are
built against the system's Qt, not the one PySide6 bundles), so native windows are
ordinary top-level windows and XWayland is the default.

The choice needs only the standard library; the questions about the running session
(``native_wayland()``, ``limits()``, ``xwayland_note()``) import Qt when asked.
"""

from __future__ import annotations

import ctypes
import os
import re
import socket
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

PLATFORM_ENV = "QT_QPA_PLATFORM"

#: Said once in Settings > Display while she runs as native Wayland windows.
NATIVE_LIMITS = (
    "As native Wayland windows she cannot stay above other windows, the desktop places "
    "her wherever it likes and forgets where she stood, she cannot see other windows "
    "(no standing on them, no stepping aside for fullscreen apps) and global hotkeys are "
    "off. Dragging her and clicking through her empty space still work.")
#: Said in Settings while she runs through XWayland in a Wayland session.
XWAYLAND_NOTE = (
    "She runs through XWayland in this Wayland session: she sees only the windows of "
    "X11 apps, so she stands on those or on the bottom of the screen, never on a native "
    "Wayland window she cannot see; global hotkeys reach her while an X11 app has the "
    "focus.")


@dataclass(frozen=True)
class Choice:
    """``platform``: the value given to ``QT_QPA_PLATFORM`` (None: left as it was);
    ``why``: "user" (set before the app), "xwayland", "native" (the setting), "no-xwayland"
    (a Wayland session without a usable X11 display), "x11" (not a Wayland session)."""

    platform: str | None
    why: str


def wayland_session(environ: Mapping[str, str]) -> bool:
    """The desktop session is Wayland."""
    return bool(environ.get("WAYLAND_DISPLAY")) or \
        environ.get("XDG_SESSION_TYPE", "").lower() == "wayland"


def choose(environ: Mapping[str, str], native: bool,
           x11_usable: Callable[[str], bool] | None = None) -> Choice:
    """The platform for this start. ``native``: the user chose native Wayland windows;
    ``x11_usable(display)``: whether XWayland answers there and Qt's X11 plugin loads
    (default: ``xwayland_usable``)."""
    if environ.get(PLATFORM_ENV):
        return Choice(None, "user")
    if not wayland_session(environ):
        return Choice(None, "x11")
    display = environ.get("DISPLAY", "")
    usable = x11_usable or xwayland_usable
    if native:
        return Choice("wayland;xcb" if display else "wayland", "native")
    if display and usable(display):
        return Choice("xcb;wayland", "xwayland")
    return Choice("wayland", "no-xwayland")


def apply(native: bool, environ: MutableMapping[str, str] | None = None) -> Choice:
    """Choose (see ``choose``) and set ``QT_QPA_PLATFORM`` in ``environ`` (the process's
    environment by default); call before the QApplication is made."""
    env = os.environ if environ is None else environ
    choice = choose(env, native)
    if choice.platform is not None:
        env[PLATFORM_ENV] = choice.platform
    return choice


def xwayland_usable(display: str) -> bool:
    """``display``'s X server accepts a connection (a local one is tried on its socket,
    for at most half a second) and Qt's X11 platform plugin and its libraries load."""
    return x_server_answers(display) and xcb_plugin_loads()


def x_server_answers(display: str, timeout_s: float = 0.5) -> bool:
    """A local ``display`` (":0", "unix:0") has a socket that accepts a connection (an
    XWayland started on demand starts then); a remote one is taken as it is."""
    match = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display.strip())
    if match is None:
        return bool(display.strip())
    path = f"/tmp/.X11-unix/X{match.group(1)}"
    for address in ("\0" + path, path):  # the abstract socket first, as Xlib does
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout_s)
            try:
                sock.connect(address)
                return True
            except OSError:
                continue
    return False


def xcb_plugin_loads() -> bool:
    """Qt's X11 platform plugin is installed beside PySide6 and its library, with every
    system library it needs (libxcb-cursor and friends), can be loaded."""
    try:
        import PySide6  # the package only: no Qt library is loaded by it
    except ImportError:
        return False
    qt = Path(PySide6.__file__).parent / "Qt"
    if not (qt / "plugins" / "platforms" / "libqxcb.so").is_file():
        return False
    library = qt / "lib" / "libQt6XcbQpa.so.6"
    try:
        ctypes.CDLL(str(library), mode=os.RTLD_LAZY | os.RTLD_LOCAL)
    except OSError:
        return False
    return True


# ---------------------------------------------------------------- the running session
def platform_name() -> str:
    """The platform Qt runs on ("xcb", "wayland", "offscreen", ...); "" before Qt."""
    from PySide6.QtGui import QGuiApplication

    return QGuiApplication.platformName() if QGuiApplication.instance() is not None else ""


def native_wayland() -> bool:
    """Her windows are native Wayland windows (no positions, no staying on top)."""
    return platform_name() == "wayland"


def limits() -> str | None:
    """What this session cannot do, for Settings > Display; None where nothing is missing."""
    return NATIVE_LIMITS if native_wayland() else None


def xwayland_note(environ: Mapping[str, str] | None = None) -> str | None:
    """The note for Settings while she runs through XWayland in a Wayland session."""
    env = os.environ if environ is None else environ
    return XWAYLAND_NOTE if platform_name() == "xcb" and wayland_session(env) else None


#: Qt's warnings that native Wayland repeats for every call Wayland refuses (raising a
#: window, asking for its position); they say nothing the Settings line does not.
REPEATED_WARNINGS = ("does not support QWindow::requestActivate()",
                     "Wayland does not support QWindow::setPosition",
                     "Moving windows is not supported")
_previous_handler: list[object] = []


def quiet_repeated_warnings() -> None:
    """On native Wayland, Qt's REPEATED_WARNINGS are dropped; every other message goes
    where it went before. Installed once."""
    if _previous_handler or not native_wayland():
        return
    from PySide6.QtCore import qInstallMessageHandler

    def handler(kind, context, message: str) -> None:  # noqa: ANN001
        if any(text in message for text in REPEATED_WARNINGS):
            return
        previous = _previous_handler[0]
        if callable(previous):
            previous(kind, context, message)
        else:
            import sys

            print(message, file=sys.stderr)

    _previous_handler.append(None)
    _previous_handler[0] = qInstallMessageHandler(handler)
