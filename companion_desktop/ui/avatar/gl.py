"""The one OpenGL context that draws her for every window.

Both windows show the same avatar, so one offscreen context (Qt's, or EGL where Qt has
no OpenGL, e.g. the offscreen platform) holds the model's GPU copy once and draws each
visible view into its own framebuffer, read back as premultiplied BGRA pixels that a
plain raster widget paints. No window becomes an OpenGL window: the chat window and
the translucent overlay stay cheap raster windows that repaint only her rectangle,
and the overlay's click-through shape comes from the same pixels. On software GL the
picture is in main memory anyway; on a GPU the read-back is a few hundred kilobytes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
from PySide6.QtGui import QGuiApplication, QOffscreenSurface, QOpenGLContext, QSurfaceFormat

log = logging.getLogger(__name__)


class QtContext:
    def __init__(self) -> None:
        fmt = QSurfaceFormat()
        fmt.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
        fmt.setVersion(3, 3)
        fmt.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
        self.context = QOpenGLContext()
        self.context.setFormat(fmt)
        if not self.context.create():
            raise RuntimeError("Qt could not create an OpenGL context")
        self.surface = QOffscreenSurface()
        self.surface.setFormat(self.context.format())
        self.surface.create()
        self.make_current()

    def make_current(self) -> None:
        if not self.context.makeCurrent(self.surface):
            raise RuntimeError("Qt could not make its OpenGL context current")

    def release(self) -> None:
        self.context.doneCurrent()
        self.surface.destroy()


class _EglContext:
    def __init__(self) -> None:
        from companion_desktop.avatar.render.context import OffscreenContext

        self.context = OffscreenContext().create()
        self.context.make_current()

    def make_current(self) -> None:
        self.context.make_current()

    def release(self) -> None:
        self.context.release()


def _make_context():
    """Qt's context on a platform with OpenGL, else EGL; raises when neither works."""
    errors = []
    if QGuiApplication.platformName() not in ("offscreen", "minimal"):
        try:
            return QtContext()
        except Exception as error:  # noqa: BLE001 - try the next way
            errors.append(str(error))
    try:
        return _EglContext()
    except Exception as error:  # noqa: BLE001
        errors.append(str(error))
    raise RuntimeError("; ".join(errors) or "no OpenGL context")


class AvatarGL:
    """Draws ``frame`` for a view: ``picture(key, frame, camera, w, h, background)``."""

    def __init__(self, samples: int = 4, aa: str | None = None) -> None:
        """``aa``: how edges are smoothed (msaa, post, none, auto: ``avatar.render.antialias``)."""
        from companion_desktop.avatar.render.renderer import Renderer

        self.context = _make_context()
        self.renderer = Renderer(samples=samples, aa=aa)
        self.samples = samples
        self._targets: dict[object, object] = {}
        self._model = None
        self.renderer_name = _gl_renderer()
        self.drawn = 0  # pictures rendered (a view showing a crop of another's adds none)

    def picture(self, key: object, model, frame, camera, width: int, height: int,  # noqa: ANN001
                background=None, same_frame: bool = False) -> np.ndarray:  # noqa: ANN001
        """Premultiplied BGRA pixels (height, width, 4), top row first. ``same_frame``:
        ``frame`` was just drawn for another view (its skinning is reused)."""
        from companion_desktop.avatar.render.target import read_bgra

        self.context.make_current()
        self.prepare(model)
        target = self._targets.get(key)
        if target is None or (target.width, target.height) != (width, height):
            if target is not None:
                target.release()
            target = self._targets[key] = self.renderer.new_target(width, height)
        self.renderer.draw(frame, camera, width, height, target.draw_fbo,
                           background=background, flip_y=True, same_frame=same_frame)
        target.resolve()
        self.drawn += 1
        return read_bgra(target.resolve_fbo, width, height)

    def prepare(self, model, stop: Callable[[], bool] | None = None) -> bool:  # noqa: ANN001
        """Upload ``model`` with its textures, one texture at a time (a big model's take
        seconds on software GL); False when ``stop()`` said to stop first (at quit: what
        is uploaded stays, the rest follows with the next picture)."""
        from companion_desktop.avatar.render.materials import SLOTS, SRGB_SLOTS

        self.context.make_current()
        if model is not self._model:
            self.renderer.load(model)
            self._model = model
        gpu, materials = self.renderer.gpu, self.renderer.materials
        for params in materials.params:
            for name, ref in params.textures.items():
                if name not in SLOTS:
                    continue  # not drawn
                if stop is not None and stop():
                    return False
                gpu.texture(ref.index, name in SRGB_SLOTS)  # cached once made
        return True

    def forget(self, key: object) -> None:
        """A view went away: free its framebuffer."""
        target = self._targets.pop(key, None)
        if target is not None:
            self.context.make_current()
            target.release()

    def release(self) -> None:
        try:
            self.context.make_current()
            for target in self._targets.values():
                target.release()
            self.renderer.release()
        except Exception:  # noqa: BLE001 - shutting down: the driver frees the rest
            pass
        self._targets.clear()
        self.context.release()


def _gl_renderer() -> str:
    from companion_desktop.avatar.render.context import gl_info

    try:
        return gl_info().get("renderer", "")
    except Exception:  # noqa: BLE001
        return ""
