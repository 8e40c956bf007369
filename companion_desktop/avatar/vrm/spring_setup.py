"""Load-time constants of the spring simulation: joints in depth order, per-level slices.

Everything here runs once per model. Joints are sorted by depth (the number of simulated
ancestors) so that each depth is a contiguous slice of every per-joint array: the per-step
code then works on views, never on gathered copies. Lengths are metres.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import quat
from .model import SpringJoint, VrmModel
from .pose import Skeleton

VIRTUAL_TAIL_M = 0.07


@dataclass
class JointSpec:
    """One simulated joint as read from the model (original order)."""

    joint: SpringJoint
    child: np.ndarray  # (3,) the tail in the joint's rest local space, metres
    colliders: list[int]  # collider indices, in the chain's group order
    center: int  # center node, -1 for world space


@dataclass
class Level:
    """The joints of one depth: a slice of the (sorted) joint arrays, and what they need."""

    sl: slice
    index: np.ndarray  # joint indices of the slice (sorted order)
    anchor: np.ndarray  # per row: the joint (sorted index) its parent frame hangs on, -1 none
    anchored: np.ndarray  # per row: bool
    all_anchored: bool
    none_anchored: bool
    indirect: bool  # some row's parent node is not its anchor's node (a relative matrix)
    has_children: bool  # a deeper level anchors on this one (its joint matrices are needed)
    colliders: bool  # some row may hit a collider
    center: bool  # some row simulates in a center space
    reach_sq: np.ndarray | None = None  # (rows, colliders) (collider + hit radius)^2, m^2


def child_position(sk: Skeleton, node: int, tail: int | None) -> np.ndarray:
    """The joint's tail in its rest local space (a 7 cm virtual tail when there is none)."""
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


def collect_joints(model: VrmModel, sk: Skeleton) -> list[JointSpec]:
    """Every simulated joint once (the first chain naming a node wins), in chain order."""
    specs: list[JointSpec] = []
    seen: set[int] = set()
    for chain in model.springs:
        groups = [g for g in chain.collider_groups if 0 <= g < len(model.collider_groups)]
        colliders = [c for g in groups for c in model.collider_groups[g].colliders
                     if 0 <= c < len(model.colliders) and 0 <= model.colliders[c].node < sk.count]
        center = chain.center if chain.center is not None else -1
        center = center if 0 <= center < sk.count else -1
        pairs: list[tuple[SpringJoint, int | None]] = [
            (a, b.node) for a, b in zip(chain.joints, chain.joints[1:], strict=False)]
        if len(chain.joints) == 1:
            pairs = [(chain.joints[0], None)]
        for joint, tail in pairs:
            if not 0 <= joint.node < sk.count or joint.node in seen:
                continue
            seen.add(joint.node)
            specs.append(JointSpec(joint, child_position(sk, joint.node, tail), colliders, center))
    return specs


