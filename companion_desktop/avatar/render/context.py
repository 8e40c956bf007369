"""Headless OpenGL contexts (EGL) and GL version helpers.

``OffscreenContext`` makes an OpenGL 3.3 core context current on this thread without
any window: EGL on Mesa's surfaceless platform first, then EGL devices (NVIDIA
headless), then the default display. Everything else in ``avatar.render`` only needs
*some* current 3.3+ context, so the Qt widget can host the renderer in its own context.

EGL is called through ctypes (``egl.py``), not through PyOpenGL, so it works whichever
platform PyOpenGL picked (``PYOPENGL_PLATFORM`` at its first import: GLX under X11).
``prefer_egl()`` before that first import still helps headless processes, and the
renderer avoids the few PyOpenGL wrappers that ask the platform for the current context.
"""

from __future__ import annotations

import os
import sys

from .errors import RenderUnavailable

REQUIRED_VERSION = (3, 3)


def prefer_egl() -> bool:
    """Ask PyOpenGL for its EGL platform if ``OpenGL`` is not imported yet (Linux only).

    Returns True when PyOpenGL will use (or already uses) EGL. Harmless otherwise.
    """
    if not sys.platform.startswith("linux"):
        return False
    if "OpenGL" not in sys.modules:
        os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
    return os.environ.get("PYOPENGL_PLATFORM") == "egl"


def gl_version() -> tuple[int, int]:
    """(major, minor) of the current context; (0, 0) when none is current."""
    from OpenGL import GL

    try:
        major = GL.glGetIntegerv(GL.GL_MAJOR_VERSION)
        minor = GL.glGetIntegerv(GL.GL_MINOR_VERSION)
    except Exception:  # noqa: BLE001 - no context, or a pre-3.0 one
        return (0, 0)
    return (int(major), int(minor))


def gl_info() -> dict[str, str]:
    """Vendor, renderer, version and GLSL version strings of the current context."""
    from OpenGL import GL

    def text(name: int) -> str:
        value = GL.glGetString(name)
        return value.decode("utf-8", "replace") if value else ""

    return {
        "vendor": text(GL.GL_VENDOR),
        "renderer": text(GL.GL_RENDERER),
        "version": text(GL.GL_VERSION),
        "glsl": text(GL.GL_SHADING_LANGUAGE_VERSION),
    }


def require_gl33() -> tuple[int, int]:
    """Raise ``RenderUnavailable`` unless a 3.3+ context is current; returns the version."""
    version = gl_version()
    if version < REQUIRED_VERSION:
        raise RenderUnavailable(
            f"OpenGL {REQUIRED_VERSION[0]}.{REQUIRED_VERSION[1]} core is needed; "
            f"the current context is {version[0]}.{version[1]}"
        )
    return version


class OffscreenContext:
    """A windowless OpenGL 3.3 core context (EGL). Use as a context manager or call
    ``create()`` / ``make_current()`` / ``release()``. Render into your own framebuffer."""

    def __init__(self) -> None:
        self._egl = None
        self._context = None
        self.platform = ""  # which EGL display: "surfaceless", "device" or "default"

    def create(self) -> "OffscreenContext":
        if self._context is not None:
            self.make_current()
            return self
        prefer_egl()
        from . import egl

        self._egl = egl.shared_display()
        self._context = self._egl.create_context(*REQUIRED_VERSION)
        self.platform = self._egl.platform
        self.make_current()
        try:
            require_gl33()
        except RenderUnavailable:
            self.release()
            raise
        return self

    def make_current(self) -> None:
        if self._context is None:
            self.create()
        else:
            self._egl.make_current(self._context)

    def release(self) -> None:
        """Destroy the context (it must not be used afterwards)."""
        if self._context is not None:
            self._egl.destroy_context(self._context)
            self._context = None

    def __enter__(self) -> "OffscreenContext":
        return self.create()

    def __exit__(self, *exc: object) -> None:
        self.release()
