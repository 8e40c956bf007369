"""A Qt view of the shared avatar: the renderer drawing into a QOpenGLWidget.

The widget only needs a current OpenGL 3.3 core context; all drawing is the
``avatar.render`` package's. The camera is framed once per model and size (so
she does not jitter as she breathes); the pointer anywhere on screen becomes a
look-at target in front of her. ``alpha_mask`` and ``hit_region`` use the last
rendered picture, for click-through and tap reactions.
"""

from __future__ import annotations

import logging
import time

import numpy as np
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor, QSurfaceFormat
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtWidgets import QWidget

from companion_desktop.avatar.render.camera import Camera, frame_camera
from companion_desktop.ui.avatar_host import AvatarHost

log = logging.getLogger(__name__)
HEAD_RADIUS_FRACTION = 0.09  # of the view height: a tap this close to her head is "head"


def gl_format(samples: int = 4) -> QSurfaceFormat:
    """OpenGL 3.3 core with an alpha channel (for the transparent overlay)."""
    fmt = QSurfaceFormat()
    fmt.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
    fmt.setVersion(3, 3)
    fmt.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    fmt.setAlphaBufferSize(8)
    fmt.setDepthBufferSize(24)
    fmt.setSamples(samples)
    return fmt


class AvatarView(QOpenGLWidget):
    """Shows ``host``'s avatar with an ``upper`` or ``full`` shot."""

    def __init__(self, host: AvatarHost, shot: str = "upper", parent: QWidget | None = None,
                 follow_pointer: bool = True,
                 background: tuple[float, float, float, float] | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.background = background  # None: transparent (the overlay)
        self.shot = shot
        self.follow_pointer = follow_pointer
        self.setFormat(QSurfaceFormat.defaultFormat() if QSurfaceFormat.defaultFormat().version() >= (3, 3)
                       else gl_format())
        self.renderer = None
        self.error: str | None = None
        self.camera: Camera | None = None
        self.camera_override: Camera | None = None  # photo mode
        self._uploaded = None
        self._last_rgba: np.ndarray | None = None
        self.keep_pixels = False  # read pictures back (overlay click-through, taps) ...
        self.want_pixels = True  # ... on the next paint only (set by whoever needs them)
        host.frame_changed.connect(self.update)
        host.model_changed.connect(self._model_changed)

    # -------------------------------------------------------------- lifecycle
    def showEvent(self, event) -> None:  # noqa: N802, ANN001
        self.host.attach(self)
        if self.follow_pointer:
            self.host.look_provider = self.pointer_target
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802, ANN001
        self.host.detach(self)
        if self.host.look_provider == self.pointer_target:
            self.host.look_provider = None
        super().hideEvent(event)

    def pointer_target(self) -> np.ndarray | None:
        return self.look_target(QCursor.pos())

    def _model_changed(self) -> None:
        self.camera = None
        self.update()

    def initializeGL(self) -> None:  # noqa: N802
        from companion_desktop.avatar.render.renderer import Renderer

        try:
            self.renderer = Renderer(samples=0)
        except Exception as error:  # noqa: BLE001 - no GL 3.3: say so, keep the app running
            self.error = f"Her 3D view needs OpenGL 3.3: {error}"
            log.warning(self.error)
        self.context().aboutToBeDestroyed.connect(self._release)

    def _release(self) -> None:
        if self.renderer is not None:
            self.makeCurrent()
            self.renderer.release()
            self.renderer = None
            self._uploaded = None
            self.doneCurrent()

    # ---------------------------------------------------------------- drawing
    def paintGL(self) -> None:  # noqa: N802
        host = self.host
        if self.renderer is None or host.model is None or host.frame is None:
            self._clear()
            return
        if self._uploaded is not host.model:
            self.renderer.load(host.model)
            self._uploaded = host.model
            self.camera = None
        ratio = self.devicePixelRatioF()
        width, height = max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))
        if self.camera is None:
            self.camera = frame_camera(host.model, host.frame, self.shot, width / height)
        camera = self.camera_override or self.camera
        started = time.perf_counter()
        self.renderer.draw(host.frame, camera, width, height, self.defaultFramebufferObject(),
                           background=self.background)
        if self.keep_pixels and self.want_pixels:
            self._last_rgba = self.renderer.read_rgba(premultiplied=True)
            self.want_pixels = False
        host.report_paint(self, time.perf_counter() - started)

    def _clear(self) -> None:
        if self.renderer is not None:
            self.renderer.clear(self.defaultFramebufferObject(), self.background)

    def resizeGL(self, w: int, h: int) -> None:  # noqa: N802
        self.camera = None

    # ----------------------------------------------------------- look and touch
    def head_point(self) -> np.ndarray | None:
        host = self.host
        if host.model is None or host.frame is None:
            return None
        node = host.model.humanoid.get("head")
        if node is None:
            return None
        return host.frame.world[node][:3, 3].astype(np.float32)

    def head_pixel(self) -> QPoint | None:
        head, camera = self.head_point(), self.camera
        if head is None or camera is None:
            return None
        x, y = camera.project(head[None, :] + np.array([0, 0.06, 0], np.float32),
                              self.width(), self.height())[0]
        return QPoint(round(float(x)), round(float(y)))

    def look_target(self, global_pos: QPoint) -> np.ndarray | None:
        """A world point for the pointer at ``global_pos``, in front of her face."""
        head, camera, pixel = self.head_point(), self.camera, self.head_pixel()
        if head is None or camera is None or pixel is None:
            return None
        local = self.mapFromGlobal(global_pos)
        dx, dy = local.x() - pixel.x(), local.y() - pixel.y()
        eye = np.asarray(camera.eye, np.float32)
        distance = float(np.linalg.norm(eye - head))
        per_pixel = 2 * distance * np.tan(np.radians(camera.fov_y) / 2) / max(1, self.height())
        view = camera.view_matrix()
        right, up = view[0, :3], view[1, :3]
        return eye + right * dx * per_pixel - up * dy * per_pixel

    def alpha_at(self, pos: QPoint) -> int:
        """Alpha (0-255) of the last picture at widget position ``pos``; 0 when unknown."""
        rgba = self._last_rgba
        if rgba is None:
            return 0
        ratio = rgba.shape[0] / max(1, self.height())
        x, y = int(pos.x() * ratio), int(pos.y() * ratio)
        if 0 <= y < rgba.shape[0] and 0 <= x < rgba.shape[1]:
            return int(rgba[y, x, 3])
        return 0

    def hit_region(self, pos: QPoint) -> str | None:
        """"head", "body" or None (a transparent pixel) for a tap at ``pos``."""
        head = self.head_pixel()
        if head is not None:
            reach = HEAD_RADIUS_FRACTION * self.height()
            if (pos - head).manhattanLength() <= reach * 1.4:
                return "head"
        return "body" if self.alpha_at(pos) > 24 else None

    def alpha_mask(self, threshold: int = 24) -> np.ndarray | None:
        """Where she is opaque in the last picture, (height, width) bool at widget size."""
        rgba = self._last_rgba
        if rgba is None:
            return None
        step = max(1, round(rgba.shape[0] / max(1, self.height())))
        return rgba[::step, ::step, 3] > threshold

    def cursor_shape(self) -> Qt.CursorShape:
        return Qt.CursorShape.OpenHandCursor
