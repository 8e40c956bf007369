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
time is capped (``MAX_DT_S``) so a hitch cannot explode the chain. Joints of the same
depth (counting simulated ancestors) are stepped together as arrays.
"""

from __future__ import annotations

import math

import numpy as np

from . import quat
from .model import VrmModel
from .pose import Pose, local_matrices

STEP_S = 1.0 / 60.0
MAX_DT_S = 0.1
VIRTUAL_TAIL_M = 0.07
#: Push-out and length-restore rounds per collider hit (three-vrm does one; more rounds
#: settle the joint on the collider surface instead of slightly inside it).
COLLISION_ITERATIONS = 8


def _norm(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(v * v, axis=-1))


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
    return v / np.where(norm < 1e-12, 1.0, norm)


def _apply(m: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Transform points (..., 3) by matrices (..., 4, 4)."""
    return np.einsum("...ab,...b->...a", m[..., :3, :3], p) + m[..., :3, 3]


Vec = tuple[float, float, float]


def _push_out(p: Vec, head: Vec, tail: Vec, reach: float) -> Vec | None:
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


def _restore_length(p: Vec, head: Vec, length: float) -> Vec:
    dx, dy, dz = p[0] - head[0], p[1] - head[1], p[2] - head[2]
    norm = math.sqrt(dx * dx + dy * dy + dz * dz)
    if norm < 1e-12:
        return p
    k = length / norm
    return head[0] + dx * k, head[1] + dy * k, head[2] + dz * k


def collide(point: np.ndarray, head: np.ndarray, tail: np.ndarray, radius: float,
            hit_radius: float) -> np.ndarray:
    """One collision: ``point`` pushed out of a capsule (``tail == head``: a sphere)."""
    pushed = _push_out(tuple(map(float, point)), tuple(map(float, head)),
                       tuple(map(float, tail)), radius + hit_radius)
    return np.asarray(point, np.float64) if pushed is None else np.array(pushed)


