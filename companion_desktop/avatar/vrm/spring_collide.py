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

Vec = tuple[float, float, float]


def push_out(p: Vec, head: Vec, tail: Vec, reach: float) -> Vec | None:
    """``p`` moved out of a capsule to distance ``reach``; None when it is outside.

    Plain floats: this runs per contact, where numpy's call overhead would dominate.
    """
    sx, sy, sz = tail[0] - head[0], tail[1] - head[1], tail[2] - head[2]
    rx, ry, rz = p[0] - head[0], p[1] - head[1], p[2] - head[2]
    length_sq = sx * sx + sy * sy + sz * sz
    t = 0.0 if length_sq <= 0.0 else min(1.0, max(0.0, (rx * sx + ry * sy + rz * sz) / length_sq))
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
    """The colliders posed for one frame (world space), ready for batched detection."""

    def __init__(self, head: np.ndarray, tail: np.ndarray, radius: np.ndarray) -> None:
        self.head = head  # (colliders, 3)
        self.seg = tail - head
        length_sq = np.einsum("cd,cd->c", self.seg, self.seg)
        # 0 for spheres (and degenerate capsules): the closest point is then the head
        safe = np.where(length_sq > 0.0, length_sq, 1.0)
        self.inv_length_sq = np.where(length_sq > 0.0, 1.0 / safe, 0.0)
        # for hits(): |p - h - t s|^2 from dot products (one matrix product per call)
        self.count = len(head)
        self._seg_head = np.concatenate([self.seg, head]).T.copy()  # (3, 2 * colliders)
        self._hs = np.einsum("cd,cd->c", head, self.seg)
        self._hh = np.einsum("cd,cd->c", head, head)
        self._ss = length_sq
        self.heads: list[Vec] = [tuple(v) for v in head.tolist()]
        self.tails: list[Vec] = [tuple(v) for v in tail.tolist()]
        self.radius: list[float] = radius.tolist()

    def hits(self, points: np.ndarray, reach_sq: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """(rows, colliders) bool: the point lies inside the collider grown by its reach.

        With ``a = (p - h).s`` and ``t = clamp(a / |s|^2, 0, 1)`` the squared distance to
        the segment is ``|p|^2 + |h|^2 - 2 p.h - t (2a - t |s|^2)``."""
        c = self.count
        dots = points @ self._seg_head
        a = dots[:, :c] - self._hs
        t = a * self.inv_length_sq
        np.clip(t, 0.0, 1.0, out=t)
        d2 = (np.einsum("ja,ja->j", points, points)[:, None] + self._hh) - 2.0 * dots[:, c:]
        d2 -= t * (2.0 * a - t * self._ss)
        return (d2 < reach_sq) & mask

    def resolve(self, point: Vec, origin: Vec, bone: float, hit: float, order: list[int],
                first: int) -> Vec:
        """Resolve one joint against ``order[first:]`` (push out, restore the bone length)."""
        heads, tails, radius = self.heads, self.tails, self.radius
        for c in order[first:]:
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
