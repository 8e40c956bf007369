"""Quaternion helpers on numpy arrays: ``(..., 4)`` as ``(x, y, z, w)`` (glTF order).

Every function broadcasts over leading axes and works in float64. Angles are radians.
Rotations act on column vectors (``v' = q v q*``), as in glTF and three.js.
"""

from __future__ import annotations

import numpy as np

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
_EPS = 1e-12


def identity(n: int | None = None) -> np.ndarray:
    """One identity quaternion (4,), or ``n`` of them (n, 4)."""
    return IDENTITY.copy() if n is None else np.tile(IDENTITY, (n, 1))


def _product_table() -> np.ndarray:
    """T with ``(a * b)_k = sum_ij T[i, j, k] a_i b_j`` for (x, y, z, w) quaternions."""
    x, y, z, w = range(4)
    terms = {  # k: (sign, i of a, j of b)
        x: ((1, w, x), (1, x, w), (1, y, z), (-1, z, y)),
        y: ((1, w, y), (-1, x, z), (1, y, w), (1, z, x)),
        z: ((1, w, z), (1, x, y), (-1, y, x), (1, z, w)),
        w: ((1, w, w), (-1, x, x), (-1, y, y), (-1, z, z)),
    }
    table = np.zeros((4, 4, 4))
    for k, row in terms.items():
        for sign, i, j in row:
            table[i, j, k] = sign
    return table.reshape(16, 4)


def _matrix_table() -> np.ndarray:
    """M with ``R.flat = (q q^T).flat @ M`` (homogeneous: scaled by |q|^2)."""
    x, y, z, w = range(4)
    entries = [  # row-major 3x3, each a list of (coefficient, i, j)
        ((1, w, w), (1, x, x), (-1, y, y), (-1, z, z)),
        ((2, x, y), (-2, w, z)), ((2, x, z), (2, w, y)),
        ((2, x, y), (2, w, z)),
        ((1, w, w), (-1, x, x), (1, y, y), (-1, z, z)),
        ((2, y, z), (-2, w, x)),
        ((2, x, z), (-2, w, y)), ((2, y, z), (2, w, x)),
        ((1, w, w), (-1, x, x), (-1, y, y), (1, z, z)),
    ]
    table = np.zeros((4, 4, 9))
    for k, entry in enumerate(entries):
        for coefficient, i, j in entry:
            table[i, j, k] += coefficient
    return table.reshape(16, 9)


_PRODUCT = _product_table()
_MATRIX = _matrix_table()
_MATRIX_N2 = np.concatenate([_MATRIX, np.eye(4).reshape(16, 1)], axis=1)  # + |q|^2
# q q^T is symmetric: its 10 distinct products (i <= j) are enough, the table rows of
# (i, j) and (j, i) added together
_PAIRS = [(i, j) for i in range(4) for j in range(i, 4)]
_PAIR_INDEX = np.array([i for i, _ in _PAIRS] + [j for _, j in _PAIRS], np.intp)


def fold_pairs(table: np.ndarray) -> np.ndarray:
    """A table over the 16 entries of ``q q^T`` (axis -2) as one over ``pair_products(q)``:
    the rows of (i, j) and (j, i) added together."""
    return np.stack([table[..., 4 * i + j, :] + (table[..., 4 * j + i, :] if i != j else 0.0)
                     for i, j in _PAIRS], axis=-2)


def pair_products(q: np.ndarray) -> np.ndarray:
    """(..., 10) the distinct products ``q_i q_j`` (i <= j) of quaternions (..., 4)."""
    both = q[..., _PAIR_INDEX]
    return both[..., :10] * both[..., 10:]


_PAIR_MATRIX_N2 = fold_pairs(_MATRIX_N2)


