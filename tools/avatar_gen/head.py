"""The head: an anime skull with a round cranium, soft cheeks and a small pointed chin.

The surface is a stack of superellipse sections over an elevation angle beta (-90 at the
chin, +90 at the crown) around ``CENTRE``; ``face_point`` gives exact points on its front
for the decals (eyes, brows, mouth) and ``radial_point`` points along a direction from
the centre (for the hair). Metres, +Z forward.
"""

from __future__ import annotations

import numpy as np

from .mathutil import normalize, pchip
from .meshkit import Part, grid_part

CENTRE = np.array([0.0, 1.365, 0.0])
RY_TOP, RY_BOTTOM = 0.140, 0.150

_BETA = np.radians([-90, -80, -65, -50, -30, 0, 30, 60, 90])
_A = [0.060, 0.072, 0.098, 0.124, 0.128, 0.119, 0.121, 0.124, 0.124]  # half-width / cos(beta)
_F = [0.050, 0.060, 0.088, 0.104, 0.110, 0.112, 0.110, 0.110, 0.110]  # front depth / cos(beta)
_B = [0.050, 0.060, 0.080, 0.095, 0.112, 0.122, 0.125, 0.118, 0.110]  # back depth / cos(beta)
_ZC = [0.060, 0.056, 0.042, 0.028, 0.012, 0.0, 0.0, 0.0, 0.0]  # section centre z
_NF = [2.0, 2.0, 2.1, 2.3, 2.4, 2.4, 2.3, 2.1, 2.0]  # front superellipse exponent
_NB = 2.0

NOSE = (0.0, 1.290, 0.0035)  # x, y, height of the tiny nose bump


def _params(beta: np.ndarray):
    c = np.cos(beta)
    return (
        c * pchip(_BETA, _A, beta),
        c * pchip(_BETA, _F, beta),
        c * pchip(_BETA, _B, beta),
        pchip(_BETA, _ZC, beta),
        pchip(_BETA, _NF, beta),
    )


def beta_of_y(y: np.ndarray) -> np.ndarray:
    d = np.asarray(y, np.float64) - CENTRE[1]
    ry = np.where(d >= 0, RY_TOP, RY_BOTTOM)
    return np.arcsin(np.clip(d / ry, -1.0, 1.0))


def _nose(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    nx, ny, h = NOSE
    return h * np.exp(-(((x - nx) / 0.0075) ** 2) - ((y - ny) / 0.011) ** 2)


def face_z(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """z of the front surface at (x, y) (inside the face outline)."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    a, f, _, zc, n = _params(beta_of_y(y))
    t = np.clip(np.abs(x) / np.maximum(a, 1e-9), 0.0, 1.0)
    return zc + f * (1.0 - t**n) ** (1.0 / n) + _nose(x, y)


def face_point(x, y, lift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """Points on the face surface lifted ``lift`` metres along its normal, and the normals."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    h = 1e-4
    z = face_z(x, y)
    dzdx = (face_z(x + h, y) - face_z(x - h, y)) / (2 * h)
    dzdy = (face_z(x, y + h) - face_z(x, y - h)) / (2 * h)
    n = normalize(np.stack([-dzdx, -dzdy, np.ones_like(z)], -1))
    p = np.stack([x, y, z], -1) + lift * n
    return p, n


def inside(p: np.ndarray) -> np.ndarray:
    """True where points (..., 3) are inside the head."""
    beta = beta_of_y(p[..., 1])
    a, f, b, zc, n = _params(beta)
    dz = p[..., 2] - zc
    depth = np.where(dz >= 0, f, b)
    expo = np.where(dz >= 0, n, _NB)
    within = np.abs(p[..., 1] - CENTRE[1]) <= np.where(p[..., 1] >= CENTRE[1], RY_TOP, RY_BOTTOM)
    val = (np.abs(p[..., 0]) / np.maximum(a, 1e-9)) ** expo + (
        np.abs(dz) / np.maximum(depth, 1e-9)
    ) ** expo
    return within & (val <= 1.0)


def radial_point(direction: np.ndarray, offset: float | np.ndarray = 0.0) -> np.ndarray:
    """The head surface along unit directions (..., 3) from CENTRE, pushed out by ``offset``."""
    d = normalize(np.asarray(direction, np.float64))
    lo = np.zeros(d.shape[:-1])
    hi = np.full(d.shape[:-1], 0.3)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        ins = inside(CENTRE + d * mid[..., None])
        lo = np.where(ins, mid, lo)
        hi = np.where(ins, hi, mid)
    r = 0.5 * (lo + hi) + offset
    return CENTRE + d * np.asarray(r)[..., None]


def sphere_dir(theta: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """Direction for polar angle theta (0 = up) and azimuth phi (0 = front +Z, +pi/2 = +X)."""
    st = np.sin(theta)
    return np.stack([st * np.sin(phi), np.cos(theta), st * np.cos(phi)], -1)


def head_grid(rows: int = 30, cols: int = 36) -> np.ndarray:
    beta = np.linspace(-np.pi / 2, np.pi / 2, rows)
    phi = np.linspace(0.0, 2 * np.pi, cols + 1)
    a, f, b, zc, n = (v[:, None] for v in _params(beta))
    s, c = np.sin(phi)[None, :], np.cos(phi)[None, :]
    expo = np.where(c >= 0, n, _NB)
    x = a * np.sign(s) * np.abs(s) ** (2.0 / expo)
    depth = np.where(c >= 0, f, b)
    z = zc + depth * np.sign(c) * np.abs(c) ** (2.0 / expo)
    y = CENTRE[1] + np.where(beta >= 0, RY_TOP, RY_BOTTOM)[:, None] * np.sin(beta)[:, None]
    y = np.broadcast_to(y, x.shape)
    z = z + _nose(x, y) * (c > 0.6)
    grid = np.stack([x, y, z], -1)
    grid[:, -1] = grid[:, 0]
    grid[0] = grid[0].mean(axis=0)  # the chin pole
    grid[-1] = grid[-1].mean(axis=0)  # the crown pole
    return grid


#: planar UV of the face texture: u across x, v down y (metres covered by the image)
FACE_UV_SIZE = 0.30
FACE_UV_TOP = 1.50


def face_uv(p: np.ndarray) -> np.ndarray:
    u = 0.5 + p[..., 0] / FACE_UV_SIZE
    v = (FACE_UV_TOP - p[..., 1]) / FACE_UV_SIZE
    return np.stack([u, v], -1)


def head_part(weights: np.ndarray) -> Part:
    grid = head_grid()
    uv = face_uv(grid)
    part = grid_part("head", "Head", "FaceSkin", grid, uv=uv)
    # anime shading: normals of a soft ball around the head, so the face stays evenly lit
    ball = normalize((part.pos - (CENTRE + (0.0, 0.03, -0.02))) * (1.0, 0.9, 1.0))
    part.nrm = normalize(0.25 * part.nrm + 0.75 * ball)
    part.weights = np.repeat(weights[None], len(part.pos), axis=0)
    return part
