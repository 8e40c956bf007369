"""The one error of offscreen rendering, below both ways of getting a context (``egl``,
``context``): either may raise it and neither imports the other for it."""

from __future__ import annotations


class RenderUnavailable(RuntimeError):
    """No OpenGL 3.3 core context can be had here; the message says why."""