def multiply(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton product ``a * b``: rotate by ``b`` first, then by ``a``."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    outer = a[..., :, None] * b[..., None, :]
    return outer.reshape(outer.shape[:-2] + (16,)) @ _PRODUCT


def sandwich_maps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(..., 4, 4) matrices M with ``M @ q == a * q * b`` (the product is linear in q)."""
    table = _PRODUCT.reshape(4, 4, 4)
    left = np.einsum("ijk,...i->...kj", table, np.asarray(a, np.float64))
    right = np.einsum("ijk,...j->...ki", table, np.asarray(b, np.float64))
    return right @ left


def conjugate(q: np.ndarray) -> np.ndarray:
    """The inverse of a unit quaternion."""
    out = np.array(q, np.float64, copy=True)
    out[..., :3] *= -1.0
    return out


inverse = conjugate


def normalize(q: np.ndarray) -> np.ndarray:
    """Unit length; a zero quaternion becomes the identity."""
    q = np.asarray(q, np.float64)
    norm = _length(q)
    safe = np.where(norm < _EPS, 1.0, norm)
    return np.where(norm < _EPS, IDENTITY, q / safe)


def from_axis_angle(axis: np.ndarray, angle: np.ndarray | float) -> np.ndarray:
    """Rotation by ``angle`` about ``axis`` (normalized here)."""
    axis = np.asarray(axis, np.float64)
    norm = _length(axis)
    axis = axis / np.where(norm < _EPS, 1.0, norm)
    half = 0.5 * np.asarray(angle, np.float64)[..., None]
    return np.concatenate([axis * np.sin(half), np.cos(half)], axis=-1)


def from_euler(x: float | np.ndarray, y: float | np.ndarray, z: float | np.ndarray,
               order: str = "YXZ") -> np.ndarray:
    """Intrinsic Euler angles as three.js applies them: order "YXZ" is ``Ry * Rx * Rz``."""
    parts = {
        "X": from_axis_angle(np.array([1.0, 0.0, 0.0]), x),
        "Y": from_axis_angle(np.array([0.0, 1.0, 0.0]), y),
        "Z": from_axis_angle(np.array([0.0, 0.0, 1.0]), z),
    }
    first, second, third = (parts[axis] for axis in order.upper())
    return multiply(multiply(first, second), third)


def to_matrix(q: np.ndarray) -> np.ndarray:
    """Rotation matrices ``(..., 3, 3)`` of quaternions (normalized here; zero: identity)."""
    q = np.asarray(q, np.float64)
    flat = pair_products(q) @ _PAIR_MATRIX_N2  # 9 entries, then |q|^2
    n2 = flat[..., 9:]
    if n2.size and np.minimum.reduce(n2, axis=None) >= _EPS:
        return (flat[..., :9] / n2).reshape(q.shape[:-1] + (3, 3))
    flat = np.where(n2 < _EPS, _IDENTITY_FLAT, flat[..., :9] / np.where(n2 < _EPS, 1.0, n2))
    return flat.reshape(q.shape[:-1] + (3, 3))


_IDENTITY_FLAT = np.eye(3).reshape(9)


def from_matrix(m: np.ndarray) -> np.ndarray:
    """Quaternions of rotation matrices ``(..., 3, 3)`` (scale is divided out per column)."""
    m = np.asarray(m, np.float64)[..., :3, :3]
    m = m / np.maximum(np.sqrt(np.sum(m * m, axis=-2, keepdims=True)), _EPS)
    m00, m11, m22 = m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]
    # Four candidate forms; use the numerically largest one per element.
    t = np.stack([1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22,
                  1 + m00 + m11 + m22], axis=-1)
    pick = np.argmax(t, axis=-1)
    s = 0.5 / np.sqrt(np.maximum(np.take_along_axis(t, pick[..., None], -1)[..., 0], _EPS))
    cands = np.stack(
        [
            np.stack([0.25 / s, (m[..., 0, 1] + m[..., 1, 0]) * s,
                      (m[..., 0, 2] + m[..., 2, 0]) * s, (m[..., 2, 1] - m[..., 1, 2]) * s], -1),
            np.stack([(m[..., 0, 1] + m[..., 1, 0]) * s, 0.25 / s,
                      (m[..., 1, 2] + m[..., 2, 1]) * s, (m[..., 0, 2] - m[..., 2, 0]) * s], -1),
            np.stack([(m[..., 0, 2] + m[..., 2, 0]) * s, (m[..., 1, 2] + m[..., 2, 1]) * s,
                      0.25 / s, (m[..., 1, 0] - m[..., 0, 1]) * s], -1),
            np.stack([(m[..., 2, 1] - m[..., 1, 2]) * s, (m[..., 0, 2] - m[..., 2, 0]) * s,
                      (m[..., 1, 0] - m[..., 0, 1]) * s, 0.25 / s], -1),
        ],
        axis=-2,
    )
    q = np.take_along_axis(cands, pick[..., None, None], -2)[..., 0, :]
    return normalize(q)


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross product of (..., 3) vectors (np.cross without its axis juggling)."""
    ax, ay, az = a[..., 0], a[..., 1], a[..., 2]
    bx, by, bz = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx], axis=-1)


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Rotate vectors ``(..., 3)`` by quaternions ``(..., 4)``."""
    q = np.asarray(q, np.float64)
    v = np.asarray(v, np.float64)
    u, w = q[..., :3], q[..., 3:4]
    t = 2.0 * cross(u, v)
    return v + w * t + cross(u, t)


def from_unit_vectors(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The shortest rotation taking direction ``a`` to direction ``b`` (both normalized here).

    Opposite vectors get a half turn about an axis perpendicular to ``a``.
    """
    a = _unit(a)
    b = _unit(b)
    r = np.sum(a * b, axis=-1, keepdims=True) + 1.0
    xyz = cross(a, b)
    opposite = r[..., 0] < 1e-8
    if np.any(opposite):
        # perpendicular axis: (-y, x, 0) unless a is along z, then (0, -z, y)
        alt = np.where(
            (np.abs(a[..., 0]) > np.abs(a[..., 2]))[..., None],
            np.stack([-a[..., 1], a[..., 0], np.zeros_like(a[..., 0])], -1),
            np.stack([np.zeros_like(a[..., 0]), -a[..., 2], a[..., 1]], -1),
        )
        xyz = np.where(opposite[..., None], alt, xyz)
        r = np.where(opposite[..., None], 0.0, r)
    return normalize(np.concatenate([xyz, r], axis=-1))