class SpringSimulator:
    """Spring bone state of one model; :meth:`update` writes rotations into a ``Pose``."""

    def __init__(self, model: VrmModel, pose: Pose, step: float = STEP_S,
                 max_dt: float = MAX_DT_S) -> None:
        self.step, self.max_dt = step, max_dt
        self.skeleton = sk = pose.skeleton
        joints, seen = [], set()
        for chain in model.springs:
            groups = [g for g in chain.collider_groups if 0 <= g < len(model.collider_groups)]
            colliders = [c for g in groups for c in model.collider_groups[g].colliders
                         if 0 <= c < len(model.colliders)
                         and 0 <= model.colliders[c].node < sk.count]
            center = chain.center if chain.center is not None else -1
            center = center if 0 <= center < sk.count else -1
            pairs = [(a, b.node) for a, b in zip(chain.joints, chain.joints[1:], strict=False)]
            if len(chain.joints) == 1:
                pairs = [(chain.joints[0], None)]
            for joint, tail in pairs:
                if not 0 <= joint.node < sk.count or joint.node in seen:
                    continue
                seen.add(joint.node)
                joints.append((joint, self._child_position(joint.node, tail), colliders, center))
        self.count = len(joints)
        self.nodes = np.array([j.node for j, *_ in joints], np.int64)
        self.stiffness = np.array([j.stiffness for j, *_ in joints], np.float64)
        self.drag = np.array([j.drag_force for j, *_ in joints], np.float64)
        self._gravity_dir = _unit(np.array([np.asarray(j.gravity_dir, np.float64)
                                            for j, *_ in joints], np.float64).reshape(-1, 3))
        self._gravity_power = np.array([j.gravity_power for j, *_ in joints], np.float64)
        self._inertia = (1.0 - self.drag)[:, None]
        self.hit_radius = np.array([j.hit_radius for j, *_ in joints], np.float64)
        self.child = np.array([c for _, c, *_ in joints], np.float64).reshape(-1, 3)
        self.axis = _unit(self.child)
        self.center = np.array([c for *_, c in joints], np.int64)
        self.colliders = model.colliders
        self.mask = np.zeros((self.count, len(model.colliders)), bool)
        self.order = [list(cs) for _, _, cs, _ in joints]  # collider order per joint
        for j, (_, _, cs, _) in enumerate(joints):
            self.mask[j, cs] = True
        n = self.nodes
        self.rest_rot = sk.rest_rotation[n]
        self.rest_local = local_matrices(sk.rest_translation[n], self.rest_rot, sk.rest_scale[n])
        self._rest_basis = self.rest_local[:, :3, :3]
        self._rest_t = sk.rest_translation[n]
        self._rest_s = sk.rest_scale[n]
        self.parent_nodes = sk.parents[n]
        self.anchor, self.levels = self._levels()
        self._anchor_node = np.where(self.anchor >= 0, self.nodes[np.maximum(self.anchor, 0)], -2)
        if model.colliders:
            cols = model.colliders
            self._col_nodes = np.clip(np.array([c.node for c in cols], np.int64), 0, sk.count - 1)
            self._col_offset = np.array([c.offset for c in cols], np.float64).reshape(-1, 3)
            self._col_end = np.array(
                [c.tail if (c.shape == "capsule" and c.tail is not None) else c.offset
                 for c in cols], np.float64).reshape(-1, 3)
            self._col_radius = np.array([c.radius for c in cols], np.float64)
        self.local_rot = self.rest_rot.copy()
        self.tail = np.zeros((self.count, 3))
        self.prev_tail = np.zeros((self.count, 3))
        self.accumulator = 0.0
        self.initialized = False

    def _child_position(self, node: int, tail: int | None) -> np.ndarray:
        sk = self.skeleton
        if tail is None or not 0 <= tail < sk.count:
            t = sk.rest_translation[node]
            norm = float(np.linalg.norm(t))
            if norm > 1e-9:
                return t / norm * VIRTUAL_TAIL_M
            return np.array([0.0, VIRTUAL_TAIL_M, 0.0])
        if sk.parents[tail] == node:
            return sk.rest_translation[tail].copy()
        world = np.linalg.inv(sk.rest_world[node]) @ sk.rest_world[tail]
        return world[:3, 3].copy()

    def _levels(self) -> tuple[np.ndarray, list[np.ndarray]]:
        by_node = {int(node): j for j, node in enumerate(self.nodes)}
        anchor = np.full(self.count, -1, np.int64)
        for j, node in enumerate(self.nodes):
            up = int(self.skeleton.parents[node])
            while up >= 0 and up not in by_node:
                up = int(self.skeleton.parents[up])
            anchor[j] = by_node.get(up, -1)
        depth = np.zeros(self.count, np.int64)
        for j in range(self.count):
            d, a = 0, anchor[j]
            while a >= 0 and d <= self.count:
                d, a = d + 1, anchor[a]
            depth[j] = d
        top = int(depth.max()) + 1 if self.count else 0
        levels = [np.nonzero(depth == d)[0] for d in range(top)]
        return anchor, levels

    # -- per frame -------------------------------------------------------------------
    def _frame_inputs(self, world: np.ndarray) -> None:
        sk = self.skeleton
        parents = self.parent_nodes
        self._static_parent = np.where((parents < 0)[:, None, None], sk.root,
                                       world[np.maximum(parents, 0)])
        self._rel = np.tile(np.eye(4), (self.count, 1, 1))
        indirect = np.nonzero((self.anchor >= 0) & (self.parent_nodes != self._anchor_node))[0]
        if len(indirect):
            anchor_world = world[self._anchor_node[indirect]]
            self._rel[indirect] = np.linalg.inv(anchor_world) @ self._static_parent[indirect]
        # world bone length: rotations do not change it, so the frame's pose gives it
        self._length = _norm(np.einsum("jab,jb->ja", world[self.nodes][:, :3, :3], self.child))
        self._has_center = bool(np.any(self.center >= 0))
        if self._has_center:
            self._c2w = np.where((self.center < 0)[:, None, None], np.eye(4),
                                 world[np.maximum(self.center, 0)])
            self._w2c = np.linalg.inv(self._c2w)
            self._gravity_c = np.einsum("jab,jb->ja", self._w2c[:, :3, :3], self._gravity_dir)
            self._gravity_c = _unit(self._gravity_c) * self._gravity_power[:, None]
        else:
            self._c2w = self._w2c = None
            self._gravity_c = self._gravity_dir * self._gravity_power[:, None]
        cols = self.colliders
        if cols:
            m = world[self._col_nodes]
            self._col_head = _apply(m, self._col_offset)
            self._col_tail = _apply(m, self._col_end)
            self._col_seg = self._col_tail - self._col_head
            self._col_len_sq = np.sum(self._col_seg * self._col_seg, axis=-1)

    def _to_center(self, level: np.ndarray, points: np.ndarray) -> np.ndarray:
        return points if not self._has_center else _apply(self._w2c[level], points)

    def _to_world(self, level: np.ndarray, points: np.ndarray) -> np.ndarray:
        return points if not self._has_center else _apply(self._c2w[level], points)

    def reset(self, world: np.ndarray) -> None:
        """Put every tail at rest relative to the current pose (no motion)."""
        self._frame_inputs(world)
        self.local_rot = self.rest_rot.copy()
        head_world = np.empty((self.count, 4, 4))
        for level in self.levels:
            parent = self._parent_world(level, head_world)
            head_world[level] = parent @ self.rest_local[level]
        all_joints = np.arange(self.count)
        self.tail = self._to_center(all_joints, _apply(head_world, self.child))
        self.prev_tail = self.tail.copy()
        self.accumulator = 0.0
        self.initialized = True

    def _parent_world(self, level: np.ndarray, joint_world: np.ndarray) -> np.ndarray:
        parent = self._static_parent[level]
        anchored = self.anchor[level] >= 0
        if anchored.any():
            parent = parent.copy()
            rows = level[anchored]
            parent[anchored] = joint_world[self.anchor[rows]] @ self._rel[rows]
        return parent

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
        pose.rotation[self.nodes] = self.local_rot
        return steps

    def _step(self, dt: float) -> None:
        joint_world = np.empty((self.count, 4, 4))
        joint_world[:, 3] = (0.0, 0.0, 0.0, 1.0)
        for level in self.levels:
            parent = self._parent_world(level, joint_world)
            rest3 = parent[:, :3, :3] @ self._rest_basis[level]
            head = np.einsum("jab,jb->ja", parent[:, :3, :3], self._rest_t[level]) \
                + parent[:, :3, 3]
            axis_w = np.einsum("jab,jb->ja", rest3, self.axis[level])
            if self._has_center:
                axis_w = np.einsum("jab,jb->ja", self._w2c[level][:, :3, :3], axis_w)
            length = self._length[level]
            tail, prev = self.tail[level], self.prev_tail[level]
            nxt = (tail + (tail - prev) * self._inertia[level]
                   + _unit(axis_w) * (self.stiffness[level] * dt)[:, None]
                   + self._gravity_c[level] * dt)
            nxt = self._to_world(level, nxt)
            nxt = head + _unit(nxt - head) * length[:, None]
            nxt = self._collide(level, nxt, head, length)
            self.prev_tail[level] = tail
            self.tail[level] = self._to_center(level, nxt)
            # rest bone space direction: M^-1 = diag(1/s^2) M^T for M = R diag(s)
            local_dir = np.einsum("jba,jb->ja", rest3, nxt - head) / np.sum(rest3 * rest3, axis=-2)
            turn = quat.from_unit_vectors(self.axis[level], local_dir)
            rot = quat.multiply(self.rest_rot[level], turn)
            self.local_rot[level] = rot
            joint_world[level, :3, :3] = parent[:, :3, :3] @ (
                quat.to_matrix(rot) * self._rest_s[level][:, None, :])
            joint_world[level, :3, 3] = head

    def _collide(self, level: np.ndarray, nxt: np.ndarray, head: np.ndarray,
                 length: np.ndarray) -> np.ndarray:
        if not self.colliders:
            return nxt
        mask = self.mask[level]
        if not mask.any():
            return nxt
        seg, length_sq = self._col_seg, self._col_len_sq
        rel = nxt[:, None, :] - self._col_head[None]
        t = np.clip(np.sum(rel * seg, axis=-1) / np.where(length_sq > 0, length_sq, 1.0), 0, 1)
        t = np.where(length_sq > 0, t, 0.0)
        dist = _norm(rel - t[..., None] * seg)
        reach = self._col_radius[None] + self.hit_radius[level][:, None]
        hits = mask & (dist < reach)
        if not hits.any():
            return nxt
        nxt = nxt.copy()
        heads, tails = self._col_head.tolist(), self._col_tail.tolist()
        radius = self._col_radius.tolist()
        for row in np.nonzero(hits.any(axis=1))[0].tolist():
            j = int(level[row])
            order = self.order[j]
            first = min(order.index(c) for c in np.nonzero(hits[row])[0].tolist())
            point, origin = tuple(nxt[row].tolist()), tuple(head[row].tolist())
            bone, hit = float(length[row]), float(self.hit_radius[j])
            for c in order[first:]:
                for _ in range(COLLISION_ITERATIONS):
                    pushed = _push_out(point, heads[c], tails[c], radius[c] + hit)
                    if pushed is None:
                        break
                    point = _restore_length(pushed, origin, bone)
            nxt[row] = point
        return nxt

    def tail_world(self) -> np.ndarray:
        """Current tail positions in world space (joints, 3)."""
        if not self.initialized:
            return np.zeros((0, 3))
        return self._to_world(np.arange(self.count), self.tail)
