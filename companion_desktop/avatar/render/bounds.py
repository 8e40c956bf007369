"""Posed vertex positions on the CPU (numpy), for framing and bounding boxes.

The GPU does the per-frame skinning; this is the same maths (morph targets, then
linear blend skinning with the frame's joint matrices) used where a picture must be
framed before it is drawn. No OpenGL.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.model import Primitive, VrmModel


def mesh_instances(model: VrmModel) -> Iterator[tuple[int, int]]:
    """(node index, mesh index) for every node that draws a mesh."""
    for index, node in enumerate(model.nodes):
        if node.mesh is not None and 0 <= node.mesh < len(model.meshes):
            yield index, node.mesh


def is_skinned(model: VrmModel, node: int, primitive: Primitive) -> bool:
    skin = model.nodes[node].skin
    return (
        skin is not None
        and 0 <= skin < len(model.skins)
        and primitive.joints is not None
        and primitive.weights is not None
        and len(model.skins[skin].joints) > 0
    )


def morphed_positions(primitive: Primitive, weights: np.ndarray | None) -> np.ndarray:
    """Positions (n, 3) with the morph targets applied at ``weights`` (0..1 each)."""
    positions = primitive.positions.astype(np.float32, copy=True)
    if weights is None:
        return positions
    for target, weight in zip(primitive.targets, weights, strict=False):  # a model may list fewer
        if weight != 0.0:
            positions += np.float32(weight) * target.positions
    return positions


def skin_points(points: np.ndarray, joints: np.ndarray, weights: np.ndarray,
                matrices: np.ndarray) -> np.ndarray:
    """Linear blend skinning of (n, 3) points; rows of ``weights`` are normalised."""
    w = weights.astype(np.float32)
    total = w.sum(axis=1, keepdims=True)
    w = np.where(total > 1e-6, w / np.maximum(total, 1e-6), 0.0)
    index = np.clip(joints.astype(np.int64), 0, len(matrices) - 1)
    blended = np.einsum("nk,nkab->nab", w, matrices[index])  # (n, 4, 4)
    homogeneous = np.concatenate([points, np.ones((len(points), 1), np.float32)], axis=1)
    return np.einsum("nab,nb->na", blended, homogeneous)[:, :3]


def posed_positions(model: VrmModel, frame: Frame, node: int, mesh: int,
                    primitive: Primitive) -> np.ndarray:
    """World-space positions (n, 3) of one primitive drawn by ``node`` in ``frame``."""
    weights = frame.morph_weights[mesh] if mesh < len(frame.morph_weights) else None
    points = morphed_positions(primitive, weights)
    if is_skinned(model, node, primitive):
        matrices = frame.joint_matrices[model.nodes[node].skin]
        return skin_points(points, primitive.joints, primitive.weights, matrices)
    world = frame.world[node]
    return points @ world[:3, :3].T + world[:3, 3]


def all_posed_positions(model: VrmModel, frame: Frame) -> np.ndarray:
    """Every drawn vertex in world space, stacked (N, 3); (0, 3) for an empty scene."""
    parts = [
        posed_positions(model, frame, node, mesh, primitive)
        for node, mesh in mesh_instances(model)
        for primitive in model.meshes[mesh].primitives
        if len(primitive.positions)
    ]
    if not parts:
        return np.zeros((0, 3), np.float32)
    return np.concatenate(parts).astype(np.float32)


def bounding_box(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(min, max) corners; a unit box at the origin for no points."""
    finite = points[np.isfinite(points).all(axis=1)] if len(points) else points
    if not len(finite):
        return -np.ones(3, np.float32) * 0.5, np.ones(3, np.float32) * 0.5
    return finite.min(axis=0), finite.max(axis=0)
