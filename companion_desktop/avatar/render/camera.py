"""A perspective camera and automatic framing of an avatar. Numpy only, no OpenGL.

A VRM model faces +Z once its ``root_rotation_y`` is applied (the frame's world
matrices include it), so the framing camera sits on +Z and looks toward -Z.
Matrices are 4x4 float32, column vectors, stored row-major (like ``avatar.vrm``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import VrmModel

from .bounds import all_posed_positions, bounding_box

Shot = Literal["upper", "full"]


def _vec(values) -> np.ndarray:
    return np.asarray(values, np.float32).reshape(3)


@dataclass
class Camera:
    """Perspective camera: ``fov_y`` in degrees (vertical), distances in metres."""

    eye: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.3, 2.0], np.float32))
    target: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.3, 0.0], np.float32))
    up: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0], np.float32))
    fov_y: float = 30.0
    near: float = 0.05
    far: float = 100.0

    def view_matrix(self) -> np.ndarray:
        """World -> view (camera looks down its -Z). Worked out again only when the eye,
        target or up changed (their values are the key); a copy each call."""
        return self._kept("_view", self._pose_key(), self._view_of).copy()

    def _kept(self, name: str, key: tuple, make) -> np.ndarray:  # noqa: ANN001
        """``make()``, kept under ``name`` while ``key`` (the values it depends on) holds."""
        kept = self.__dict__.get(name)
        if kept is None or kept[0] != key:
            kept = self.__dict__[name] = (key, make())
        return kept[1]

    def _pose_key(self) -> tuple:
        return (np.asarray(self.eye, np.float32).tobytes(),
                np.asarray(self.target, np.float32).tobytes(),
                np.asarray(self.up, np.float32).tobytes())

    def _view_of(self) -> np.ndarray:
        eye, target = _vec(self.eye), _vec(self.target)
        forward = target - eye
        forward /= max(float(np.linalg.norm(forward)), 1e-12)
        right = np.cross(forward, _vec(self.up))
        if np.linalg.norm(right) < 1e-6:  # looking straight up or down
            right = np.cross(forward, np.array([0.0, 0.0, 1.0], np.float32))
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        view = np.eye(4, dtype=np.float32)
        view[0, :3], view[1, :3], view[2, :3] = right, up, -forward
        view[:3, 3] = -view[:3, :3] @ eye
        return view

    def projection_matrix(self, aspect: float) -> np.ndarray:
        """OpenGL clip matrix for ``aspect`` = width / height."""
        f = 1.0 / math.tan(math.radians(self.fov_y) / 2.0)
        near, far = float(self.near), float(self.far)
        proj = np.zeros((4, 4), np.float32)
        proj[0, 0] = f / max(aspect, 1e-6)
        proj[1, 1] = f
        proj[2, 2] = (far + near) / (near - far)
        proj[2, 3] = 2.0 * far * near / (near - far)
        proj[3, 2] = -1.0
        return proj

    def project(self, points: np.ndarray, width: int, height: int) -> np.ndarray:
        """Pixel coordinates (n, 2) of world points: x right, y down, (0, 0) the
        top-left corner of the top-left pixel (image row order, as ``read_rgba``)."""
        pts = np.asarray(points, np.float32).reshape(-1, 3)
        clip = np.concatenate([pts, np.ones((len(pts), 1), np.float32)], axis=1)
        clip = clip @ self._clip_from_world(width / height)
        ndc = clip[:, :2] / clip[:, 3:4]
        return np.stack([(ndc[:, 0] + 1) * 0.5 * width, (1 - ndc[:, 1]) * 0.5 * height], axis=1)

    def _clip_from_world(self, aspect: float) -> np.ndarray:
        """(projection @ view).T for ``aspect``, kept while nothing it depends on changed."""
        return self._kept("_clip", (self._pose_key(), aspect, self.fov_y, self.near, self.far),
                          lambda: (self.projection_matrix(aspect) @ self.view_matrix()).T)


def _bone(model: VrmModel, frame: Frame, name: str) -> np.ndarray | None:
    node = model.humanoid.get(name)
    if node is None or not 0 <= node < len(frame.world):
        return None
    return frame.world[node][:3, 3].astype(np.float32)


def _upper_box(model: VrmModel, frame: Frame, points: np.ndarray):
    """Box from the hips up to the top of the head (hair included), shoulders wide."""
    head, hips = _bone(model, frame, "head"), _bone(model, frame, "hips")
    if head is None or hips is None or head[1] <= hips[1]:
        return None
    neck = _bone(model, frame, "neck")
    chest = _bone(model, frame, "upperChest")
    chest = chest if chest is not None else _bone(model, frame, "chest")
    neck_y = neck[1] if neck is not None else head[1] - 0.25 * (head[1] - hips[1])
    above = points[points[:, 1] >= neck_y] if len(points) else points
    top = float(above[:, 1].max()) if len(above) else head[1] + 0.6 * (head[1] - hips[1])
    top = max(top, float(head[1]))
    bottom = float(hips[1])
    centre_x = float(head[0] + hips[0]) * 0.5
    half_w = 0.5 * (top - bottom) * 0.45  # a plain bust when arms are missing
    arms = [_bone(model, frame, n) for n in ("leftUpperArm", "rightUpperArm")]
    spans = [abs(float(a[0]) - centre_x) for a in arms if a is not None]
    if spans:
        half_w = max(half_w, 1.6 * max(spans))
    crown = points[points[:, 1] >= head[1]] if len(points) else points
    if len(crown):  # wide hair or raised hands
        half_w = max(half_w, float(np.abs(crown[:, 0] - centre_x).max()))
    torso = [p for p in (head, chest, hips) if p is not None]
    centre_z = float(np.mean([p[2] for p in torso]))
    depth = 0.5 * (top - bottom) * 0.3
    low = np.array([centre_x - half_w, bottom, centre_z - depth], np.float32)
    high = np.array([centre_x + half_w, top, centre_z + depth], np.float32)
    return low, high


def fit_box(low: np.ndarray, high: np.ndarray, aspect: float, fov_y: float = 30.0,
            margin: float = 0.06) -> Camera:
    """A camera on +Z looking at -Z that shows the box with ``margin`` (fraction of
    the picture) free on its tightest side."""
    low, high = _vec(low), _vec(high)
    centre = (low + high) * 0.5
    half = np.maximum((high - low) * 0.5, 1e-4)
    tan_v = math.tan(math.radians(fov_y) / 2.0) * (1.0 - 2.0 * margin)
    tan_h = tan_v * max(aspect, 1e-6)
    distance = max(half[1] / tan_v, half[0] / tan_h) + half[2]
    size = float(np.linalg.norm(half))
    eye = centre + np.array([0.0, 0.0, distance], np.float32)
    near = max(distance - half[2] - 2.0 * size, distance * 0.02)
    return Camera(eye=eye, target=centre, fov_y=fov_y, near=near, far=distance + 4.0 * size)


def frame_camera(model: VrmModel, frame: Frame, shot: Shot = "upper", aspect: float = 2 / 3,
                 fov_y: float = 30.0, margin: float = 0.06) -> Camera:
    """Frame the avatar: ``upper`` = hips to above the head (humanoid bones), ``full`` =
    the bounding box of every posed vertex. Models without a humanoid use the box for
    both. The result does not depend on the model's size (it scales with it)."""
    if shot not in ("upper", "full"):
        raise ValueError(f"shot must be 'upper' or 'full', not {shot!r}")
    points = all_posed_positions(model, frame)
    box = _upper_box(model, frame, points) if shot == "upper" and model.humanoid else None
    if box is None:
        box = bounding_box(points)
    return fit_box(box[0], box[1], aspect, fov_y, margin)


