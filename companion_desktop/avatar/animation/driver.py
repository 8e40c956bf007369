"""The ``AvatarRuntime(animation=...)`` hook: the mixer's blended pose, emote face and
clip gaze applied to a runtime each frame (relaxed arms under bones no clip animates).

Numpy only.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..vrm.pose import Pose
from ..vrm.relaxed import relaxed_pose
from .humanoid import BONES
from .mixer import Mixer
from .pose_apply import relaxed_rotations
from .sampling import DensePose


class AnimationDriver:
    """The ``AvatarRuntime(animation=...)`` hook: ``driver(pose, dt, time)`` each frame.

    With no clip playing it falls back to ``avatar.vrm.relaxed.relaxed_pose`` (arms down,
    a slow sway). While clips play it writes the mixer's blended bone rotations and hips
    offset; bones no clip animates get the relaxed pose (without the sway), so the arms
    hang relaxed under a clip that leaves them alone. The mixer's target hips height is
    read from the model (its rest hips height) the first time. Expressions: while an emote
    whose clip has expression tracks plays, its weights (faded with the emote) go to
    ``set_emote`` (the runtime's emote face layer, above mood and flash); the frame it ends,
    ``set_emote(None)`` clears the layer.
    Base clip expressions are not shown (the face belongs to the mood). Gaze: the mixer's
    look-at (``Mixer.gaze``) goes to ``set_gaze((yaw, pitch) | None, weight)`` each frame,
    before the runtime's look-at stage. Wire it as::

        driver = AnimationDriver(mixer)
        runtime = AvatarRuntime(model, rng, animation=driver)
        driver.bind(runtime)  # set_emote, set_gaze = runtime.set_emote, .look.set_clip_gaze
    """

    def __init__(self, mixer: Mixer | None = None, *,
                 set_emote: Callable[[dict[str, float] | None], None] | None = None,
                 set_gaze: Callable[[tuple[float, float] | None, float], None] | None = None
                 ) -> None:
        self.mixer = mixer if mixer is not None else Mixer()
        self.mixer.set_rest(relaxed_rotations())
        self.set_emote = set_emote
        self.set_gaze = set_gaze
        self._emote_shown = False
        self._skeleton = None
        self._map = np.zeros(len(BONES), np.int64)
        self._has = np.zeros(len(BONES), bool)
        self.last_pose: DensePose | None = None
        self._rows: tuple[bytes, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def bind(self, runtime: object) -> None:
        """Send emote expressions to ``runtime.set_emote`` and clip gaze to
        ``runtime.look.set_clip_gaze`` (when the runtime has a look-at)."""
        self.set_emote = runtime.set_emote
        self.set_gaze = getattr(getattr(runtime, "look", None), "set_clip_gaze", None)

    def _prepare(self, pose: Pose) -> None:
        sk = pose.skeleton
        self._skeleton = sk
        self._map = np.array([sk.bone_index.get(b, -1) for b in BONES], np.int64)
        self._has = self._map >= 0
        self._rows = None
        if sk.hips is not None:
            self.mixer.target_hips_height = float(sk.rest_world[sk.hips, 1, 3])

    def __call__(self, pose: Pose, dt: float, time: float) -> None:
        if pose.skeleton is not self._skeleton:
            self._prepare(pose)
        dense = self.mixer.update_dense(dt)
        self.last_pose = dense
        if dense is None:
            relaxed_pose(pose, dt, time)
        else:
            _key, rest_rows, rest_values, rows, chosen = self._rows_for(dense.mask)
            pose.normalized[rest_rows] = rest_values
            pose.normalized[rows] = dense.rotations.take(chosen, axis=0)
            if dense.hips_offset is not None:
                pose.set_hips_offset(dense.hips_offset)
        self._feed_expressions(dense)
        if self.set_gaze is not None:
            gaze = self.mixer.gaze if dense is not None else None
            self.set_gaze((gaze.yaw, gaze.pitch) if gaze else None, gaze.weight if gaze else 0.0)

    def _rows_for(self, mask: np.ndarray) -> tuple[bytes, np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
        """For a pose's animated-bone mask: the model rows that get the rest pose and their
        rotations, the rows that get the pose and its bones (cached while they stay)."""
        key = mask.tobytes() + self.mixer.rest.tobytes()
        if self._rows is None or self._rows[0] != key:
            rest = self._has & self.mixer.rest_mask & ~mask
            chosen = np.nonzero(mask & self._has)[0]
            self._rows = (key, self._map[rest], self.mixer.rest[rest].copy(),
                          self._map[chosen], chosen)
        return self._rows

    def _feed_expressions(self, dense: DensePose | None) -> None:
        emote = self.mixer.emote_clip
        if dense is not None and emote is not None and emote.expressions:
            weights = {n: dense.expressions.get(n, 0.0) for n in emote.expressions}
            if self.set_emote is not None:
                self.set_emote(weights)
            self._emote_shown = True
        elif self._emote_shown:
            if self.set_emote is not None:
                self.set_emote(None)
            self._emote_shown = False
