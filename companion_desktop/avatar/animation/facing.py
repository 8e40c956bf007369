"""Which way she faces: a turn of her whole body about the vertical, eased.

She faces the viewer (+Z) by default. ``face(direction)`` turns her toward screen right
(direction > 0: a turn to her left, toward +X, which the viewer sees on the right) or
screen left (< 0) by ``SIDE_YAW_DEG`` at most: three-quarters on, so her face stays
visible while she walks. 0 faces the viewer again. The turn eases at ``TURN_DEG_PER_S``
(a turn at a surface's end takes about half a second). ``apply(pose, dt)`` runs after the
clips have posed her: it turns the hips bone (the root of the humanoid, so everything
follows) and the hips offset with it. Numpy only.
"""

from __future__ import annotations

import math

import numpy as np

from ..vrm import quat
from ..vrm.pose import Pose

SIDE_YAW_DEG = 65.0  # how far she turns to walk sideways
TURN_DEG_PER_S = 280.0  # how fast she turns
UP = np.array([0.0, 1.0, 0.0])


class Facing:
    """The yaw she shows (degrees, > 0 toward screen right) and the yaw she turns to."""

    def __init__(self) -> None:
        self.yaw = 0.0
        self.target = 0.0

    def face(self, direction: float) -> None:
        """-1 screen left .. 0 the viewer .. +1 screen right (clamped)."""
        self.target = SIDE_YAW_DEG * max(-1.0, min(1.0, float(direction)))

    @property
    def turning(self) -> bool:
        return abs(self.target - self.yaw) > 1e-6

    def step(self, dt: float) -> float:
        """Ease toward the target over ``dt`` seconds (smooth at both ends); the yaw."""
        gap = self.target - self.yaw
        if abs(gap) <= 1e-6:
            self.yaw = self.target
            return self.yaw
        # speed falls off near the target: no hard stop at the end of a turn
        speed = TURN_DEG_PER_S * min(1.0, 0.25 + abs(gap) / 40.0)
        move = min(abs(gap), speed * max(0.0, dt))
        self.yaw += math.copysign(move, gap)
        return self.yaw

    def apply(self, pose: Pose, dt: float) -> None:
        """Turn her body by the current yaw (after ``dt`` seconds of easing)."""
        yaw = self.step(dt)
        if abs(yaw) < 1e-6:
            return
        turn = quat.from_axis_angle(UP, math.radians(yaw))
        pose.set_bone_rotation("hips", quat.multiply(turn, pose.bone_rotation("hips")))
        pose.set_hips_offset(quat.rotate(turn, pose.hips_offset.copy()))
