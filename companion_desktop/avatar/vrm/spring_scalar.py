"""The last, small levels of the spring simulation stepped in plain floats.

A level of a few joints costs about fifty numpy calls a step whatever its size, while the
same maths in plain Python floats costs a few microseconds a joint; so the deepest levels
(small ones, at the end of the depth order) form one ``ScalarBlock`` that is stepped joint
by joint, in depth order, with the maths of ``SpringSimulator._step`` (same formulas, same
order of operations up to rounding). Joints in a center space or with an indirect anchor
(a relative matrix) stay with the array code. Lengths in metres, times in seconds.
"""

from __future__ import annotations

import math
from typing import Any, Protocol, cast

import numpy as np

from .spring_setup import Level


class SpringArrays(Protocol):
    """What the float block reads of the simulator (``spring.SpringSimulator``) and the
    arrays it writes back (``_next``, ``_turn``): joints in depth order, one row each."""

    count: int
    _levels: list[Level]
    skeleton: Any  # ``rest_scale`` per node
    nodes: np.ndarray
    anchor: np.ndarray
    orders: list[list[int]]
    stiffness: np.ndarray
    drag: np.ndarray
    hit_radius: np.ndarray
    rest_rot: np.ndarray
    tail: np.ndarray
    prev_tail: np.ndarray
    _frame_cols: np.ndarray
    _turn_p: np.ndarray
    _turn_alt: np.ndarray
    _static_parent: np.ndarray
    _length: np.ndarray
    _gravity_c: np.ndarray
    _world: np.ndarray
    _cols: Any
    _next: np.ndarray
    _turn: np.ndarray

#: A level joins the float block when it has at most this many joints (measured: below
#: this, one level of array calls costs more than its joints in floats).
MAX_ROWS = 8

Rows = list[list[float]]


def scalar_start(sim: SpringArrays) -> int:
    """Index of the first level of the float block (``len(levels)`` for none)."""
    start = len(sim._levels)
    while start > 0:
        lv = sim._levels[start - 1]
        if len(lv.index) > MAX_ROWS or lv.center or lv.indirect:
            break
        start -= 1
    return start


