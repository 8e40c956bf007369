"""A clip's look-at track (``VRMC_vrm_animation`` lookAt) as eye gaze angles.

The lookAt node's rotation turns the head's forward axis (+Z) into the gaze direction,
relative to the head (as three-vrm's ``VRMLookAtQuaternionProxy`` reads it). It becomes
yaw and pitch in degrees with ``avatar.vrm.look_at.yaw_pitch``: yaw > 0 toward her left
(+X), pitch > 0 up; yaw in -180..180, pitch in -90..90. The runtime's look-at turns these
into eye rotations or look expressions through the model's range maps.

``Gaze`` carries the angles and the weight (0..1) the clip has over the pointer look-at;
``mix_gaze`` blends two layers the way the mixer blends poses (cross-fade or overlay).
Numpy only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..vrm import quat
from ..vrm.look_at import yaw_pitch
from .clip import Clip
from .sampling import sample_track

_FORWARD = np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class Gaze:
    """Where a clip makes her look: ``yaw``/``pitch`` degrees (see the module docstring)
    and ``weight`` 0..1, the share of the clip over the pointer look-at."""

    yaw: float
    pitch: float
    weight: float = 1.0


def gaze_angles(rotation: np.ndarray) -> tuple[float, float] | None:
    """(yaw, pitch) degrees of a lookAt rotation (x, y, z, w); None when it is not a usable
    quaternion (non-finite, or of length near zero)."""
    q = np.asarray(rotation, np.float64).reshape(-1)
    if q.shape != (4,) or not np.all(np.isfinite(q)):
        return None
    length = float(np.sqrt(np.dot(q, q)))
    if length < 1e-6:
        return None
    yaw, pitch = yaw_pitch(quat.rotate(q / length, _FORWARD))
    return max(-180.0, min(180.0, yaw)), max(-90.0, min(90.0, pitch))


class LookTrack:
    """A clip's look-at track, ready to sample each frame (None-safe: no track, no gaze)."""

    def __init__(self, clip: Clip) -> None:
        track = clip.look_at
        usable = track is not None and len(track.times) > 0 and track.quaternion
        self.track = track if usable else None
        self._times = track.times.tolist() if self.track is not None else []

    def __bool__(self) -> bool:
        return self.track is not None

    def gaze(self, t: float) -> Gaze | None:
        """The gaze at clip time ``t`` seconds (already wrapped or held), weight 1."""
        if self.track is None or not math.isfinite(t):
            return None
        angles = gaze_angles(sample_track(self.track, t, self._times))
        return Gaze(angles[0], angles[1]) if angles is not None else None


def sample_gaze(clip: Clip, t: float) -> Gaze | None:
    """``clip``'s gaze at clip time ``t`` (no wrapping here), or None without a track."""
    return LookTrack(clip).gaze(t)


def mix_gaze(a: Gaze | None, b: Gaze | None, w: float, *,
             overlay: bool = False) -> Gaze | None:
    """``a`` -> ``b`` at weight ``w`` (0..1), like ``mixer.blend``.

    A cross-fade gives ``a`` the share ``1 - w`` and ``b`` the share ``w``: a side without
    a track hands its share to the pointer. An overlay (an emote over the base) without a
    track leaves ``a`` as it is. Angles are averaged by share; the result's weight is the
    clips' total share (None when it is 0).
    """
    w = min(1.0, max(0.0, float(w))) if math.isfinite(w) else 0.0
    if overlay and b is None:
        return a
    wa = a.weight * (1.0 - w) if a is not None else 0.0
    wb = b.weight * w if b is not None else 0.0
    total = wa + wb
    if total <= 1e-9:
        return None
    yaw = ((a.yaw * wa if a is not None else 0.0) + (b.yaw * wb if b is not None else 0.0))
    pitch = ((a.pitch * wa if a is not None else 0.0)
             + (b.pitch * wb if b is not None else 0.0))
    return Gaze(yaw / total, pitch / total, min(1.0, total))