def view_within(outer: Camera, outer_size: tuple[int, int], inner: Camera,
                inner_size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """Where the picture ``inner`` would take of ``inner_size`` pixels lies in the picture
    ``outer`` takes of ``outer_size``: (x, y, width, height) in ``outer``'s pixels, when the
    two cameras look the same way (framing cameras do) and the rectangle lies inside
    ``outer``'s picture; else None. Taken at the depth ``inner`` looks at, so a crop of
    ``outer``'s picture shows what ``inner`` would (up to the parallax of depths in front
    of and behind that plane: a few pixels for an avatar framed whole and from the hips)."""
    forward_in = _vec(inner.target) - _vec(inner.eye)
    forward_out = _vec(outer.target) - _vec(outer.eye)
    forward_in /= max(float(np.linalg.norm(forward_in)), 1e-12)
    forward_out /= max(float(np.linalg.norm(forward_out)), 1e-12)
    if float(forward_in @ forward_out) < 0.9999 or float(_vec(inner.up) @ _vec(outer.up)) < 0.9999:
        return None
    inner_view = inner.view_matrix()
    right, up = inner_view[0, :3], inner_view[1, :3]
    distance = float(np.linalg.norm(_vec(inner.target) - _vec(inner.eye)))
    half_h = distance * math.tan(math.radians(inner.fov_y) / 2.0)
    half_w = half_h * inner_size[0] / max(1, inner_size[1])
    centre = _vec(inner.target)
    corners = np.stack([centre - right * half_w + up * half_h,
                        centre + right * half_w - up * half_h])
    (x0, y0), (x1, y1) = outer.project(corners, *outer_size)
    rect = (float(x0), float(y0), float(x1 - x0), float(y1 - y0))
    slack = 0.5  # pixels: rounding of the framing
    if (rect[2] <= 0 or rect[3] <= 0 or x0 < -slack or y0 < -slack
            or x1 > outer_size[0] + slack or y1 > outer_size[1] + slack):
        return None
    return rect
