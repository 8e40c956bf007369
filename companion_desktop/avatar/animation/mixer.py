"""The animation mixer: a base layer with cross-fades and an emote layer on top.

The base layer loops one clip (an idle from the idle cycle, talking, thinking). A new
base clip cross-fades in over ``fade`` seconds (default 0.3): every bone is slerped from
the old pose to the new one with a weight rising linearly 0 -> 1; hips offsets and
expression weights are lerped. The old clip keeps playing while it fades out; a change
in the middle of a fade fades from the pose shown at that moment.

The emote layer plays one clip once over the base, fading in over ``fade`` seconds and
out over the last ``fade`` seconds of the clip (half the clip each when it is shorter than
two fades), then hands back to the base, which kept playing underneath. A bone only one
side animates is blended against ``rest`` (identity unless given: the T-pose of the
normalized space; ``AnimationDriver`` passes the relaxed arms-down pose).

Look-at tracks (``look_track``) are mixed the same way into ``Mixer.gaze``: a clip's share
of the gaze follows its fade; a clip without a track leaves its share to the pointer.

Times are seconds; weights 0..1. Numpy only.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..vrm import quat
from ..vrm.pose import Pose
from .clip import Clip, ClipPose
from .humanoid import BONE_INDEX, BONES
from .look_track import Gaze, LookTrack, mix_gaze
from .pose_apply import apply_clip_pose
from .sampling import ClipSampler, DensePose, sampler_for, slerp_rows

DEFAULT_FADE_S = 0.3


def empty_pose() -> DensePose:
    """No bone animated, no hips offset, no expressions."""
    return DensePose(quat.identity(len(BONES)), np.zeros(len(BONES), bool), None, {})


def blend(a: DensePose, b: DensePose, w: float, rest: np.ndarray, *,
          overlay: bool = False) -> DensePose:
    """``a`` -> ``b`` at weight ``w``: slerped bones, lerped hips offset and expressions.

    A cross-fade (``overlay`` False) takes what ``b`` lacks as ``rest``, so bones only ``a``
    animates end at rest. An overlay (an emote over the base) leaves what ``b`` lacks as
    ``a`` has it: only the bones, hips and expressions of ``b`` move.
    """
    if w <= 0.0:
        return a
    w = min(1.0, w)
    if w >= 1.0 and not overlay and not (a.mask & ~b.mask).any():
        return b
    ra = np.where(a.mask[:, None], a.rotations, rest)
    rb = np.where(b.mask[:, None], b.rotations, ra if overlay else rest)
    rotations = slerp_rows(ra, rb, w)
    hips = None
    if a.hips_offset is not None or b.hips_offset is not None:
        ha = a.hips_offset if a.hips_offset is not None else np.zeros(3)
        hb = b.hips_offset if b.hips_offset is not None else (ha if overlay else np.zeros(3))
        hips = ha + (hb - ha) * w
    expressions = dict(a.expressions) if overlay else {}
    for n in (b.expressions.keys() if overlay else a.expressions.keys() | b.expressions.keys()):
        expressions[n] = a.expressions.get(n, 0.0) * (1.0 - w) + b.expressions.get(n, 0.0) * w
    return DensePose(rotations, a.mask | b.mask, hips, expressions)


class _Player:
    """One clip's playback time (seconds since it started) and completed loops."""

    def __init__(self, clip: Clip) -> None:
        self.clip = clip
        self.sampler: ClipSampler = sampler_for(clip)
        self.look = LookTrack(clip)
        self.time = 0.0
        self.loops = 0

    def advance(self, dt: float) -> int:
        """Move on ``dt`` seconds; how many loops ended (loop clips; a clip shorter than a
        second counts one loop per second)."""
        before = self.time
        self.time += dt
        if not self.clip.loop:
            return 0
        period = self.clip.duration if self.clip.duration >= 1.0 else 1.0
        ended = int(self.time // period) - int(before // period)
        self.loops += ended
        return ended

    def clip_time(self, once: bool = False) -> float:
        return min(self.time, self.clip.duration) if once else self.sampler.time(self.time)

    def pose(self, target_hips_height: float, once: bool = False) -> DensePose:
        return self.sampler.sample_dense(self.clip_time(once), target_hips_height)

    def gaze(self, once: bool = False) -> Gaze | None:
        return self.look.gaze(self.clip_time(once)) if self.look else None


class Mixer:
    """Base + emote layers (see the module docstring). ``update(dt)`` once per frame."""

    def __init__(self, *, target_hips_height: float = 1.0,
                 rest: Mapping[str, np.ndarray] | None = None,
                 default_fade: float = DEFAULT_FADE_S) -> None:
        self.target_hips_height = float(target_hips_height)
        self.default_fade = float(default_fade)
        self.set_rest(rest or {})
        self.clear()

    def clear(self) -> None:
        """Drop every clip at once (back to no animation)."""
        self._base: _Player | None = None
        self._from: _Player | DensePose | None = None
        self._fade = 0.0
        self._faded = 0.0
        self._emote: _Player | None = None
        self._fade_in = self._fade_out = 0.0
        self._emote_end = 0.0  # clip time at which the emote is gone
        self._last_base: DensePose = empty_pose()
        self._from_gaze: Gaze | None = None  # the gaze when a fade was interrupted
        self._last_gaze: Gaze | None = None
        self.gaze: Gaze | None = None  # the clips' look-at after the last update
        self.loops_finished = 0  # base loops completed during the last update

    def set_rest(self, rest: Mapping[str, np.ndarray]) -> None:
        """Rotations that stand in for bones a blended pose does not animate."""
        self.rest = quat.identity(len(BONES))
        for bone, rotation in rest.items():
            if bone in BONE_INDEX:
                self.rest[BONE_INDEX[bone]] = quat.normalize(rotation)
        self.rest_mask = np.any(self.rest != quat.IDENTITY, axis=1)  # bones with a rest

    # -- state ----------------------------------------------------------------------
    @property
    def base_clip(self) -> Clip | None:
        return self._base.clip if self._base is not None else None

    @property
    def base_loops(self) -> int:
        """Loops the current base clip has completed since it started."""
        return self._base.loops if self._base is not None else 0

    @property
    def emote_clip(self) -> Clip | None:
        return self._emote.clip if self._emote is not None else None

    @property
    def playing_emote(self) -> bool:
        return self._emote is not None

    @property
    def emote_weight(self) -> float:
        """How much the emote shows now (0..1; 0 when none plays)."""
        return self._emote_weight() if self._emote is not None else 0.0

    # -- commands -------------------------------------------------------------------
    def play_base(self, clip: Clip | None, fade: float | None = None) -> bool:
        """Cross-fade the base layer to ``clip`` (None: fade to no clip). False when it
        already plays that clip."""
        if clip is (self._base.clip if self._base is not None else None):
            return False
        fade = self.default_fade if fade is None else max(0.0, float(fade))
        self._from = self._last_base if self._from is not None else self._base
        self._from_gaze = self._last_gaze if isinstance(self._from, DensePose) else None
        if self._from is None:
            self._from = empty_pose()
        self._base = _Player(clip) if clip is not None else None
        self._fade, self._faded = fade, 0.0
        if fade <= 0.0:
            self._from = None
        return True

    def play_emote(self, clip: Clip | None, fade: float | None = None) -> bool:
        """Play ``clip`` once over the base; False when an emote already plays (it wins)."""
        if clip is None or self._emote is not None:
            return False
        fade = self.default_fade if fade is None else max(0.0, float(fade))
        self._emote = _Player(clip)
        self._fade_in = self._fade_out = min(fade, max(0.0, clip.duration) / 2.0)
        self._emote_end = max(0.0, clip.duration)
        return True

    def stop_emote(self, fade: float | None = None) -> None:
        """Fade the emote out now (over ``fade`` seconds) instead of at its end."""
        if self._emote is None:
            return
        fade = self.default_fade if fade is None else max(0.0, float(fade))
        self._fade_out = fade
        self._emote_end = min(self._emote_end, self._emote.time + fade)

    # -- per frame ------------------------------------------------------------------
    def _emote_weight(self) -> float:
        player = self._emote
        assert player is not None
        t, left = player.time, self._emote_end - player.time
        w = 1.0 if left > 0.0 else 0.0
        if self._fade_in > 0.0:
            w = min(w, t / self._fade_in)
        if self._fade_out > 0.0:
            w = min(w, left / self._fade_out)
        return max(0.0, w)

    def update_dense(self, dt: float) -> DensePose | None:
        """Advance ``dt`` seconds; the blended pose, or None when nothing plays."""
        dt = max(0.0, float(dt))
        self.loops_finished = self._base.advance(dt) if self._base is not None else 0
        h = self.target_hips_height
        base = self._base.pose(h) if self._base is not None else None
        gaze = self._base.gaze() if self._base is not None else None
        if self._from is not None:
            if isinstance(self._from, _Player):
                self._from.advance(dt)
            self._faded += dt
            w = self._faded / self._fade if self._fade > 0.0 else 1.0
            if w >= 1.0:
                self._from = None  # the fade is over: the new base alone (maybe none)
            else:
                old = self._from.pose(h) if isinstance(self._from, _Player) else self._from
                base = blend(old, base if base is not None else empty_pose(), w, self.rest)
                old_gaze = self._from.gaze() if isinstance(self._from, _Player) \
                    else self._from_gaze
                gaze = mix_gaze(old_gaze, gaze, w)
        self._last_base = base if base is not None else empty_pose()
        self.gaze = self._last_gaze = gaze
        if self._emote is not None:
            self._emote.advance(dt)
            if self._emote.time >= self._emote_end:
                self._emote = None
            else:
                emote, weight = self._emote.pose(h, once=True), self._emote_weight()
                self.gaze = mix_gaze(gaze, self._emote.gaze(once=True), weight, overlay=True)
                return blend(self._last_base, emote, weight, self.rest, overlay=True)
        return base

    def update(self, dt: float) -> ClipPose | None:
        """Advance ``dt`` seconds; the blended ``ClipPose``, or None when nothing plays."""
        dense = self.update_dense(dt)
        return dense.to_clip_pose() if dense is not None else None

    @staticmethod
    def apply(pose: Pose, clip_pose: ClipPose) -> None:
        apply_clip_pose(pose, clip_pose)
