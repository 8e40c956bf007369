"""A clip pose written into a model's pose, and the relaxed arms-down pose as rotations:
what the mixer and the driver both build on. Numpy only."""

from __future__ import annotations

import numpy as np

from ..vrm import quat
from ..vrm.pose import Pose
from ..vrm.relaxed import relaxed_pose
from .clip import ClipPose


def apply_clip_pose(pose: Pose, clip_pose: ClipPose) -> None:
    """Write a clip pose's bone rotations (normalized space) and hips offset into ``pose``;
    bones the pose does not hold, and bones the model lacks, are left as they are."""
    index = pose.skeleton.bone_index
    rows = [(index[bone], q) for bone, q in clip_pose.rotations.items() if bone in index]
    if rows:
        idx = np.array([r[0] for r in rows], np.int64)
        pose.normalized[idx] = quat.normalize(np.array([r[1] for r in rows], np.float64))
    if clip_pose.hips_offset is not None:
        pose.set_hips_offset(clip_pose.hips_offset)


class _Recorder:
    """Collects ``set_bone_rotation`` calls (to read the relaxed pose as rotations)."""

    def __init__(self) -> None:
        self.rotations: dict[str, np.ndarray] = {}

    def set_bone_rotation(self, bone: str, rotation: np.ndarray) -> None:
        self.rotations[bone] = np.asarray(rotation, np.float64)


def relaxed_rotations() -> dict[str, np.ndarray]:
    """The relaxed arms-down pose (``avatar.vrm.relaxed``) at rest, as bone rotations."""
    recorder = _Recorder()
    relaxed_pose(recorder, 0.0, 0.0)  # type: ignore[arg-type]
    return recorder.rotations
