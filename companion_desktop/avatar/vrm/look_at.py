"""Eye gaze toward a world point (VRMC_vrm lookAt), smoothed without overshoot.

Angles are degrees. ``yaw`` > 0 turns toward the model's left (+X for a model facing +Z),
``pitch`` > 0 looks up; both are measured in the head's normalized frame from
``offset_from_head`` (head node space). Range maps turn angles into outputs:

* bone type: left/right eye rotations in degrees. For the left eye, yaw > 0 is outward
  (``horizontal_outer``) and yaw < 0 inward (``horizontal_inner``); the right eye mirrors.
  Pitch up uses ``vertical_up``, down ``vertical_down``. The eyes are rotated through the
  normalized humanoid (see ``pose``), so rest orientations don't matter.
* expression type: weights 0..1 of lookLeft/lookRight (``horizontal_outer``) and
  lookUp (``vertical_up``) / lookDown (``vertical_down``).

A clip's look-at track (``set_clip_gaze``, fed by ``animation.driver.AnimationDriver``) gives
yaw/pitch directly, blended over the pointer's by the clip's weight; both go through the
same range maps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import quat
from .expressions import ExpressionManager
from .model import LookAt, RangeMap, VrmModel
from .pose import Pose


def map_range(range_map: RangeMap, degrees: float) -> float:
    """``output_scale x clamp(degrees / input_max, 0, 1)``; negative input gives 0."""
    if range_map.input_max <= 0.0:
        return range_map.output_scale if degrees > 0.0 else 0.0
    return range_map.output_scale * min(1.0, max(0.0, degrees / range_map.input_max))


def yaw_pitch(direction: np.ndarray | Sequence[float]) -> tuple[float, float]:
    """Degrees of a direction in the head frame (+Z forward, +Y up, +X the model's left)."""
    x, y, z = (float(v) for v in direction)
    if x == 0.0 and y == 0.0 and z == 0.0:
        return 0.0, 0.0
    return math.degrees(math.atan2(x, z)), math.degrees(math.atan2(y, math.hypot(x, z)))


Angles = tuple[float, float]


def eye_angles(look: LookAt, yaw: float, pitch: float) -> tuple[Angles, Angles]:
    """Bone type: ((left yaw, left pitch), (right yaw, right pitch)) eye rotations, degrees."""
    vertical = map_range(look.vertical_up, pitch) if pitch >= 0.0 else \
        -map_range(look.vertical_down, -pitch)
    if yaw >= 0.0:
        left, right = map_range(look.horizontal_outer, yaw), map_range(look.horizontal_inner, yaw)
    else:
        left = -map_range(look.horizontal_inner, -yaw)
        right = -map_range(look.horizontal_outer, -yaw)
    return (left, vertical), (right, vertical)


def look_expression_weights(look: LookAt, yaw: float, pitch: float) -> dict[str, float]:
    """Expression type: lookLeft/lookRight/lookUp/lookDown weights, 0..1."""
    def clamp(v: float) -> float:
        return min(1.0, max(0.0, v))

    return {
        "lookLeft": clamp(map_range(look.horizontal_outer, yaw)),
        "lookRight": clamp(map_range(look.horizontal_outer, -yaw)),
        "lookUp": clamp(map_range(look.vertical_up, pitch)),
        "lookDown": clamp(map_range(look.vertical_down, -pitch)),
    }


def eye_rotation(yaw_deg: float, pitch_deg: float) -> np.ndarray:
    """A normalized eye rotation: yaw about +Y, then pitch (up is a negative X turn)."""
    return np.array(_eye_quat(yaw_deg, pitch_deg))


def _eye_quat(yaw_deg: float, pitch_deg: float) -> tuple[float, float, float, float]:
    """``eye_rotation`` in plain floats: ``from_euler(-pitch, yaw, 0, "YXZ")`` = Ry * Rx."""
    half_x, half_y = -0.5 * math.radians(pitch_deg), 0.5 * math.radians(yaw_deg)
    sx, cx, sy, cy = math.sin(half_x), math.cos(half_x), math.sin(half_y), math.cos(half_y)
    return cy * sx, sy * cx, -sy * sx, cy * cx


def smooth_critical(value: float, velocity: float, goal: float, omega: float, dt: float
                    ) -> tuple[float, float]:
    """Critically damped step toward ``goal`` (exact solution); never passes the goal."""
    if dt <= 0.0:
        return value, velocity
    error = value - goal
    decay = math.exp(-omega * dt)
    c = velocity + omega * error
    new_error = (error + c * dt) * decay
    new_velocity = (velocity - omega * c * dt) * decay
    if error != 0.0 and (new_error > 0.0) != (error > 0.0):
        return goal, 0.0
    if abs(new_error) < 1e-6 and abs(new_velocity) < 1e-4:
        return goal, 0.0
    return goal + new_error, new_velocity


#: Bounds of a clip's gaze, degrees (yaw: a full turn either way; pitch: straight up/down).
MAX_YAW_DEG, MAX_PITCH_DEG = 180.0, 90.0
#: A clip weight falling by more than this in one frame (a clip cut off without a fade)
#: restarts the pointer's smoothing from where the eyes were, so they don't jump.
_CUT_WEIGHT = 0.25


class LookAtController:
    """Turns a target point into eye rotations or look expressions, once per frame.

    A playing clip's look-at track (``set_clip_gaze``) takes over from the pointer by its
    weight: the applied angles are ``pointer + (clip - pointer) x weight``. The pointer
    angles keep being smoothed underneath, so she looks back at it as the clip fades out.
    """

    def __init__(self, model: VrmModel, omega: float = 14.0) -> None:
        self.model = model
        self.look = model.look_at
        self.head = model.humanoid.get("head")
        self.omega = omega
        self.target: np.ndarray | None = None
        self.yaw = self.pitch = 0.0  # the applied angles, degrees
        self.pointer_yaw = self.pointer_pitch = 0.0  # the smoothed pointer angles, degrees
        self._yaw_v = self._pitch_v = 0.0
        self.clip_gaze: tuple[float, float] | None = None  # (yaw, pitch) degrees
        self.clip_weight = 0.0  # 0..1
        self._last_weight = 0.0
        self._offset = (0.0, 0.0, 0.0) if self.look is None else \
            tuple(float(v) for v in np.asarray(self.look.offset_from_head, np.float64).reshape(3))
        self._rest: tuple[object, list[list[float]]] | None = None  # (skeleton, head rest R)
        self._eyes: tuple[object, list[int | None]] | None = None  # (skeleton, eye bone rows)

    @property
    def enabled(self) -> bool:
        return self.look is not None and self.head is not None

    def look_at(self, point: np.ndarray | None) -> None:
        """A world-space target (metres), or None to look straight ahead."""
        self.target = None if point is None else np.asarray(point, np.float64).reshape(3)

    def set_clip_gaze(self, gaze: tuple[float, float] | None, weight: float = 1.0) -> None:
        """A clip's gaze: (yaw, pitch) degrees in the head frame (as ``yaw_pitch``), clamped
        to +-180 / +-90, shown at ``weight`` (0..1) over the pointer. None, a weight of 0 or
        non-finite numbers give the eyes back to the pointer."""
        try:
            # None (or a bad gaze) is caught below
            yaw, pitch, w = float(gaze[0]), float(gaze[1]), float(weight)  # type: ignore[index]
        except (TypeError, ValueError, IndexError):
            yaw = pitch = w = math.nan
        if not (math.isfinite(yaw) and math.isfinite(pitch) and math.isfinite(w)) or w <= 0.0:
            self.clip_gaze, self.clip_weight = None, 0.0
            return
        self.clip_gaze = (min(MAX_YAW_DEG, max(-MAX_YAW_DEG, yaw)),
                          min(MAX_PITCH_DEG, max(-MAX_PITCH_DEG, pitch)))
        self.clip_weight = min(1.0, w)

    def goal(self, pose: Pose, world: np.ndarray) -> tuple[float, float]:
        """Unsmoothed yaw and pitch (degrees) from the head to the target."""
        if self.target is None or not self.enabled:
            return 0.0, 0.0
        sk = pose.skeleton
        if self._rest is None or self._rest[0] is not sk:
            self._rest = (sk, quat.to_matrix(sk.rest_world_rotation[self.head]).tolist())
        rest = self._rest[1]
        m = world[self.head].tolist()
        ox, oy, oz = self._offset
        tx, ty, tz = self.target.tolist()
        # d = target - origin, origin = head position + R_head offset
        d = [t - (r[0] * ox + r[1] * oy + r[2] * oz + r[3])  # rows 0..2 of m
             for t, r in zip((tx, ty, tz), m, strict=False)]
        # the head's normalized frame N = R_world R_rest^T, so local = R_rest R_world^T d
        # (R_world with its columns scaled to unit length)
        v = []
        for c in range(3):
            norm = math.sqrt(m[0][c] * m[0][c] + m[1][c] * m[1][c] + m[2][c] * m[2][c])
            v.append((m[0][c] * d[0] + m[1][c] * d[1] + m[2][c] * d[2]) / norm)
        return yaw_pitch(tuple(r[0] * v[0] + r[1] * v[1] + r[2] * v[2] for r in rest))

    def update(self, pose: Pose, world: np.ndarray, dt: float,
               expressions: ExpressionManager | None = None) -> bool:
        """Smooth toward the goal, blend in the clip's gaze and apply; True when it moved."""
        if not self.enabled:
            return False
        goal_yaw, goal_pitch = self.goal(pose, world)
        before = (self.yaw, self.pitch)
        weight = self.clip_weight if self.clip_gaze is not None else 0.0
        if self._last_weight - weight > _CUT_WEIGHT:  # cut off: smooth on from the eyes
            self.pointer_yaw, self.pointer_pitch = before
            self._yaw_v = self._pitch_v = 0.0
        self._last_weight = weight
        self.pointer_yaw, self._yaw_v = smooth_critical(
            self.pointer_yaw, self._yaw_v, goal_yaw, self.omega, dt)
        self.pointer_pitch, self._pitch_v = smooth_critical(
            self.pointer_pitch, self._pitch_v, goal_pitch, self.omega, dt)
        self.yaw, self.pitch = self.pointer_yaw, self.pointer_pitch
        if self.clip_gaze is not None and weight > 0.0:
            self.yaw += (self.clip_gaze[0] - self.yaw) * weight
            self.pitch += (self.clip_gaze[1] - self.pitch) * weight
        self.apply(pose, expressions)
        return abs(self.yaw - before[0]) > 1e-5 or abs(self.pitch - before[1]) > 1e-5

    def apply(self, pose: Pose, expressions: ExpressionManager | None = None) -> None:
        """Write the current yaw/pitch: eye bones (bone type) or look expressions."""
        look = self.look
        assert look is not None, "a model without look-at has nothing to apply (not enabled)"
        if look.type == "expression":
            if expressions is not None:
                weights = look_expression_weights(look, self.yaw, self.pitch)
                for name, weight in weights.items():
                    expressions.set(name, weight)
            return
        (ly, lp), (ry, rp) = eye_angles(look, self.yaw, self.pitch)
        sk = pose.skeleton
        if self._eyes is None or self._eyes[0] is not sk:
            self._eyes = (sk, [sk.bone_index.get(b) for b in ("leftEye", "rightEye")])
        left, right = self._eyes[1]
        if left is not None:
            pose.normalized[left] = _eye_quat(ly, lp)
        if right is not None:
            pose.normalized[right] = _eye_quat(ry, rp)
        pose.apply_humanoid(("leftEye", "rightEye"))
