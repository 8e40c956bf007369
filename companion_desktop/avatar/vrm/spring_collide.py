"""Spring bone collisions: sphere and capsule colliders (a sphere is a capsule of length 0).

Detection is batched (one level's joints against every collider, broadcast); only joints
that touch a collider are resolved, in plain floats, one collider at a time in the chain's
group order: push the tail out to ``radius + hit_radius`` and restore the bone length,
repeated while it still penetrates (up to ``COLLISION_ITERATIONS`` rounds). Metres.
"""

from __future__ import annotations

import math

import numpy as np

#: Push-out and length-restore rounds per collider hit (three-vrm does one; more rounds
#: settle the joint on the collider surface instead of slightly inside it).
COLLISION_ITERATIONS = 8
#: Added to the bounding sphere of a collider: a point this close to it is resolved
#: exactly (``push_out``), so the quick miss test never drops a touching point.
BOUND_MARGIN_M = 1e-6

Vec = tuple[float, float, float]


def push_out(p: Vec, head: Vec, tail: Vec, reach: float) -> Vec | None:
    """``p`` moved out of a capsule to distance ``reach``; None when it is outside.

    Plain floats: this runs per contact, where numpy's call overhead would dominate.
    """
    sx, sy, sz = tail[0] - head[0], tail[1] - head[1], tail[2] - head[2]
    rx, ry, rz = p[0] - head[0], p[1] - head[1], p[2] - head[2]
    length_sq = sx * sx + sy * sy + sz * sz
    t = 0.0 if length_sq <= 0.0 else (rx * sx + ry * sy + rz * sz) / length_sq
    t = t if t > 0.0 else 0.0  # clamped to 0..1 (conditionals: no call per contact)
    t = t if t < 1.0 else 1.0
    dx, dy, dz = rx - t * sx, ry - t * sy, rz - t * sz
    dist = math.sqrt(dx * dx + dy * dy + dz * dz)
    if dist >= reach - 1e-12 or dist == 0.0:
        return None
    k = (reach - dist) / dist
    return p[0] + dx * k, p[1] + dy * k, p[2] + dz * k


def restore_length(p: Vec, head: Vec, length: float) -> Vec:
    """``p`` moved along the ray from ``head`` to distance ``length``."""
    dx, dy, dz = p[0] - head[0], p[1] - head[1], p[2] - head[2]
    norm = math.sqrt(dx * dx + dy * dy + dz * dz)
    if norm < 1e-12:
        return p
    k = length / norm
    return head[0] + dx * k, head[1] + dy * k, head[2] + dz * k


def collide(point: np.ndarray, head: np.ndarray, tail: np.ndarray, radius: float,
            hit_radius: float) -> np.ndarray:
    """One collision: ``point`` pushed out of a capsule (``tail == head``: a sphere)."""
    pushed = push_out(_vec(point), _vec(head), _vec(tail), radius + hit_radius)
    return np.asarray(point, np.float64) if pushed is None else np.array(pushed)


def _vec(a: np.ndarray) -> Vec:
    return float(a[0]), float(a[1]), float(a[2])


