"""VRMC_springBone simulation (three-vrm's ``VRMSpringBoneJoint`` algorithm), fixed time step.

Per joint and step (``dt`` = the fixed step, seconds; lengths in metres)::

    next = tail + (tail - prev_tail) * (1 - drag)          # inertia, in center space
               + rest_axis * stiffness * dt                # back toward the rest direction
               + gravity_dir * gravity_power * dt          # gravity
    next = head + bone_length * normalize(next - head)     # keep the bone length (world)
    for each collider (sphere, capsule): push ``next`` out to radius + hit_radius,
        then restore the bone length (repeated while it still penetrates, up to
        ``COLLISION_ITERATIONS`` rounds)
    rotation = rest_local_rotation * from_unit_vectors(bone_axis, next in rest bone space)

A chain's joint ``i`` is simulated with joint ``i + 1`` as its tail (VRM 1.0: the last
joint is only a tail); a chain of one joint gets a 7 cm virtual tail along its node's
rest translation (VRM 0.x leaves). Frames advance in fixed steps (``STEP_S``); the frame
time is capped (``MAX_DT_S``) so a hitch cannot explode the chain.

Speed: joints are sorted by depth (counting simulated ancestors) and each depth is stepped
as one set of array slices; what does not change within a frame (the parent frames of
unanchored joints, bone lengths, colliders, gravity) is computed once per frame; the turn
of each joint is kept as a quaternion whose rotation matrix comes from one table product,
and the output quaternions are formed once per frame, after the last step. The deepest,
small levels (``spring_scalar.MAX_ROWS`` joints or fewer) are stepped in plain floats.
"""

from __future__ import annotations

import numpy as np

from . import quat
from .model import VrmModel
from .pose import Pose, local_matrices
from .spring_collide import COLLISION_ITERATIONS, ColliderFrame, collide, collide_level
from .spring_scalar import ScalarBlock, scalar_start
from .spring_setup import (
    VIRTUAL_TAIL_M,
    Level,
    anchors_and_depths,
    build_levels,
    collect_joints,
    local_tables,
    turn_tables,
)

__all__ = ["COLLISION_ITERATIONS", "MAX_DT_S", "STEP_S", "VIRTUAL_TAIL_M", "SpringSimulator",
           "collide"]

STEP_S = 1.0 / 60.0
MAX_DT_S = 0.1


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
    return v / np.where(norm < 1e-12, 1.0, norm)


