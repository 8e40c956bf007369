"""Pictures without a window: ``render_image`` for one, ``OffscreenRenderer`` for many,
``save_png`` to keep them (RGBA with transparency).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .context import OffscreenContext, RenderUnavailable, prefer_egl

prefer_egl()  # before the first ``import OpenGL`` of a headless process (Linux)

from companion_desktop.avatar.vrm.frame import Frame, rest_frame  # noqa: E402
from companion_desktop.avatar.vrm.model import VrmModel  # noqa: E402

from .camera import Camera, Shot, frame_camera  # noqa: E402
from .renderer import Lighting, Renderer  # noqa: E402

#: Makes the context when none is passed (an object with ``create()`` returning itself,
#: ``make_current()`` and ``release()``): EGL. The command line swaps in one that falls
#: back to Qt's offscreen surface where EGL is missing (``companion_desktop.cli.offscreen_gl``).
context_factory: Callable[[], Any] = OffscreenContext


class OffscreenRenderer:
    """An offscreen context (EGL by default, see :data:`context_factory`) with a renderer, kept
    across pictures. The model is uploaded once and reused while the same ``VrmModel`` object
    is rendered again.

    ``aa`` and ``samples``: how edges are smoothed, as ``Renderer`` takes them (``"auto"``:
    as the app would here). Raises ``RenderUnavailable`` (from ``context``) when no
    context can be made.
    """

    def __init__(self, samples: int = 4, lighting: Lighting | None = None,
                 context: OffscreenContext | None = None, aa: str | None = None):
        self._owns_context = context is None
        self.context = (context or context_factory()).create()
        self.context.make_current()
        self.renderer = Renderer(samples=samples, lighting=lighting, aa=aa)
        self._model: VrmModel | None = None
        self.last_camera: Camera | None = None

    def render(self, model: VrmModel, frame: Frame | None = None, width: int = 512,
               height: int = 768, shot: Shot = "upper", camera: Camera | None = None,
               background=None, premultiplied: bool = False,
               pixel_scale: float = 1.0) -> np.ndarray:
        """One picture (height, width, 4) uint8 RGBA, top row first. ``frame`` defaults to
        the rest pose, ``camera`` to ``frame_camera(model, frame, shot, width / height)``;
        ``background`` None leaves it transparent. ``pixel_scale``: as ``Renderer.draw``
        takes it (4 for a picture to be averaged down 4x4)."""
        self.context.make_current()
        frame = frame if frame is not None else rest_frame(model)
        if camera is None:
            camera = frame_camera(model, frame, shot, width / height)
        if model is not self._model:
            self.renderer.load(model)
            self._model = model
        self.renderer.draw(frame, camera, width, height, background=background,
                           pixel_scale=pixel_scale)
        self.last_camera = camera
        return self.renderer.read_rgba(premultiplied=premultiplied)

    def close(self) -> None:
        if self.context is None:
            return
        try:
            self.context.make_current()
        except RenderUnavailable:
            pass  # another context owns this thread now: the driver frees ours at exit
        else:
            self.renderer.release()
        if self._owns_context:
            self.context.release()
        self.context = None
        self._model = None

    def __enter__(self) -> "OffscreenRenderer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def render_image(model: VrmModel, frame: Frame | None = None, width: int = 512,
                 height: int = 768, shot: Shot = "upper", background=None,
                 camera: Camera | None = None, aa: str = "auto") -> np.ndarray:
    """One straight-alpha RGBA picture (height, width, 4) uint8 with a throwaway context,
    its edges smoothed as ``aa`` says (``antialias``; ``"auto"``: as the app does here)."""
    with OffscreenRenderer(aa=aa) as offscreen:  # the context from ``context_factory``
        return offscreen.render(model, frame, width, height, shot, camera, background)


def save_png(rgba: np.ndarray, path: str | Path) -> Path:
    """Write straight-alpha RGBA (or RGB) uint8 pixels as a PNG; returns the path."""
    from PIL import Image

    pixels = np.ascontiguousarray(rgba, np.uint8)
    if pixels.ndim != 3 or pixels.shape[2] not in (3, 4):
        raise ValueError(f"expected (height, width, 3 or 4) pixels, not {pixels.shape}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels).save(path)
    return path