def anchors_and_depths(nodes: np.ndarray, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per joint: the nearest simulated ancestor joint (-1 none) and its depth (0 = none)."""
    count = len(nodes)
    by_node = {int(node): j for j, node in enumerate(nodes)}
    anchor = np.full(count, -1, np.int64)
    for j, node in enumerate(nodes):
        up = int(parents[node])
        while up >= 0 and up not in by_node:
            up = int(parents[up])
        anchor[j] = by_node.get(up, -1)
    depth = np.zeros(count, np.int64)
    for j in range(count):
        d, a = 0, anchor[j]
        while a >= 0 and d <= count:
            d, a = d + 1, anchor[a]
        depth[j] = d
    return anchor, depth


def build_levels(anchor: np.ndarray, depth: np.ndarray, parent_nodes: np.ndarray,
                 nodes: np.ndarray, mask: np.ndarray, center: np.ndarray) -> list[Level]:
    """Contiguous levels over depth-sorted joints (``anchor`` already in sorted indices)."""
    levels: list[Level] = []
    top = int(depth.max()) + 1 if len(depth) else 0
    start = 0
    for d in range(top):
        stop = start + int(np.count_nonzero(depth == d))
        rows = np.arange(start, stop)
        a = anchor[start:stop]
        anchored = a >= 0
        anchor_node = np.where(anchored, nodes[np.maximum(a, 0)], -2)
        levels.append(Level(
            slice(start, stop), rows, a, anchored, bool(anchored.all()), not anchored.any(),
            bool(np.any(anchored & (parent_nodes[start:stop] != anchor_node))),
            bool(np.any(np.isin(anchor, rows))), bool(mask[start:stop].any()),
            bool(np.any(center[start:stop] >= 0))))
        start = stop
    return levels


def _cross_matrices(a: np.ndarray) -> np.ndarray:
    """(n, 3, 3) with ``m @ b == cross(a, b)``."""
    m = np.zeros((len(a), 3, 3))
    m[:, 0, 1], m[:, 0, 2] = -a[:, 2], a[:, 1]
    m[:, 1, 0], m[:, 1, 2] = a[:, 2], -a[:, 0]
    m[:, 2, 0], m[:, 2, 1] = -a[:, 1], a[:, 0]
    return m


def turn_tables(axis: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P, alt)`` for the shortest turn from the unit ``axis`` (n, 3) to a direction ``b``.

    ``P @ b + (0, 0, 0, |b|)`` is that turn's quaternion scaled by ``|b|`` (x, y, z, w);
    ``alt`` (n, 4) is the unit half turn used when ``b`` points against ``axis``.
    """
    p = np.zeros((len(axis), 4, 3))
    p[:, :3] = _cross_matrices(axis)
    p[:, 3] = axis
    along_x = (np.abs(axis[:, 0]) > np.abs(axis[:, 2]))[:, None]
    zero = np.zeros(len(axis))
    alt_xyz = np.where(along_x, np.stack([-axis[:, 1], axis[:, 0], zero], -1),
                       np.stack([zero, -axis[:, 2], axis[:, 1]], -1))
    alt = quat.normalize(np.concatenate([alt_xyz, zero[:, None]], axis=-1))
    return p, alt


def _rotation_table() -> np.ndarray:
    """T (16, 3, 3) with ``R(q) = sum_k (q q^T).flat[k] T[k] / |q|^2`` for (x, y, z, w)."""
    x, y, z, w = range(4)
    entries = {  # (row, col): ((coefficient, i, j), ...)
        (0, 0): ((1, w, w), (1, x, x), (-1, y, y), (-1, z, z)),
        (0, 1): ((2, x, y), (-2, w, z)), (0, 2): ((2, x, z), (2, w, y)),
        (1, 0): ((2, x, y), (2, w, z)), (1, 1): ((1, w, w), (-1, x, x), (1, y, y), (-1, z, z)),
        (1, 2): ((2, y, z), (-2, w, x)), (2, 0): ((2, x, z), (-2, w, y)),
        (2, 1): ((2, y, z), (2, w, x)), (2, 2): ((1, w, w), (-1, x, x), (-1, y, y), (1, z, z)),
    }
    table = np.zeros((4, 4, 3, 3))
    for (row, col), terms in entries.items():
        for coefficient, i, j in terms:
            table[i, j, row, col] += coefficient
    return table.reshape(16, 3, 3)


def local_tables(rest_rot: np.ndarray, rest_scale: np.ndarray) -> np.ndarray:
    """C (n, 10, 10) over the 10 distinct products of a turn ``q`` (``quat.pair_products``):
    ``pair_products(q) @ C`` is ``R(rest) R(q) diag(scale)`` (row-major, 9 entries) scaled
    by ``|q|^2``, then ``|q|^2`` itself."""
    rest = quat.to_matrix(rest_rot)
    table = np.einsum("jab,kbc,jc->jkac", rest, _rotation_table(), rest_scale)
    table = table.reshape(len(rest_rot), 16, 9)
    norm = np.zeros((16, 1))
    norm[[0, 5, 10, 15]] = 1.0  # the diagonal of q q^T: |q|^2
    full = np.concatenate([table, np.broadcast_to(norm, (len(rest_rot), 16, 1))], axis=2)
    return quat.fold_pairs(full)