def _apply(m: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Transform points (..., 3) by matrices (..., 4, 4)."""
    return np.einsum("...ab,...b->...a", m[..., :3, :3], p) + m[..., :3, 3]


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ij,ij->i", a, b)


class SpringSimulator:
    """Spring bone state of one model; :meth:`update` writes rotations into a ``Pose``.

    Per-joint arrays are in depth order (``nodes``); :meth:`tail_world` answers in the
    model's chain order.
    """

    def __init__(self, model: VrmModel, pose: Pose, step: float = STEP_S,
                 max_dt: float = MAX_DT_S) -> None:
        self.step, self.max_dt = step, max_dt
        self.skeleton = sk = pose.skeleton
        specs = collect_joints(model, sk)
        self.count = n = len(specs)
        nodes = np.array([s.joint.node for s in specs], np.int64)
        anchor, depth = anchors_and_depths(nodes, sk.parents)
        order = np.argsort(depth, kind="stable")
        self._chain_order = np.argsort(order)  # sorted index of each original joint
        specs = [specs[i] for i in order]
        self.nodes = nodes[order]
        anchor = np.where(anchor[order] >= 0, self._chain_order[np.maximum(anchor[order], 0)], -1)
        self._joint_constants(specs)
        self.colliders = model.colliders
        self.mask = np.zeros((n, len(model.colliders)), bool)
        self.orders = [list(s.colliders) for s in specs]  # collider order per joint
        for j, s in enumerate(specs):
            self.mask[j, s.colliders] = True
        self.parent_nodes = sk.parents[self.nodes]
        self.anchor = anchor
        self._anchor_node = np.where(anchor >= 0, self.nodes[np.maximum(anchor, 0)], -2)
        self._parent_rows = np.maximum(self.parent_nodes, 0)
        self._root_rows = np.nonzero(self.parent_nodes < 0)[0]
        self._indirect = np.nonzero((anchor >= 0) & (self.parent_nodes != self._anchor_node))[0]
        self._levels = build_levels(anchor, depth[order], self.parent_nodes, self.nodes,
                                    self.mask, self.center)
        self.levels = [lv.index for lv in self._levels]
        self._collider_constants(model)
        self._scalar_from = scalar_start(self)
        self._scalar = (ScalarBlock(self, self._scalar_from)
                        if self._scalar_from < len(self._levels) else None)
        self._world = np.zeros((n, 4, 4))
        self._world[:, 3, 3] = 1.0
        self.local_rot = self.rest_rot.copy()
        self._turn = quat.identity(n)
        self.tail, self.prev_tail, self._next = np.zeros((n, 3)), np.zeros((n, 3)), np.zeros((n, 3))
        self._stiff_step = (-1.0, np.zeros(n))
        # rest * q as one matrix product per joint (the output rotations, once a frame)
        self._rest_left = quat.sandwich_maps(self.rest_rot, quat.identity(n))
        self._has_center = bool(np.any(self.center >= 0))
        self._gravity_world = self._gravity_dir * self._gravity_power[:, None]
        self._gravity_world_step = self._gravity_world * self.step
        self.accumulator = 0.0
        self.initialized = False

    def _joint_constants(self, specs: list) -> None:
        sk = self.skeleton
        joints = [s.joint for s in specs]
        self.stiffness = np.array([j.stiffness for j in joints], np.float64)
        self.drag = np.array([j.drag_force for j in joints], np.float64)
        self._gravity_dir = _unit(np.array([np.asarray(j.gravity_dir, np.float64)
                                            for j in joints], np.float64).reshape(-1, 3))
        self._gravity_power = np.array([j.gravity_power for j in joints], np.float64)
        self._inertia = (1.0 - self.drag)[:, None]
        self.hit_radius = np.array([j.hit_radius for j in joints], np.float64)
        self.child = np.array([s.child for s in specs], np.float64).reshape(-1, 3)
        self.axis = _unit(self.child)
        self._child_col = self.child[:, :, None]
        self.center = np.array([s.center for s in specs], np.int64)
        n = self.nodes
        self.rest_rot = sk.rest_rotation[n]
        self.rest_local = local_matrices(sk.rest_translation[n], self.rest_rot, sk.rest_scale[n])
        self._rest_basis = self.rest_local[:, :3, :3]
        # columns: the head (homogeneous rest translation), the rest bone axis (a direction)
        self._head_axis = np.zeros((len(n), 4, 2))
        self._head_axis[:, :3, 0] = sk.rest_translation[n]
        self._head_axis[:, 3, 0] = 1.0
        self._head_axis[:, :3, 1] = np.einsum("jab,jb->ja", self._rest_basis, self.axis)
        # parent rotation x [rest basis | rest translation | rest bone axis] in one product
        self._frame_cols = np.concatenate([self._rest_basis, self._head_axis[:, :3, :]], axis=2)
        self._turn_p, self._turn_alt = turn_tables(self.axis)
        self._local_table = local_tables(self.rest_rot, sk.rest_scale[n])

    def _collider_constants(self, model: VrmModel) -> None:
        cols = model.colliders
        if not cols:
            return
        sk = self.skeleton
        self._col_nodes = np.clip(np.array([c.node for c in cols], np.int64), 0, sk.count - 1)
        self._col_offset = np.array([c.offset for c in cols], np.float64).reshape(-1, 3)
        self._col_end = np.array(
            [c.tail if (c.shape == "capsule" and c.tail is not None) else c.offset
             for c in cols], np.float64).reshape(-1, 3)
        self._col_radius = np.array([c.radius for c in cols], np.float64)
        # both ends of every collider from one gather and one product a frame
        self._col_nodes2 = np.concatenate([self._col_nodes, self._col_nodes])
        self._col_points = np.concatenate([self._col_offset, self._col_end])[:, :, None]
        for lv in self._levels:
            reach = self._col_radius[None] + self.hit_radius[lv.sl][:, None]
            lv.reach_sq = reach * reach

    # -- per frame -------------------------------------------------------------------
    def _frame_inputs(self, world: np.ndarray) -> None:
        sk = self.skeleton
        self._static_parent = world.take(self._parent_rows, axis=0)
        if len(self._root_rows):
            self._static_parent[self._root_rows] = sk.root
        self._rel = None
        indirect = self._indirect
        if len(indirect):
            self._rel = np.tile(np.eye(4), (self.count, 1, 1))
            anchor_world = np.take(world, self._anchor_node[indirect], axis=0)
            self._rel[indirect] = np.linalg.inv(anchor_world) @ self._static_parent[indirect]
        # world bone length: rotations do not change it, so the frame's pose gives it
        bone = np.matmul(world.take(self.nodes, axis=0)[:, :3, :3], self._child_col)
        self._length = np.sqrt(np.einsum("jak,jak->j", bone, bone))
        # center space <-> world per joint; None when no joint simulates in a center space
        self._c2w: np.ndarray | None
        self._w2c: np.ndarray | None
        if self._has_center:
            self._c2w = np.where((self.center < 0)[:, None, None], np.eye(4),
                                 world[np.maximum(self.center, 0)])
            self._w2c = np.linalg.inv(self._c2w)
            gravity = np.einsum("jab,jb->ja", self._w2c[:, :3, :3], self._gravity_dir)
            self._gravity_c = _unit(gravity) * self._gravity_power[:, None]
            self._gravity_step = self._gravity_c * self.step
        else:
            self._c2w = self._w2c = None
            self._gravity_c, self._gravity_step = self._gravity_world, self._gravity_world_step
        self._cols: ColliderFrame | None = None
        if self.colliders:
            m = world.take(self._col_nodes2, axis=0)
            ends = np.matmul(m[:, :3, :3], self._col_points)[:, :, 0] + m[:, :3, 3]
            count = len(self.colliders)
            self._cols = ColliderFrame(ends[:count], ends[count:], self._col_radius)
        self._fixed = {i: self._geometry(lv, self._static_parent[lv.sl])
                       for i, lv in enumerate(self._levels[:self._scalar_from])
                       if lv.none_anchored}
        if self._scalar is not None:
            self._scalar.frame()

    def _parent_world(self, lv: Level, joint_world: np.ndarray) -> np.ndarray:
        """(rows, 4, 4) parent frames of a level: the anchor joints' world, else static."""
        if lv.all_anchored:
            parent = joint_world.take(lv.anchor, axis=0)
        else:
            parent = self._static_parent[lv.sl].copy()
            if not lv.none_anchored:
                parent[lv.anchored] = joint_world[lv.anchor[lv.anchored]]
        if lv.indirect:
            assert self._rel is not None  # set whenever a joint has an indirect anchor
            parent = parent @ self._rel[lv.sl]
        return parent

    def _geometry(self, lv: Level, parent: np.ndarray) -> tuple[np.ndarray, ...]:
        """``(parent, head, rest axis (world, or center space), rest basis, 1 / basis column
        norms^2, the axis scaled to unit length, stiffness pull + gravity of one step)``."""
        sl = lv.sl
        cols = parent[:, :3, :3] @ self._frame_cols[sl]
        rest3 = cols[:, :, :3]
        head = cols[:, :, 3] + parent[:, :3, 3]
        inv_sq = 1.0 / np.einsum("jab,jab->jb", rest3, rest3)
        axis_w = cols[:, :, 4]
        if lv.center:
            assert self._w2c is not None  # set whenever a joint has a center space
            axis_w = np.einsum("jab,jb->ja", self._w2c[sl, :3, :3], axis_w)
        unit = axis_w / np.maximum(np.sqrt(np.einsum("ja,ja->j", axis_w, axis_w)), 1e-12)[:, None]
        push = unit * self._stiffness_step(self.step)[sl][:, None] + self._gravity_step[sl]
        return parent, head, axis_w, rest3, inv_sq, unit, push

    def reset(self, world: np.ndarray) -> None:
        """Put every tail at rest relative to the current pose (no motion)."""
        self._frame_inputs(world)
        self.local_rot = self.rest_rot.copy()
        self._turn = quat.identity(self.count)
        head_world = np.empty((self.count, 4, 4))
        for lv in self._levels:
            head_world[lv.sl] = self._parent_world(lv, head_world) @ self.rest_local[lv.sl]
        self.tail = self._to_center(slice(None), _apply(head_world, self.child))
        self.prev_tail = self.tail.copy()
        self._next = self.tail.copy()
        self.accumulator = 0.0
        self.initialized = True

    def _to_center(self, sl: slice, points: np.ndarray) -> np.ndarray:
        return points if self._w2c is None else _apply(self._w2c[sl], points)

    def update(self, pose: Pose, world: np.ndarray, dt: float) -> int:
        """Advance ``dt`` seconds (capped) in fixed steps; returns the number of steps.

        ``world`` is the frame's world matrices before springs (from ``pose``). The joint
        rotations are written into ``pose.rotation`` even when no step was due.
        """
        if not self.count:
            return 0
        if not self.initialized:
            self.reset(world)
        self.accumulator += min(max(0.0, dt), self.max_dt)
        steps = 0
        if self.accumulator >= self.step - 1e-9:
            self._frame_inputs(world)
        while self.accumulator >= self.step - 1e-9:
            self.accumulator -= self.step
            self._step(self.step)
            steps += 1
        if steps:
            turn = self._turn
            size = np.sqrt(np.einsum("ja,ja->j", turn, turn))
            # a turn is never near zero (its w is at least |local| or it is the unit half
            # turn); quat.normalize keeps the identity for a degenerate one all the same
            turn = turn / size[:, None] if np.minimum.reduce(size) >= 1e-12 \
                else quat.normalize(turn)
            self.local_rot = np.matmul(self._rest_left, turn[:, :, None])[:, :, 0]
        pose.rotation[self.nodes] = self.local_rot
        return steps

    def _stiffness_step(self, dt: float) -> np.ndarray:
        if self._stiff_step[0] != dt:
            self._stiff_step = (dt, self.stiffness * dt)
        return self._stiff_step[1]

    def _step(self, dt: float) -> None:
        fixed_dt = dt == self.step
        for i, lv in enumerate(self._levels[:self._scalar_from]):
            sl = lv.sl
            geometry = self._fixed.get(i)
            if geometry is None:
                geometry = self._geometry(lv, self._parent_world(lv, self._world))
            parent, head, _axis, rest3, inv_sq, unit, push = geometry
            if not fixed_dt:
                push = unit * self._stiffness_step(dt)[sl][:, None] + self._gravity_c[sl] * dt
            tail, prev = self.tail[sl], self.prev_tail[sl]
            nxt = tail + (tail - prev) * self._inertia[sl]
            nxt += push
            if lv.center:
                assert self._c2w is not None  # set whenever a joint has a center space
                nxt = _apply(self._c2w[sl], nxt)
            d = nxt - head
            length = self._length[sl]
            d *= (length / np.maximum(np.sqrt(np.einsum("ja,ja->j", d, d)), 1e-12))[:, None]
            nxt = d
            nxt += head
            if lv.colliders:
                # both set (in _frame_inputs, _collider_constants) when the model has colliders
                assert self._cols is not None and lv.reach_sq is not None
                nxt = collide_level(self._cols, nxt, head, length, self.hit_radius[sl],
                                    lv.reach_sq, self.mask[sl], self.orders[sl])
            self._next[sl] = self._to_center(sl, nxt) if lv.center else nxt
            self._turn_level(lv, parent, head, rest3, inv_sq, nxt)
        if self._scalar is not None:
            self._scalar.step(dt)
        self.prev_tail, self.tail, self._next = self.tail, self._next, self.prev_tail

    def _turn_level(self, lv: Level, parent: np.ndarray, head: np.ndarray, rest3: np.ndarray,
                    inv_sq: np.ndarray, nxt: np.ndarray) -> None:
        """The level's turn quaternions and, when deeper joints need them, world matrices."""
        sl = lv.sl
        # rest bone space direction: M^-1 = diag(1/s^2) M^T for M = R diag(s)
        local = np.einsum("jba,jb->ja", rest3, nxt - head) * inv_sq
        size = np.sqrt(_dot(local, local))
        q = np.einsum("jab,jb->ja", self._turn_p[sl], local)
        q[:, 3] += np.maximum(size, 1e-12)
        opposite = q[:, 3] < 1e-8 * size
        if opposite.any():
            q[opposite] = self._turn_alt[sl][opposite]
        self._turn[sl] = q
        if lv.has_children:
            flat = np.matmul(quat.pair_products(q)[:, None, :], self._local_table[sl])[:, 0]
            local3 = flat[:, :9] / flat[:, 9:]  # R(rest) R(q) diag(scale), q not unit
            self._world[sl, :3, :3] = parent[:, :3, :3] @ local3.reshape(-1, 3, 3)
            self._world[sl, :3, 3] = head

    def tail_world(self) -> np.ndarray:
        """Current tail positions in world space (joints in the model's chain order, 3)."""
        if not self.initialized:
            return np.zeros((0, 3))
        tails = self.tail if self._c2w is None else _apply(self._c2w, self.tail)
        return tails[self._chain_order]