def slerp(a: np.ndarray, b: np.ndarray, t: float | np.ndarray) -> np.ndarray:
    """Spherical interpolation from ``a`` (t=0) to ``b`` (t=1) along the shorter arc."""
    a = normalize(a)
    b = normalize(b)
    t = np.asarray(t, np.float64)[..., None] if np.ndim(t) else float(t)
    dot = np.sum(a * b, axis=-1, keepdims=True)
    b = np.where(dot < 0.0, -b, b)
    dot = np.abs(dot)
    theta = np.arccos(np.clip(dot, -1.0, 1.0))
    sin = np.sin(theta)
    near = sin < 1e-6
    safe = np.where(near, 1.0, sin)
    wa = np.where(near, 1.0 - t, np.sin((1.0 - t) * theta) / safe)
    wb = np.where(near, t, np.sin(t * theta) / safe)
    return normalize(wa * a + wb * b)


def angle_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The rotation angle (radians, 0..pi) from ``a`` to ``b``."""
    dot = np.abs(np.sum(normalize(a) * normalize(b), axis=-1))
    return 2.0 * np.arccos(np.clip(dot, 0.0, 1.0))


def _unit(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, np.float64)
    norm = _length(v)
    return v / np.where(norm < _EPS, 1.0, norm)


def _length(v: np.ndarray) -> np.ndarray:
    return np.sqrt(np.sum(v * v, axis=-1, keepdims=True))
