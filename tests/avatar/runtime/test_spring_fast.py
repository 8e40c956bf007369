"""The vectorized spring simulation against the previous implementation, kept as reference.

``ReferenceSprings`` is the per-level simulator as it was before the speed work (three-vrm's
algorithm, joints in chain order, quaternions per step). Both run side by side on the same
poses (moving head and hips, colliders in play) and must agree within 0.1 mm.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.model import VrmModel
from companion_desktop.avatar.vrm.pose import Pose, local_matrices
from companion_desktop.avatar.vrm.spring import STEP_S, SpringSimulator
from companion_desktop.avatar.vrm.spring_collide import (
    COLLISION_ITERATIONS,
    push_out,
    restore_length,
)
from companion_desktop.avatar.vrm.spring_setup import VIRTUAL_TAIL_M
from tests.avatar.runtime.conftest import load_shared
from tests.avatar.runtime.runtime_models import GODETTE, humanoid

HANA = Path(__file__).resolve().parents[3] / "resources" / "avatar" / "hana.vrm"
TOLERANCE_M = 1e-4
CONTACTS = [0]  # reference push-outs that moved a tail


def _norm(v):
    return np.sqrt(np.sum(v * v, axis=-1))


def _unit(v):
    norm = np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
    return v / np.where(norm < 1e-12, 1.0, norm)


def _apply(m, p):
    return np.einsum("...ab,...b->...a", m[..., :3, :3], p) + m[..., :3, 3]


class ReferenceSprings:
    """The previous ``SpringSimulator`` (unchanged maths), trimmed of its docstrings."""

    def __init__(self, model: VrmModel, pose: Pose, step: float = STEP_S, max_dt: float = 0.1):
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
        self._gravity_dir = _unit(np.array([np.asarray(j.gravity_dir, np.float64)
                                            for j, *_ in joints], np.float64).reshape(-1, 3))
        self._gravity_power = np.array([j.gravity_power for j, *_ in joints], np.float64)
        self._inertia = (1.0 - np.array([j.drag_force for j, *_ in joints]))[:, None]
        self.hit_radius = np.array([j.hit_radius for j, *_ in joints], np.float64)
        self.child = np.array([c for _, c, *_ in joints], np.float64).reshape(-1, 3)
        self.axis = _unit(self.child)
        self.center = np.array([c for *_, c in joints], np.int64)
        self.colliders = model.colliders
        self.mask = np.zeros((self.count, len(model.colliders)), bool)
        self.order = [list(cs) for _, _, cs, _ in joints]
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

    def _child_position(self, node, tail):
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

    def _levels(self):
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
        return anchor, [np.nonzero(depth == d)[0] for d in range(top)]

    def _frame_inputs(self, world):
        sk = self.skeleton
        parents = self.parent_nodes
        self._static_parent = np.where((parents < 0)[:, None, None], sk.root,
                                       world[np.maximum(parents, 0)])
        self._rel = np.tile(np.eye(4), (self.count, 1, 1))
        indirect = np.nonzero((self.anchor >= 0) & (self.parent_nodes != self._anchor_node))[0]
        if len(indirect):
            anchor_world = world[self._anchor_node[indirect]]
            self._rel[indirect] = np.linalg.inv(anchor_world) @ self._static_parent[indirect]
        self._length = _norm(np.einsum("jab,jb->ja", world[self.nodes][:, :3, :3], self.child))
        self._has_center = bool(np.any(self.center >= 0))
        if self._has_center:
            self._c2w = np.where((self.center < 0)[:, None, None], np.eye(4),
                                 world[np.maximum(self.center, 0)])
            self._w2c = np.linalg.inv(self._c2w)
            self._gravity_c = np.einsum("jab,jb->ja", self._w2c[:, :3, :3], self._gravity_dir)
            self._gravity_c = _unit(self._gravity_c) * self._gravity_power[:, None]
        else:
            self._gravity_c = self._gravity_dir * self._gravity_power[:, None]
        if self.colliders:
            m = world[self._col_nodes]
            self._col_head = _apply(m, self._col_offset)
            self._col_tail = _apply(m, self._col_end)
            self._col_seg = self._col_tail - self._col_head
            self._col_len_sq = np.sum(self._col_seg * self._col_seg, axis=-1)

    def _to_center(self, level, points):
        return points if not self._has_center else _apply(self._w2c[level], points)

    def _to_world(self, level, points):
        return points if not self._has_center else _apply(self._c2w[level], points)

    def reset(self, world):
        self._frame_inputs(world)
        self.local_rot = self.rest_rot.copy()
        head_world = np.empty((self.count, 4, 4))
        for level in self.levels:
            head_world[level] = self._parent_world(level, head_world) @ self.rest_local[level]
        self.tail = self._to_center(np.arange(self.count), _apply(head_world, self.child))
        self.prev_tail = self.tail.copy()
        self.accumulator = 0.0
        self.initialized = True

    def _parent_world(self, level, joint_world):
        parent = self._static_parent[level]
        anchored = self.anchor[level] >= 0
        if anchored.any():
            parent = parent.copy()
            rows = level[anchored]
            parent[anchored] = joint_world[self.anchor[rows]] @ self._rel[rows]
        return parent

    def update(self, pose, world, dt):
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

    def _step(self, dt):
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
            local_dir = np.einsum("jba,jb->ja", rest3, nxt - head) / np.sum(rest3 * rest3, axis=-2)
            rot = quat.multiply(self.rest_rot[level],
                                quat.from_unit_vectors(self.axis[level], local_dir))
            self.local_rot[level] = rot
            joint_world[level, :3, :3] = parent[:, :3, :3] @ (
                quat.to_matrix(rot) * self._rest_s[level][:, None, :])
            joint_world[level, :3, 3] = head

    def _collide(self, level, nxt, head, length):
        if not self.colliders or not self.mask[level].any():
            return nxt
        seg, length_sq = self._col_seg, self._col_len_sq
        rel = nxt[:, None, :] - self._col_head[None]
        t = np.clip(np.sum(rel * seg, axis=-1) / np.where(length_sq > 0, length_sq, 1.0), 0, 1)
        t = np.where(length_sq > 0, t, 0.0)
        dist = _norm(rel - t[..., None] * seg)
        hits = self.mask[level] & (dist < self._col_radius[None] + self.hit_radius[level][:, None])
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
                    pushed = push_out(point, heads[c], tails[c], radius[c] + hit)
                    if pushed is None:
                        break
                    CONTACTS[0] += 1
                    point = restore_length(pushed, origin, bone)
            nxt[row] = point
        return nxt

    def tail_world(self):
        return self._to_world(np.arange(self.count), self.tail)


def _move(pose: Pose, i: int) -> None:
    """Head nods and turns, hips sway and twist: enough to swing hair into colliders."""
    s = math.sin(i * 0.11)
    pose.set_bone_rotation("head", quat.from_euler(0.5 * s, 0.7 * math.sin(i * 0.07),
                                                   0.3 * math.cos(i * 0.13)))
    pose.set_bone_rotation("hips", quat.from_euler(0.0, 0.6 * math.sin(i * 0.05), 0.1 * s))
    pose.set_hips_offset(np.array([0.15 * s, 0.05 * math.cos(i * 0.2), 0.2 * math.sin(i * 0.17)]))
    pose.apply_humanoid()


def _spring_positions(pose: Pose, nodes: np.ndarray) -> np.ndarray:
    return pose.world_matrices()[nodes, :3, 3]


def run_side_by_side(model: VrmModel, frames: int = 300, seed: int = 0) -> tuple[float, int]:
    """Both simulators on the same poses; the largest joint/tail gap (m) and the steps run."""
    rng = np.random.default_rng(seed)
    old_pose, new_pose = Pose(model), Pose(model)
    old, new = ReferenceSprings(model, old_pose), SpringSimulator(model, new_pose)
    assert new.count == old.count and sorted(new.nodes) == sorted(old.nodes)
    worst, steps = 0.0, 0
    for i in range(frames):
        dt = float(rng.choice([1 / 30, 1 / 30, 1 / 60, 1 / 144, 0.05]))
        for pose in (old_pose, new_pose):
            pose.reset()
            _move(pose, i)
        world = old_pose.world_matrices()
        np.testing.assert_array_equal(world, new_pose.world_matrices())
        ran = old.update(old_pose, world, dt)
        assert new.update(new_pose, world, dt) == ran
        steps += ran
        gap_joints = np.abs(_spring_positions(old_pose, old.nodes)
                            - _spring_positions(new_pose, old.nodes)).max()
        gap_tails = np.abs(old.tail_world() - new.tail_world()).max()
        worst = max(worst, float(gap_joints), float(gap_tails))
    return worst, steps


def _assert_agree(model: VrmModel, frames: int = 300) -> None:
    contacts = CONTACTS[0]
    worst, steps = run_side_by_side(model, frames)
    assert steps >= frames  # about two steps a frame
    assert CONTACTS[0] > contacts, "no collider was hit: the test would not cover collisions"
    assert worst < TOLERANCE_M, f"joint positions differ by {worst * 1000:.4f} mm"


def test_hana_agrees_with_the_reference():
    _assert_agree(load_model(HANA))


def test_hana_in_center_space_agrees_with_the_reference():
    model = copy.deepcopy(load_model(HANA))
    hips = model.humanoid["hips"]
    for chain in model.springs[::2]:
        chain.center = hips
    _assert_agree(model, frames=150)


def test_vrm0_model_agrees_with_the_reference():
    _assert_agree(load_shared(GODETTE))


def test_indirect_anchors_and_scrambled_rest_rotations_agree():
    """Chains that skip nodes (a parent frame relative to the anchor) on twisted bones."""
    model = humanoid(twist=7, hair=3, hair_joints=7, colliders=True, gravity=1.0, stiffness=0.5)
    for chain in model.springs:
        chain.joints = chain.joints[::2]
    sim = SpringSimulator(model, Pose(model))
    assert any(lv.indirect for lv in sim._levels)
    _assert_agree(model, frames=200)
