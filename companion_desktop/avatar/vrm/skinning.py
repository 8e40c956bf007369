"""CPU reference for morphing and linear blend skinning (what the GPU renderer must match).

Positions in metres, normals unit length, float32 in and out (float64 inside).
``joint_matrices`` are a skin's ``world[joint] @ inverse_bind`` (``Frame.joint_matrices``);
the skinned mesh node's own transform is not applied (glTF).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .model import Primitive


def apply_morphs(primitive: Primitive, weights: Sequence[float] | np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Positions and normals with morph target deltas added (weights per target, 0..1).

    Normals are renormalized; weights beyond the primitive's targets are ignored.
    """
    positions = primitive.positions.astype(np.float64)
    normals = primitive.normals.astype(np.float64)
    w = np.asarray(weights, np.float64).reshape(-1)
    for weight, target in zip(w, primitive.targets, strict=False):
        if weight == 0.0:
            continue
        positions += weight * target.positions
        if target.normals is not None:
            normals += weight * target.normals
    return positions.astype(np.float32), _unit(normals).astype(np.float32)


def skin_matrices(primitive: Primitive, joint_matrices: np.ndarray) -> np.ndarray:
    """Per-vertex blended matrices (n, 4, 4): sum of weight x joint matrix."""
    if primitive.joints is None or primitive.weights is None:
        raise ValueError("primitive is not skinned (no JOINTS_0/WEIGHTS_0)")
    mats = np.asarray(joint_matrices, np.float64)[primitive.joints.astype(np.int64)]
    return np.einsum("vk,vkab->vab", primitive.weights.astype(np.float64), mats)


def skin_vertices(primitive: Primitive, joint_matrices: np.ndarray,
                  positions: np.ndarray | None = None, normals: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Linear blend skinning of (morphed) positions and normals.

    ``positions``/``normals`` default to the primitive's own. Normals use the blended
    upper 3x3 (as the shader does) and are renormalized. An unskinned primitive is
    returned unchanged.
    """
    pos = primitive.positions if positions is None else positions
    nrm = primitive.normals if normals is None else normals
    if primitive.joints is None or primitive.weights is None:
        return np.asarray(pos, np.float32), np.asarray(nrm, np.float32)
    m = skin_matrices(primitive, joint_matrices)
    pos64 = np.asarray(pos, np.float64)
    out_pos = np.einsum("vab,vb->va", m[:, :3, :3], pos64) + m[:, :3, 3]
    out_nrm = np.einsum("vab,vb->va", m[:, :3, :3], np.asarray(nrm, np.float64))
    return out_pos.astype(np.float32), _unit(out_nrm).astype(np.float32)


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norm < 1e-12, 1.0, norm)
