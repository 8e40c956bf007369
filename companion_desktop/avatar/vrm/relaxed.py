"""A relaxed standing pose: arms down at her sides instead of the export T-pose.

Used as the animation hook until clips drive her (``AvatarRuntime(animation=...)``).
Rotations are in the normalized humanoid space (she faces +Z, +X is her left).
"""

from __future__ import annotations

import math

import numpy as np

from . import quat
from .pose import Pose

ARM_DOWN_DEG = 72.0  # upper arms down from horizontal
ELBOW_DEG = 12.0  # a little bend, forearms forward
SWAY_DEG = 1.2  # a slow idle sway of the arms, degrees
SWAY_HZ = 0.18

_Z = np.array([0.0, 0.0, 1.0], np.float32)
_Y = np.array([0.0, 1.0, 0.0], np.float32)


def _about(axis: np.ndarray, degrees: float) -> np.ndarray:
    return quat.from_axis_angle(axis, math.radians(degrees))


def relaxed_pose(pose: Pose, dt: float, time: float) -> None:
    """Arms down with a slight elbow bend and a barely visible sway."""
    sway = SWAY_DEG * math.sin(2 * math.pi * SWAY_HZ * time)
    pose.set_bone_rotation("leftUpperArm", _about(_Z, -(ARM_DOWN_DEG + sway)))
    pose.set_bone_rotation("rightUpperArm", _about(_Z, ARM_DOWN_DEG + sway))
    # forearms point along +-X; she faces +Z, so forward is +Z: turn the left one
    # (+X) by -ELBOW about +Y and the right one (-X) by +ELBOW
    pose.set_bone_rotation("leftLowerArm", _about(_Y, -ELBOW_DEG))
    pose.set_bone_rotation("rightLowerArm", _about(_Y, ELBOW_DEG))
