"""A view of the shared avatar: a plain raster widget painting the host's picture.

``AvatarHost`` draws her once per changed frame, for each showing view, with one
offscreen OpenGL context (``avatar_gl``); the view only frames the camera (once per
model and size, so she does not jitter as she breathes), paints the picture it is
given, and answers questions about it: ``alpha_mask`` and ``hit_region`` for
click-through and taps, ``look_target`` for the pointer anywhere on screen.
"""

from __future__ import annotations

import logging

import numpy as np
from PySide6.QtCore import QPoint, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QCursor, QImage, QPainter, QSurfaceFormat
from PySide6.QtWidgets import QWidget

from companion_desktop.avatar.render.camera import Camera, frame_camera
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.avatar.overlay_geometry import fit_mask

log = logging.getLogger(__name__)
HEAD_RADIUS_FRACTION = 0.09  # of the view height: a tap this close to her head is "head"


def gl_format(samples: int = 4) -> QSurfaceFormat:
    """OpenGL 3.3 core with an alpha channel (kept for callers that make GL windows)."""
    fmt = QSurfaceFormat()
    fmt.setRenderableType(QSurfaceFormat.RenderableType.OpenGL)
    fmt.setVersion(3, 3)
    fmt.setProfile(QSurfaceFormat.OpenGLContextProfile.CoreProfile)
    fmt.setAlphaBufferSize(8)
    fmt.setDepthBufferSize(24)
    fmt.setSamples(samples)
    return fmt


class AvatarView(QWidget):
    """Shows ``host``'s avatar with an ``upper`` or ``full`` shot."""

    def __init__(self, host: AvatarHost, shot: str = "upper", parent: QWidget | None = None,
                 follow_pointer: bool = True,
                 background: tuple[float, float, float, float] | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.background = background  # None: transparent (the overlay)
        self.shot = shot
        self.follow_pointer = follow_pointer
        self.error: str | None = None
        self.camera: Camera | None = None
        self._override: Camera | None = None  # photo mode
        self._pointer: QPoint | None = None  # where the pointer was at the last look
        self._look: tuple | None = None  # (pointer on the view and its size, camera, target)
        self._image: QImage | None = None
        self._pixels: np.ndarray | None = None  # BGRA premultiplied, top row first
        self._crop: QRectF | None = None  # the part of _pixels shown (another view's picture)
        self.picture_wanted = True
        self.serial = 0  # counts pictures set (the overlay re-shapes itself only on a new one)
        self.keep_pixels = True  # (kept for callers; pictures are always kept now)
        self.want_pixels = True
        if background is None:
            self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground)
        else:
            self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
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

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        self.camera = None
        self.picture_wanted = True
        super().resizeEvent(event)

    def is_showing(self) -> bool:
        """Visible, on an exposed window, and not fully covered by other widgets."""
        if not self.isVisible():
            return False
        handle = self.window().windowHandle()
        if handle is None or not handle.isExposed():
            return False
        return not self.visibleRegion().isEmpty()

    def pointer_target(self) -> np.ndarray | None:
        """The look target for the pointer (``look_target``); a pointer that moved since
        the last call keeps her at the full frame rate (``AvatarHost.poke``).

        The target is worked out again only when the pointer moved over this view, the
        view changed size or got a new camera: a still pointer is a still point in her
        world, which her eyes keep while she sways (it cost 0.3 ms a tick, 24 times a
        second, to find the same point again)."""
        pos = QCursor.pos()
        if pos != self._pointer:
            self._pointer = pos
            self.host.poke()
        local = self.mapFromGlobal(pos)
        key = (local.x(), local.y(), self.width(), self.height())
        kept = self._look
        if kept is not None and kept[0] == key and kept[1] is self.camera:
            return kept[2]
        target = self.look_target(pos)
        self._look = (key, self.camera, target) if target is not None else None
        return target

    def _model_changed(self) -> None:
        self.camera = None
        self.picture_wanted = True

    @property
    def camera_override(self) -> Camera | None:
        return self._override

    @camera_override.setter
    def camera_override(self, camera: Camera | None) -> None:
        self._override = camera
        self.picture_wanted = True

    # ---------------------------------------------------------------- pictures
    def picture_size(self) -> tuple[int, int]:
        ratio = self.devicePixelRatioF()
        return max(1, round(self.width() * ratio)), max(1, round(self.height() * ratio))

    def render_camera(self) -> Camera | None:
        host = self.host
        if host.model is None or host.frame is None:
            return None
        if self.camera is None:
            width, height = self.picture_size()
            self.camera = frame_camera(host.model, host.frame, self.shot, width / height)
        return self._override or self.camera

    def set_picture(self, pixels: np.ndarray | None, error: str | None = None,
                    crop: tuple[float, float, float, float] | None = None) -> None:
        """The host's new picture (premultiplied BGRA, top row first), or an error.
        ``crop`` (x, y, width, height in its pixels): ``pixels`` is another view's picture,
        and this part of it is what this view shows (scaled smoothly to the view)."""
        self.error = error
        self._pixels = pixels
        self._crop = QRectF(*crop) if crop is not None and pixels is not None else None
        self.serial += 1
        if pixels is None:
            self._image = None
        else:
            height, width = pixels.shape[:2]
            self._image = QImage(pixels.data, width, height, width * 4,
                                 QImage.Format.Format_ARGB32_Premultiplied)
            if self._crop is None:
                self._image.setDevicePixelRatio(self.devicePixelRatioF())
        self.update()

    @property
    def shows_crop(self) -> bool:
        """Its picture is a part of another view's (one render serving both windows)."""
        return self._crop is not None

    def picture(self) -> QImage:
        """A copy of what the view shows now (premultiplied ARGB32), for saving."""
        if self._image is None:
            return QImage()
        if self._crop is not None:
            width, height = self.picture_size()
            return self._image.copy(self._crop.toRect()).scaled(
                width, height, Qt.AspectRatioMode.IgnoreAspectRatio,
                Qt.TransformationMode.SmoothTransformation)
        return self._image.copy()

    def paintEvent(self, event) -> None:  # noqa: N802, ANN001
        painter = QPainter(self)
        if self.background is not None:
            r, g, b, a = self.background
            painter.fillRect(event.rect(), QColor.fromRgbF(r, g, b, a))
        if self._image is not None and self._crop is not None:
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(QRectF(0, 0, self.width(), self.height()), self._image, self._crop)
        elif self._image is not None:
            painter.drawImage(QRect(0, 0, self.width(), self.height()), self._image)
        elif self.error:
            painter.setPen(QColor(90, 80, 100))
            painter.drawText(self.rect().adjusted(8, 8, -8, -8),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.error)
        painter.end()

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
        pixels = self._pixels
        if pixels is None or self._crop is not None:
            return 0
        ratio = pixels.shape[0] / max(1, self.height())
        x, y = int(pos.x() * ratio), int(pos.y() * ratio)
        if 0 <= y < pixels.shape[0] and 0 <= x < pixels.shape[1]:
            return int(pixels[y, x, 3])
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
        pixels = self._pixels
        if pixels is None or self._crop is not None:
            return None
        return fit_mask(pixels[:, :, 3], self.height(), self.width()) > threshold

    def cursor_shape(self) -> Qt.CursorShape:
        return Qt.CursorShape.OpenHandCursor
