"""The one GL context fixture of the render tests: EGL surfaceless (no window, no GPU
needed: Mesa llvmpipe will do), skipped with the reason when no context can be made.

PyOpenGL picks its platform when ``OpenGL`` is first imported, so ask for EGL here,
before any test module imports the renderer (the renderer also copes with PyOpenGL
loaded for GLX, as under a Qt xcb session).
"""

from __future__ import annotations

import os
import sys

if sys.platform.startswith("linux") and "OpenGL" not in sys.modules:
    os.environ.setdefault("PYOPENGL_PLATFORM", "egl")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def gl_context():
    """An OpenGL 3.3 core context for the whole session (made current on demand)."""
    from companion_desktop.avatar.render.context import OffscreenContext, RenderUnavailable

    try:
        context = OffscreenContext().create()
    except RenderUnavailable as error:
        pytest.skip(f"no headless OpenGL 3.3 context here: {error}")
    yield context
    context.release()


@pytest.fixture
def gl(gl_context):
    """The session context, current on this thread."""
    gl_context.make_current()
    return gl_context


@pytest.fixture(scope="session")
def offscreen(gl_context):
    """An ``OffscreenRenderer`` sharing the session context."""
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer

    renderer = OffscreenRenderer(context=gl_context)
    yield renderer
    renderer.close()


@pytest.fixture
def render(offscreen, gl):
    """``render(model, frame=None, **kwargs)`` -> straight-alpha RGBA (height, width, 4)."""

    def _render(model, frame=None, **kwargs):
        kwargs.setdefault("width", 128)
        kwargs.setdefault("height", 192)
        return offscreen.render(model, frame, **kwargs)

    return _render

