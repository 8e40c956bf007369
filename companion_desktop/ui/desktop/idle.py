"""How long the user has not touched keyboard or mouse.

On X11 (XWayland included) the X server's screen-saver extension tells the idle time
of the whole desktop (python-xlib, already used by the global hotkeys). Where it is not
there (Wayland without X, Windows, macOS, an X server without the extension) the app's
own last input counts instead: keys and mouse in her windows only, so time spent in other
programs reads as idle there. :attr:`IdleTime.source` says which ("x11" or "app").
"""

from __future__ import annotations

import logging
import os
import time
from datetime import timedelta
from typing import Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

_INPUT = {QEvent.Type.KeyPress, QEvent.Type.MouseButtonPress, QEvent.Type.MouseMove,
          QEvent.Type.Wheel, QEvent.Type.TouchBegin}


def _x_idle() -> tuple[Any, Any] | None:
    """(display, root window) with the screen-saver extension, or None."""
    if not os.environ.get("DISPLAY"):
        return None
    try:
        from Xlib import display as xdisplay
        from Xlib.ext import screensaver  # noqa: F401 - registers the extension's calls

        conn = xdisplay.Display()
        if not conn.has_extension("MIT-SCREEN-SAVER"):
            conn.close()
            return None
        root = conn.screen().root
        root.screensaver_query_info()  # one round trip: fails here, not later
        return conn, root
    except Exception:  # noqa: BLE001 - no X, no extension, no python-xlib: the app's input
        log.info("desktop idle time unavailable; using this app's own input", exc_info=True)
        return None


class IdleTime(QObject):
    """``idle()``: time since the user's last input (desktop-wide where possible)."""

    def __init__(self, parent: QObject | None = None, use_x: bool = True) -> None:
        super().__init__(parent)
        self._last_input = time.monotonic()
        self._x = _x_idle() if use_x else None
        self.source = "x11" if self._x is not None else "app"
        app = QApplication.instance()
        if app is not None:
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in _INPUT:
            self._last_input = time.monotonic()
        return False

    def idle(self) -> timedelta:
        if self._x is not None:
            try:
                return timedelta(milliseconds=self._x[1].screensaver_query_info().idle)
            except Exception:  # noqa: BLE001 - the X connection went away
                log.info("desktop idle time lost; using this app's own input", exc_info=True)
                self.close()
        own = timedelta(seconds=time.monotonic() - self._last_input)
        return own

    def close(self) -> None:
        x, self._x = self._x, None
        self.source = "app"
        if x is not None:
            try:
                x[0].close()
            except Exception:  # noqa: BLE001
                pass
