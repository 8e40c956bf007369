"""Sampling tracks and clips: LINEAR (slerp for quaternions), STEP and CUBICSPLINE.

Times are seconds. Before the first key a track holds its first value, after the last its
last. CUBICSPLINE is the glTF 2.0 Hermite spline: with ``td = t[k+1] - t[k]`` and
``u = (t - t[k]) / td``, ``p(u) = (2u^3 - 3u^2 + 1) v_k + (u^3 - 2u^2 + u) td b_k
+ (-2u^3 + 3u^2) v_k+1 + (u^3 - u^2) td a_k+1`` (``a`` in-tangent, ``b`` out-tangent);
quaternion results are renormalized. A loop clip wraps its time modulo its duration,
others hold their last frame.

``ClipSampler`` precompiles a clip for the per-frame path: its LINEAR and STEP bone
tracks are packed into flat arrays and sampled with one vectorized search and one batched
slerp (whatever their keyframe times), into a dense ``(len(BONES), 4)`` array plus a mask
(see ``humanoid.BONES``).
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from dataclasses import dataclass

import numpy as np

from ..vrm import quat
from .clip import Clip, ClipPose, Track
from .humanoid import BONE_INDEX, BONES


def slerp_rows(a: np.ndarray, b: np.ndarray, u: float | np.ndarray) -> np.ndarray:
    """Slerp of unit quaternion rows ``a`` -> ``b`` (m, 4) at weight ``u`` (one, or one per
    row), along the shorter arc; a leaner ``quat.slerp`` for the per-frame path (inputs
    must be unit length)."""
    dot = np.einsum("ij,ij->i", a, b)
    sign = np.where(dot < 0.0, -1.0, 1.0)
    theta = np.arccos(np.minimum(dot * sign, 1.0))
    sin = np.sin(theta)
    near = sin < 1e-6
    safe = np.where(near, 1.0, sin)
    wa = np.where(near, 1.0 - u, np.sin((1.0 - u) * theta) / safe)
    wb = np.where(near, u, np.sin(u * theta) / safe) * sign
    out = wa[:, None] * a + wb[:, None] * b
    return out / np.sqrt(np.einsum("ij,ij->i", out, out))[:, None]


def _locate(times_list: list[float], t: float) -> tuple[int, float] | int:
    """The key index (held value) or ``(k, u)`` with ``t`` between keys k and k+1."""
    if len(times_list) == 1 or t <= times_list[0]:
        return 0
    if t >= times_list[-1]:
        return len(times_list) - 1
    k = bisect_right(times_list, t) - 1
    t0, t1 = times_list[k], times_list[k + 1]
    return k, (t - t0) / (t1 - t0)


def _hermite(values: np.ndarray, times: list[float], k: int, u: float) -> np.ndarray:
    """CUBICSPLINE between keys k and k+1; ``values`` (keys, 3, ...)."""
    td = times[k + 1] - times[k]
    u2, u3 = u * u, u * u * u
    return ((2 * u3 - 3 * u2 + 1) * values[k, 1] + (u3 - 2 * u2 + u) * td * values[k, 2]
            + (-2 * u3 + 3 * u2) * values[k + 1, 1] + (u3 - u2) * td * values[k + 1, 0])


def _interpolate(values: np.ndarray, times_list: list[float], interpolation: str,
                 quaternion: bool, where: tuple[int, float] | int) -> np.ndarray:
    cubic = interpolation == "CUBICSPLINE"
    if isinstance(where, int):
        out = values[where, 1] if cubic else values[where]
        return quat.normalize(out) if quaternion else np.array(out, np.float64)
    k, u = where
    if interpolation == "STEP":
        out = values[k]
        return quat.normalize(out) if quaternion else np.array(out, np.float64)
    if cubic:
        out = _hermite(values, times_list, k, u)
        return quat.normalize(out) if quaternion else out
    if quaternion:
        return quat.slerp(values[k], values[k + 1], u)
    return values[k] + (values[k + 1] - values[k]) * u


def sample_track(track: Track, t: float, times_list: list[float] | None = None) -> np.ndarray:
    """The track's value at ``t`` seconds: (n,) float64; quaternions unit length.
    ``times_list`` (``track.times.tolist()``) may be passed to save converting it."""
    times_list = track.times.tolist() if times_list is None else times_list
    where = _locate(times_list, float(t))
    return _interpolate(track.values, times_list, track.interpolation, track.quaternion, where)


def clip_time(clip: Clip, t: float) -> float:
    """``t`` wrapped into the clip (loop) or held at its ends (non-loop)."""
    return _wrap(clip.duration, clip.loop, t)


def _wrap(duration: float, loop: bool, t: float) -> float:
    if duration <= 0.0:
        return 0.0
    if loop:
        return float(t) % duration
    return min(max(float(t), 0.0), duration)


@dataclass
class DensePose:
    """A pose over every humanoid bone: ``rotations`` (len(BONES), 4), ``mask`` of the
    animated ones, hips offset already scaled to the target (or None), expression weights."""

    rotations: np.ndarray
    mask: np.ndarray
    hips_offset: np.ndarray | None
    expressions: dict[str, float]

    def to_clip_pose(self) -> ClipPose:
        rotations = {BONES[i]: self.rotations[i] for i in np.flatnonzero(self.mask)}
        hips = None if self.hips_offset is None else self.hips_offset.copy()
        return ClipPose(rotations, hips, dict(self.expressions))


class _KeyTable:
    """Every LINEAR/STEP quaternion track of a clip packed into flat arrays, so one frame
    is one vectorized search and one batched slerp, whatever the tracks' keyframe times.

    Track i's times are shifted by ``i * span`` (``span`` past the last key), so a single
    ``searchsorted`` of ``t + i * span`` finds every track's key at once. What a slerp
    from key k to key k + 1 needs besides the weight is worked out here, once per key
    (``pairs``): the two quaternions (the second on the first's side of the sphere), the
    angle between them, ``1 / sin(angle)``, the key's time and ``1 / (t[k+1] - t[k])``
    (0 for a STEP track and for a track's last key, which then holds its value).
    """

    def __init__(self, tracks: list[Track]) -> None:
        counts = np.array([len(t.times) for t in tracks], np.int64)
        self.starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self.lasts = self.starts + counts - 1
        times = [np.asarray(t.times, np.float64) for t in tracks]
        self.span = max(float(t[-1]) for t in times) + 3.0
        self.offsets = np.arange(len(tracks), dtype=np.float64) * self.span
        self.times = np.concatenate(times)
        self.shifted = np.concatenate([t + o for t, o in zip(times, self.offsets, strict=True)])
        self.values = quat.normalize(np.concatenate([np.asarray(t.values, np.float64)
                                                     for t in tracks]))
        self.linear = np.array([t.interpolation == "LINEAR" for t in tracks])
        self.pairs = self._pairs()

    def _pairs(self) -> np.ndarray:
        """(keys, 12): ``a (4) | b (4) | angle | 1 / sin(angle) | t0 | 1 / gap`` per key,
        as ``slerp_rows`` would compute them (a near-zero angle: ``1 / sin`` is 0 and the
        slerp is a plain lerp, see ``sample``)."""
        keys = len(self.times)
        last = np.zeros(keys, bool)
        last[self.lasts] = True
        track = np.repeat(np.arange(len(self.starts)), self.lasts - self.starts + 1)
        nxt = np.where(last, np.arange(keys), np.minimum(np.arange(keys) + 1, keys - 1))
        a, b = self.values, self.values[nxt]
        dot = np.einsum("ij,ij->i", a, b)
        sign = np.where(dot < 0.0, -1.0, 1.0)
        theta = np.arccos(np.minimum(dot * sign, 1.0))
        sin = np.sin(theta)
        near = sin < 1e-6
        gap = self.times[nxt] - self.times
        step = ~self.linear[track] | last
        pairs = np.zeros((keys, 12))
        pairs[:, :4], pairs[:, 4:8] = a, b * sign[:, None]
        pairs[:, 8] = np.where(near, 0.0, theta)
        pairs[:, 9] = np.where(near, 0.0, 1.0 / np.where(near, 1.0, sin))
        pairs[:, 10] = self.times
        pairs[:, 11] = np.where(step | (gap <= 0.0), 0.0, 1.0 / np.where(gap > 0.0, gap, 1.0))
        self._near = bool(near.any())
        return pairs

    def sample(self, t: float) -> np.ndarray:
        t = min(max(t, -1.0), self.span - 2.0)
        found = np.searchsorted(self.shifted, t + self.offsets, side="right") - 1
        key = self.pairs.take(np.minimum(np.maximum(found, self.starts), self.lasts), axis=0)
        u = (t - key[:, 10]) * key[:, 11]
        np.minimum(np.maximum(u, 0.0, out=u), 1.0, out=u)
        theta, inv_sin = key[:, 8], key[:, 9]
        wa = np.sin((1.0 - u) * theta) * inv_sin
        wb = np.sin(u * theta) * inv_sin
        if self._near:  # keys (almost) equal: a plain lerp, as slerp_rows does
            near = inv_sin == 0.0
            wa = np.where(near, 1.0 - u, wa)
            wb = np.where(near, u, wb)
        out = wa[:, None] * key[:, :4] + wb[:, None] * key[:, 4:8]
        return out / np.sqrt(np.einsum("ij,ij->i", out, out))[:, None]


class ClipSampler:
    """A clip compiled for fast sampling (build once per clip; see ``sampler_for``)."""

    def __init__(self, clip: Clip) -> None:
        self.duration = clip.duration
        self.loop = clip.loop
        self.hips_height = clip.hips_height
        packed: list[Track] = []
        packed_bones: list[int] = []
        self.cubic: list[tuple[int, Track, list[float]]] = []
        for bone, track in clip.bone_rotations.items():
            index = BONE_INDEX.get(bone)
            if index is None or len(track.times) == 0:
                continue
            if track.interpolation == "CUBICSPLINE":
                self.cubic.append((index, track, track.times.tolist()))
            else:
                packed.append(track)
                packed_bones.append(index)
        self.table = _KeyTable(packed) if packed else None
        self.table_bones = np.array(packed_bones, np.int64)
        self.mask = np.zeros(len(BONES), bool)
        self.mask[self.table_bones] = True
        self.mask[[index for index, _, _ in self.cubic]] = True
        self.identity = quat.identity(len(BONES))
        self.expressions = [(name, track, track.times.tolist())
                            for name, track in clip.expressions.items() if len(track.times)]
        hips = clip.hips_translation
        self.hips = (hips, hips.times.tolist()) if hips is not None and len(hips.times) else None

    def sample_dense(self, t: float, target_hips_height: float) -> DensePose:
        """The clip at clip time ``t`` (already wrapped or held: see ``clip_time``)."""
        rotations = self.identity.copy()
        if self.table is not None:
            rotations[self.table_bones] = self.table.sample(t)
        for index, track, times in self.cubic:
            rotations[index] = sample_track(track, t, times)
        hips = None
        if self.hips is not None:
            scale = target_hips_height / self.hips_height if self.hips_height > 0.0 else 1.0
            hips = sample_track(self.hips[0], t, self.hips[1])[:3] * scale
        expressions = {name: min(1.0, max(0.0, float(sample_track(track, t, times)[0])))
                       for name, track, times in self.expressions}
        return DensePose(rotations, self.mask.copy(), hips, expressions)

    def time(self, t: float) -> float:
        """Playback time ``t`` wrapped (loop) or held (non-loop), as ``clip_time``."""
        return _wrap(self.duration, self.loop, t)

    def sample(self, t: float, target_hips_height: float) -> ClipPose:
        return self.sample_dense(self.time(t), target_hips_height).to_clip_pose()


_SAMPLERS: dict[int, tuple[weakref.ref, ClipSampler]] = {}


def sampler_for(clip: Clip) -> ClipSampler:
    """The (cached) compiled sampler of ``clip``; the cache forgets clips that are gone.
    A clip's tracks must not be changed after it was first sampled."""
    entry = _SAMPLERS.get(id(clip))
    if entry is not None and entry[0]() is clip:
        return entry[1]
    sampler = ClipSampler(clip)
    key = id(clip)
    _SAMPLERS[key] = (weakref.ref(clip, lambda _ref, key=key: _SAMPLERS.pop(key, None)), sampler)
    return sampler


def sample_clip(clip: Clip, t: float, target_hips_height: float) -> ClipPose:
    """The clip at ``t`` seconds of playback (wrapped for loop clips, held otherwise), the
    hips offset scaled by ``target_hips_height / clip.hips_height``."""
    return sampler_for(clip).sample_dense(clip_time(clip, t), target_hips_height).to_clip_pose()
