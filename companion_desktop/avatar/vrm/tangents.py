"""Per-vertex tangents for normal mapping: the file's TANGENT made safe, or tangents
generated from UV0 (per-triangle accumulation, Gram-Schmidt, handedness w = +-1).
Numpy only."""

from __future__ import annotations

import numpy as np


def vertex_tangents(positions: np.ndarray, normals: np.ndarray, uv: np.ndarray,
                    indices: np.ndarray) -> np.ndarray:
    """Unit tangents (n, 4) float32 along +U, made orthogonal to the normals, with w = +1
    where the bitangent ``cross(normal, tangent)`` points along -V (glTF's image "up") and
    -1 where the UVs are mirrored. Per-triangle directions are summed per vertex (weighted
    by UV area); vertices with no usable triangle get any unit vector orthogonal to the normal.
    """
    n = len(positions)
    tris = indices[: len(indices) // 3 * 3].reshape(-1, 3).astype(np.intp)
    p, t = positions.astype(np.float64), uv.astype(np.float64)
    e1, e2 = p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]]
    d1, d2 = t[tris[:, 1]] - t[tris[:, 0]], t[tris[:, 2]] - t[tris[:, 0]]
    det = d1[:, 0] * d2[:, 1] - d2[:, 0] * d1[:, 1]
    sign = np.where(np.abs(det) > 1e-20, np.sign(det), 0.0)[:, None]
    along_u = (e1 * d2[:, 1:] - e2 * d1[:, 1:]) * sign
    along_v = (e2 * d1[:, :1] - e1 * d2[:, :1]) * sign
    sums = np.zeros((2, n, 3), np.float64)
    for corner in range(3):
        for axis in range(3):
            sums[0, :, axis] += np.bincount(tris[:, corner], along_u[:, axis], minlength=n)
            sums[1, :, axis] += np.bincount(tris[:, corner], along_v[:, axis], minlength=n)
    normal = np.nan_to_num(normals.astype(np.float64))
    tangent = sums[0] - normal * np.einsum("ij,ij->i", normal, sums[0])[:, None]
    length = np.linalg.norm(tangent, axis=1)
    good = np.isfinite(length) & (length > 1e-12)
    tangent[good] /= length[good, None]
    fallback = np.cross(normal, np.where(np.abs(normal[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]]))
    fallback /= np.maximum(np.linalg.norm(fallback, axis=1), 1e-12)[:, None]
    tangent[~good] = np.where(np.linalg.norm(fallback[~good], axis=1)[:, None] > 0.5,
                              fallback[~good], [[1.0, 0.0, 0.0]])
    handed = np.einsum("ij,ij->i", np.cross(normal, tangent), -sums[1])
    return np.hstack([tangent, np.where(handed < 0.0, -1.0, 1.0)[:, None]]).astype(np.float32)


def sanitize_tangents(raw: np.ndarray) -> np.ndarray:
    """File tangents (n, 4) float32: non-finite values become 0, xyz unit length (zero
    stays zero: the renderer then keeps the vertex normal), w exactly +1 or -1."""
    raw = np.nan_to_num(raw.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
    length = np.linalg.norm(raw[:, :3], axis=1)
    xyz = raw[:, :3] / np.where(length > 1e-12, length, 1.0)[:, None]
    w = np.where(raw[:, 3] < 0.0, -1.0, 1.0)
    return np.hstack([xyz, w[:, None]]).astype(np.float32)
