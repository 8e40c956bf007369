"""An animation clip in model-independent form, and sampling it.

Bone rotations are in the NORMALIZED humanoid space of ``avatar.vrm.pose.Pose``
(world-aligned, she faces +Z, +X is her left): the same clip looks the same on
any model. ``hips_translation`` is an offset from the rest hips position in
metres for a model whose hips are ``hips_height`` metres high; samplers scale it
to the target model (``target_hips_height / hips_height``). Expression weights
are 0..1 by expression name (VRM 1.0 presets or custom names). Numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

Interpolation = Literal["LINEAR", "STEP", "CUBICSPLINE"]


@dataclass
class Track:
    """Keyframes: ``times`` (k,) seconds ascending; ``values`` (k, n), or (k, 3, n) for
    CUBICSPLINE (in-tangent, value, out-tangent). Quaternions are (x, y, z, w)."""

    times: np.ndarray
    values: np.ndarray
    interpolation: Interpolation = "LINEAR"
    quaternion: bool = False


@dataclass
class Clip:
    """A humanoid motion; ``loop`` clips wrap, others hold their last frame."""

    id: str
    name: str
    duration: float  # seconds
    bone_rotations: dict[str, Track] = field(default_factory=dict)
    hips_translation: Track | None = None
    hips_height: float = 1.0  # metres, the source skeleton's rest hips height
    expressions: dict[str, Track] = field(default_factory=dict)
    # gaze direction: a quaternion track turning +Z (played by look_track)
    look_at: Track | None = None
    loop: bool = True
    description: str = ""


@dataclass
class ClipPose:
    """A clip sampled at one time."""

    rotations: dict[str, np.ndarray]  # bone -> (4,) normalized quaternion
    hips_offset: np.ndarray | None  # (3,) metres, already scaled to the target
    expressions: dict[str, float]