class ColliderFrame:
    """The colliders posed for one frame (world space): plain float tuples for ``resolve``
    and a bounding sphere per collider for a quick miss test; the arrays for batched
    detection (``hits``) are built on first use (the float block never needs them)."""

    def __init__(self, head: np.ndarray, tail: np.ndarray, radius: np.ndarray) -> None:
        self.head = head  # (colliders, 3)
        self.seg = tail - head
        self.count = count = len(head)
        self._ss = np.einsum("cd,cd->c", self.seg, self.seg)
        # bounding spheres: the capsule's middle, radius + half its length (+ a hair, so a
        # point on the edge is still tested exactly by ``push_out``)
        bound = radius + 0.5 * np.sqrt(self._ss) + BOUND_MARGIN_M
        rows = np.concatenate([head, tail, head + 0.5 * self.seg, bound[:, None]],
                              axis=1).tolist() if count else []
        self.heads: list[Vec] = [(r[0], r[1], r[2]) for r in rows]
        self.tails: list[Vec] = [(r[3], r[4], r[5]) for r in rows]
        self.bounds: list[tuple[float, float, float, float]] = [
            (r[6], r[7], r[8], r[9]) for r in rows]
        self.radius: list[float] = radius.tolist()
        self._batched: tuple[np.ndarray, ...] | None = None

    def _batch(self) -> tuple[np.ndarray, ...]:
        """For ``hits``: ``[s | h]`` columns, 1/|s|^2 (0 for spheres), h.s, h.h, |s|^2."""
        if self._batched is None:
            head, seg, length_sq = self.head, self.seg, self._ss
            # 0 for spheres (and degenerate capsules): the closest point is then the head
            safe = np.where(length_sq > 0.0, length_sq, 1.0)
            self._batched = (np.concatenate([seg, head]).T.copy(),  # (3, 2 * colliders)
                             np.where(length_sq > 0.0, 1.0 / safe, 0.0),
                             np.einsum("cd,cd->c", head, seg), np.einsum("cd,cd->c", head, head),
                             length_sq)
        return self._batched

    def hits(self, points: np.ndarray, reach_sq: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(rows, colliders) bool: the point lies inside the collider grown by its reach.

        With ``a = (p - h).s`` and ``t = clamp(a / |s|^2, 0, 1)`` the squared distance to
        the segment is ``|p|^2 + |h|^2 - 2 p.h - t (2a - t |s|^2)``."""
        c = self.count
        seg_head, inv_length_sq, hs, hh, ss = self._batch()
        dots = points @ seg_head
        a = dots[:, :c] - hs
        t = a * inv_length_sq
        np.minimum(np.maximum(t, 0.0, out=t), 1.0, out=t)
        d2 = (np.einsum("ja,ja->j", points, points)[:, None] + hh) - 2.0 * dots[:, c:]
        d2 -= t * (2.0 * a - t * ss)
        return (d2 < reach_sq) & mask

    def resolve(self, point: Vec, origin: Vec, bone: float, hit: float, order: list[int],
                first: int) -> Vec:
        """Resolve one joint against ``order[first:]`` (push out, restore the bone length).
        A collider whose bounding sphere, grown by ``hit``, does not hold the point is
        passed over: ``push_out`` would leave the point where it is."""
        heads, tails, radius, bounds = self.heads, self.tails, self.radius, self.bounds
        for c in order[first:]:
            cx, cy, cz, reach = bounds[c]
            dx, dy, dz = point[0] - cx, point[1] - cy, point[2] - cz
            reach += hit
            if dx * dx + dy * dy + dz * dz >= reach * reach:
                continue
            for _ in range(COLLISION_ITERATIONS):
                pushed = push_out(point, heads[c], tails[c], radius[c] + hit)
                if pushed is None:
                    break
                point = restore_length(pushed, origin, bone)
        return point


def collide_level(frame: ColliderFrame, nxt: np.ndarray, head: np.ndarray, length: np.ndarray,
                  hit_radius: np.ndarray, reach_sq: np.ndarray, mask: np.ndarray,
                  orders: list[list[int]]) -> np.ndarray:
    """Tails (rows, 3, world) of one level after its colliders; ``nxt`` is updated in place."""
    hits = frame.hits(nxt, reach_sq, mask)
    rows = np.nonzero(hits.any(axis=1))[0].tolist()
    if not rows:
        return nxt
    for row in rows:
        order = orders[row]
        first = min(order.index(c) for c in np.nonzero(hits[row])[0].tolist())
        nxt[row] = frame.resolve(tuple(nxt[row].tolist()), tuple(head[row].tolist()),
                                 float(length[row]), float(hit_radius[row]), order, first)
    return nxt
