"""Small quaternion and vector helpers for authoring: (x, y, z, w), glTF order, float64.

Rotations act on column vectors (v' = q v q*). ``a * b`` (``mul(a, b)``) rotates by b
first, then a. Angles given to the helpers named ``*_deg`` are degrees.
"""

from __future__ import annotations

import math

import numpy as np

IDENTITY = np.array([0.0, 0.0, 0.0, 1.0])
X = np.array([1.0, 0.0, 0.0])
Y = np.array([0.0, 1.0, 0.0])
Z = np.array([0.0, 0.0, 1.0])


def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return np.array([
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ])


def chain(*qs: np.ndarray) -> np.ndarray:
    """``qs[0] * qs[1] * ...`` (the last one applies first)."""
    out = IDENTITY
    for q in qs:
        out = mul(out, q)
    return out


def conj(q: np.ndarray) -> np.ndarray:
    return np.array([-q[0], -q[1], -q[2], q[3]])


def normalize(q: np.ndarray) -> np.ndarray:
    n = math.sqrt(float(np.dot(q, q)))
    return IDENTITY.copy() if n < 1e-12 else np.asarray(q, np.float64) / n


def axis_angle(axis, angle: float) -> np.ndarray:
    axis = unit(np.asarray(axis, np.float64))
    s = math.sin(angle / 2.0)
    return np.array([axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2.0)])


def axis_deg(axis, degrees: float) -> np.ndarray:
    return axis_angle(axis, math.radians(degrees))


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    u = q[:3]
    w = q[3]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return v / n if n > 1e-12 else v


def from_matrix(m: np.ndarray) -> np.ndarray:
    """Unit quaternion of a 3x3 rotation matrix (columns are the rotated axes)."""
    tr = m[0, 0] + m[1, 1] + m[2, 2]
    if tr > 0.0:
        s = math.sqrt(tr + 1.0) * 2.0
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, 0.25 * s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2.0
        q = [0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2.0
        q = [(m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2.0
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s, (m[1, 0] - m[0, 1]) / s]
    q = normalize(np.array(q))
    return q if q[3] >= 0.0 else -q


def from_basis(src_a, src_b, dst_a, dst_b) -> np.ndarray:
    """The rotation taking the orthonormal pair (src_a, src_b) onto (dst_a, dst_b)."""
    sa, sb = unit(np.asarray(src_a, float)), unit(np.asarray(src_b, float))
    da, db = unit(np.asarray(dst_a, float)), unit(np.asarray(dst_b, float))
    db = unit(db - da * np.dot(db, da))
    src = np.stack([sa, sb, np.cross(sa, sb)], axis=1)
    dst = np.stack([da, db, np.cross(da, db)], axis=1)
    return from_matrix(dst @ src.T)


def euler_deg(pitch: float = 0.0, yaw: float = 0.0, roll: float = 0.0) -> np.ndarray:
    """Body-part rotation in the normalized frame (she faces +Z, +X is her left):
    ``pitch`` > 0 leans/nods forward (about +X), ``yaw`` > 0 turns to her left (about +Y),
    ``roll`` > 0 tilts the top toward her left (about -Z). Yaw applies last."""
    return chain(axis_deg(Y, yaw), axis_deg(X, pitch), axis_deg(-Z, roll))


def mirror(q: np.ndarray) -> np.ndarray:
    """The rotation seen in a mirror across her sagittal plane (x -> -x)."""
    return np.array([q[0], -q[1], -q[2], q[3]])


def angle_between(a: np.ndarray, b: np.ndarray) -> float:
    """Angle between two unit quaternions' rotations, radians."""
    d = min(1.0, abs(float(np.dot(a, b))))
    return 2.0 * math.acos(d)


def slerp(a: np.ndarray, b: np.ndarray, t: float) -> np.ndarray:
    d = float(np.dot(a, b))
    if d < 0.0:
        b, d = -b, -d
    if d > 0.9995:
        return normalize(a + (b - a) * t)
    theta = math.acos(d)
    s = math.sin(theta)
    return (math.sin((1 - t) * theta) * a + math.sin(t * theta) * b) / s
