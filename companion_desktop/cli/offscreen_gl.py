"""The offscreen OpenGL context for ``avatar render`` and ``bench`` on every platform.

EGL (``avatar.render.context``) exists on Linux only. Elsewhere, where EGL fails, or when
``COMPANION_OFFSCREEN_GL=qt`` asks for it, a Qt context on a ``QOffscreenSurface`` is used,
as the app's own windows do (``ui.avatar_gl``). :func:`use_available_context` installs the
choice as ``avatar.render.offscreen.context_factory``; the renderer draws into its own
framebuffer either way.
"""

from __future__ import annotations

import os
import sys
from typing import Any

#: Set to "qt" to skip EGL (tests of the fallback; a broken EGL driver); "egl" for EGL only.
ENV_VAR = "COMPANION_OFFSCREEN_GL"


class QtOffscreenContext:
    """A Qt OpenGL 3.3 core context on an offscreen surface, with the same methods as
    ``OffscreenContext``. A ``QGuiApplication`` is made when the process has none."""

    platform = "qt"

    def __init__(self) -> None:
        self._qt: Any = None
        self._app: Any = None

    def create(self) -> QtOffscreenContext:
        from companion_desktop.avatar.render.context import RenderUnavailable, require_gl33

        if self._qt is not None:
            self.make_current()
            return self
        from PySide6.QtGui import QGuiApplication

        from companion_desktop.ui.avatar.gl import QtContext

        self._app = QGuiApplication.instance() or QGuiApplication(["companion-desktop"])
        try:
            self._qt = QtContext()
            require_gl33()
        except Exception as error:  # noqa: BLE001 - one message for every failure
            self.release()
            raise RenderUnavailable(f"Qt offscreen OpenGL: {error}") from None
        return self

    def make_current(self) -> None:
        from companion_desktop.avatar.render.context import RenderUnavailable

        if self._qt is None:
            self.create()
            return
        try:
            self._qt.make_current()
        except RuntimeError as error:
            raise RenderUnavailable(str(error)) from None

    def release(self) -> None:
        if self._qt is not None:
            self._qt.release()
            self._qt = None


def best_context() -> Any:
    """A created offscreen context: EGL on Linux, else (or when EGL fails) Qt's.
    Raises ``RenderUnavailable`` naming both failures when neither works."""
    from companion_desktop.avatar.render.context import OffscreenContext, RenderUnavailable

    choice = os.environ.get(ENV_VAR, "").strip().lower()
    egl_error = ""
    if choice != "qt" and (sys.platform.startswith("linux") or choice == "egl"):
        try:
            return OffscreenContext().create()
        except Exception as error:  # noqa: BLE001 - try Qt next
            if choice == "egl":
                raise RenderUnavailable(f"EGL: {error}") from None
            egl_error = f"EGL: {error}; "
    try:
        return QtOffscreenContext().create()
    except RenderUnavailable as error:
        raise RenderUnavailable(f"{egl_error}{error}") from None


def use_available_context() -> None:
    """Make offscreen renderers made without a context use :func:`best_context`."""
    from companion_desktop.avatar.render import offscreen

    offscreen.context_factory = best_context