class ScalarBlock:
    """Levels ``start..`` of ``sim`` (one contiguous slice of the joint arrays)."""

    def __init__(self, sim: SpringArrays, start: int) -> None:
        self.sim = sim
        first = sim._levels[start].sl.start
        self.sl = sl = slice(first, sim.count)
        self.rows = n = sim.count - first
        anchors = sim.anchor[sl].tolist()
        # parent of each row: (0, k) static parent, (1, k) external joint k, (2, k) row k
        external = sorted({a for a in anchors if 0 <= a < first})
        self.external = np.array(external, np.int64)
        self.parent = [(0, i) if a < 0 else (1, external.index(a)) if a < first
                       else (2, a - first) for i, a in enumerate(anchors)]
        has_children = {a - first for a in anchors if a >= first}
        self.needs_world = [i in has_children for i in range(n)]
        self.frame_cols = sim._frame_cols[sl].tolist()
        self.stiffness = sim.stiffness[sl].tolist()
        self.inertia = (1.0 - sim.drag[sl]).tolist()
        self.hit = sim.hit_radius[sl].tolist()
        self.turn_p = sim._turn_p[sl].tolist()
        self.turn_alt = sim._turn_alt[sl].tolist()
        self.rest_rot = sim.rest_rot[sl].tolist()
        self.scale = sim.skeleton.rest_scale[sim.nodes[sl]].tolist()
        self.static: list[Rows] = []  # each row's parent matrix (3 rows of 4)
        self.length: list[float] = []
        self.gravity: Rows = []
        self.orders: list[list[int]] = sim.orders[sl]
        # what ``step`` reads of a row, in one tuple (one unpack instead of a dozen lookups)
        self.consts = list(zip(self.parent, self.frame_cols, self.stiffness, self.inertia,
                               self.hit, self.orders, self.turn_p, self.turn_alt,
                               self.needs_world, self.rest_rot, self.scale, strict=True))

    def frame(self) -> None:
        """Per-frame inputs (after ``sim``'s own)."""
        sim, sl = self.sim, self.sl
        self.static = sim._static_parent[sl].tolist()
        self.length = sim._length[sl].tolist()
        self.gravity = sim._gravity_c[sl].tolist()

    def step(self, dt: float) -> None:
        """One step of every joint of the block (``sim.tail`` and ``prev_tail`` in, the
        block's rows of ``sim._next`` and ``sim._turn`` out)."""
        sim, sl = self.sim, self.sl
        tails = sim.tail[sl].tolist()
        prevs = sim.prev_tail[sl].tolist()
        external = sim._world[self.external].tolist() if len(self.external) else []
        cols = sim._cols
        worlds: list[Rows | None] = [None] * self.rows
        nexts: list[tuple[float, float, float]] = []
        turns: Rows = []
        rows = zip(self.consts, self.static, self.length, self.gravity, tails, prevs,
                   strict=True)
        for i, (const, static, length, (gx, gy, gz), (tx, ty, tz), (px, py, pz)) in \
                enumerate(rows):
            (kind, k), fc, stiffness, inertia, hit, order, turn_p, alt, needs_world, rest, \
                scale = const
            # row k comes earlier in depth order, and its world was written as it has children
            p = static if kind == 0 else external[k] if kind == 1 else cast(Rows, worlds[k])
            (a0, a1, a2, t0), (b0, b1, b2, t1), (c0, c1, c2, t2) = p[0], p[1], p[2]
            (f00, f01, f02, f03, f04), (f10, f11, f12, f13, f14), (f20, f21, f22, f23, f24) = fc
            # parent rotation x [rest basis | rest translation | rest bone axis]
            e00, e10, e20 = a0 * f00 + a1 * f10 + a2 * f20, b0 * f00 + b1 * f10 + b2 * f20, \
                c0 * f00 + c1 * f10 + c2 * f20
            e01, e11, e21 = a0 * f01 + a1 * f11 + a2 * f21, b0 * f01 + b1 * f11 + b2 * f21, \
                c0 * f01 + c1 * f11 + c2 * f21
            e02, e12, e22 = a0 * f02 + a1 * f12 + a2 * f22, b0 * f02 + b1 * f12 + b2 * f22, \
                c0 * f02 + c1 * f12 + c2 * f22
            hx = a0 * f03 + a1 * f13 + a2 * f23 + t0
            hy = b0 * f03 + b1 * f13 + b2 * f23 + t1
            hz = c0 * f03 + c1 * f13 + c2 * f23 + t2
            ax, ay, az = a0 * f04 + a1 * f14 + a2 * f24, b0 * f04 + b1 * f14 + b2 * f24, \
                c0 * f04 + c1 * f14 + c2 * f24
            axis = math.sqrt(ax * ax + ay * ay + az * az)
            stiff = stiffness * dt / (1e-12 if axis < 1e-12 else axis)
            nx = tx + (tx - px) * inertia + (ax * stiff + gx * dt)
            ny = ty + (ty - py) * inertia + (ay * stiff + gy * dt)
            nz = tz + (tz - pz) * inertia + (az * stiff + gz * dt)
            dx, dy, dz = nx - hx, ny - hy, nz - hz
            norm = math.sqrt(dx * dx + dy * dy + dz * dz)
            fit = length / (1e-12 if norm < 1e-12 else norm)
            dx, dy, dz = dx * fit, dy * fit, dz * fit
            point = (dx + hx, dy + hy, dz + hz)
            if order:
                pushed = cols.resolve(point, (hx, hy, hz), length, hit, order, 0)
                if pushed is not point:
                    point = pushed
                    dx, dy, dz = point[0] - hx, point[1] - hy, point[2] - hz
            nexts.append(point)
            # rest bone space direction: M^-1 = diag(1/s^2) M^T for M = R diag(s)
            lx = (e00 * dx + e10 * dy + e20 * dz) / (e00 * e00 + e10 * e10 + e20 * e20)
            ly = (e01 * dx + e11 * dy + e21 * dz) / (e01 * e01 + e11 * e11 + e21 * e21)
            lz = (e02 * dx + e12 * dy + e22 * dz) / (e02 * e02 + e12 * e12 + e22 * e22)
            size = math.sqrt(lx * lx + ly * ly + lz * lz)
            (p00, p01, p02), (p10, p11, p12), (p20, p21, p22), (p30, p31, p32) = turn_p
            w = p30 * lx + p31 * ly + p32 * lz + (1e-12 if size < 1e-12 else size)
            q = [p00 * lx + p01 * ly + p02 * lz, p10 * lx + p11 * ly + p12 * lz,
                 p20 * lx + p21 * ly + p22 * lz, w]
            if q[3] < 1e-8 * size:
                q = list(alt)
            turns.append(q)
            if needs_world:
                worlds[i] = _world(p, rest, q, scale, (hx, hy, hz))
        sim._next[sl] = nexts
        sim._turn[sl] = turns


def _world(parent: Rows, rest: list[float], q: list[float], scale: list[float],
           head: tuple[float, float, float]) -> Rows:
    """Rows 0..2 of ``parent x R(rest * q) diag(scale)`` with ``head`` as translation
    (``q`` need not be unit: the rotation is divided by ``|q|^2``)."""
    ax, ay, az, aw = rest
    bx, by, bz, bw = q
    x = aw * bx + ax * bw + ay * bz - az * by
    y = aw * by - ax * bz + ay * bw + az * bx
    z = aw * bz + ax * by - ay * bx + az * bw
    w = aw * bw - ax * bx - ay * by - az * bz
    inv = 1.0 / (x * x + y * y + z * z + w * w)
    sx, sy, sz = scale[0] * inv, scale[1] * inv, scale[2] * inv
    xx, yy, zz, ww = x * x, y * y, z * z, w * w
    xy, xz, yz, wx, wy, wz = x * y, x * z, y * z, w * x, w * y, w * z
    r = ((ww + xx - yy - zz) * sx, 2.0 * (xy - wz) * sy, 2.0 * (xz + wy) * sz,
         2.0 * (xy + wz) * sx, (ww - xx + yy - zz) * sy, 2.0 * (yz - wx) * sz,
         2.0 * (xz - wy) * sx, 2.0 * (yz + wx) * sy, (ww - xx - yy + zz) * sz)
    out: Rows = []
    for (p0, p1, p2, _t), h in zip(parent[:3], head, strict=True):
        out.append([p0 * r[0] + p1 * r[3] + p2 * r[6], p0 * r[1] + p1 * r[4] + p2 * r[7],
                    p0 * r[2] + p1 * r[5] + p2 * r[8], h])
    return out
