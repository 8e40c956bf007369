"""Mesh parts: grids of points turned into triangles, smooth normals, sweeps and skin weights.

A ``Part`` is one piece of the avatar (a sleeve, a strand of hair) with its material,
the mesh it goes into, dense per-bone weights and optional morph deltas. Units: metres.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .mathutil import normalize, smoothstep


@dataclass
class Part:
    name: str
    mesh: str  # "Body", "Head", "Face" or "Hair"
    material: str
    pos: np.ndarray  # (n, 3)
    tri: np.ndarray  # (m, 3) int
    uv: np.ndarray  # (n, 2), v = 0 at the top of the image
    weights: np.ndarray | None = None  # (n, bones) dense, rows sum to 1
    nrm: np.ndarray | None = None
    morphs: dict[str, np.ndarray] = field(default_factory=dict)  # name -> (n, 3) deltas

    def __post_init__(self) -> None:
        self.pos = np.asarray(self.pos, np.float64)
        self.tri = np.asarray(self.tri, np.int64).reshape(-1, 3)
        self.uv = np.asarray(self.uv, np.float64)
        if self.nrm is None:
            self.nrm = smooth_normals(self.pos, self.tri)


def grid_triangles(rows: int, cols: int, flip: bool = False) -> np.ndarray:
    """Two triangles per quad of a rows x cols vertex grid (row-major). The winding faces
    along u x v, u running along a row (column index) and v down the rows."""
    r, c = np.meshgrid(np.arange(rows - 1), np.arange(cols - 1), indexing="ij")
    a = (r * cols + c).ravel()
    b, d, e = a + 1, a + cols, a + cols + 1
    tris = np.stack([np.stack([a, b, d], 1), np.stack([b, e, d], 1)], 1).reshape(-1, 3)
    return tris[:, ::-1].copy() if flip else tris


def drop_degenerate(pos: np.ndarray, tri: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Triangles without zero area (collapsed poles, pinched tips) only."""
    a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
    area2 = np.linalg.norm(np.cross(b - a, c - a), axis=1)
    return tri[area2 > eps]


def weld_keys(pos: np.ndarray, step: float = 1e-6) -> np.ndarray:
    """Group index per vertex: vertices at the same place share a group."""
    keys = np.round(pos / step).astype(np.int64)
    _, inverse = np.unique(keys, axis=0, return_inverse=True)
    return inverse.ravel()


def smooth_normals(pos: np.ndarray, tri: np.ndarray) -> np.ndarray:
    """Area-weighted vertex normals, shared across seams (coincident vertices welded)."""
    group = weld_keys(pos)
    a, b, c = pos[tri[:, 0]], pos[tri[:, 1]], pos[tri[:, 2]]
    fn = np.cross(b - a, c - a)
    acc = np.zeros((group.max() + 1 if len(group) else 0, 3))
    for k in range(3):
        np.add.at(acc, group[tri[:, k]], fn)
    n = normalize(acc[group])
    bad = np.linalg.norm(n, axis=1) < 0.5
    n[bad] = (0.0, 1.0, 0.0)
    return n


def grid_part(
    name: str,
    mesh: str,
    material: str,
    grid: np.ndarray,
    uv: np.ndarray | None = None,
    flip: bool = False,
    weights: np.ndarray | None = None,
    keep_degenerate: bool = False,
    nrm: np.ndarray | None = None,
) -> Part:
    """A Part from a (rows, cols, 3) grid of points; default UVs span the unit square.
    ``keep_degenerate`` keeps zero-area triangles (morphing parts open them later)."""
    rows, cols = grid.shape[:2]
    pos = grid.reshape(-1, 3)
    if uv is None:
        u, v = np.meshgrid(np.linspace(0, 1, cols), np.linspace(0, 1, rows))
        uv = np.stack([u, v], -1)
    tri = grid_triangles(rows, cols, flip)
    if not keep_degenerate:
        tri = drop_degenerate(pos, tri)
    w = None if weights is None else weights.reshape(rows * cols, -1)
    return Part(
        name,
        mesh,
        material,
        pos,
        tri,
        uv.reshape(-1, 2),
        w,
        None if nrm is None else nrm.reshape(-1, 3),
    )


def inner_layer(
    name: str, part: Part, grid_shape: tuple[int, int], rows: slice, flip: bool = False
) -> Part:
    """The inside of some rows of a one-sided sheet made by ``grid_part``: the same points,
    the winding reversed and the normals turned inward, so the back of the sheet shows where
    it can be seen (a cap's edge, a cuff's opening) while the rest stays one-sided.
    ``grid_shape`` is the sheet's (rows, cols); ``flip`` the flag its grid was made with."""
    n_rows, cols = grid_shape
    index = np.arange(n_rows * cols).reshape(n_rows, cols)[rows]
    sub = index.ravel()
    r = len(index)
    tri = grid_triangles(r, cols, not flip)
    tri = drop_degenerate(part.pos[sub], tri)
    return Part(
        name,
        part.mesh,
        part.material,
        part.pos[sub],
        tri,
        part.uv[sub],
        None if part.weights is None else part.weights[sub],
        -part.nrm[sub],
    )


def keep_triangles(part: Part, keep: np.ndarray) -> Part:
    """``part`` with only the triangles where ``keep`` is true, and only the vertices those
    use (normals as they were: the dropped triangles lie out of sight)."""
    tri = part.tri[np.asarray(keep, bool)]
    used = np.unique(tri)
    remap = np.full(len(part.pos), -1, np.int64)
    remap[used] = np.arange(len(used))
    return Part(
        part.name,
        part.mesh,
        part.material,
        part.pos[used],
        remap[tri],
        part.uv[used],
        None if part.weights is None else part.weights[used],
        part.nrm[used],
        {k: v[used] for k, v in part.morphs.items()},
    )


def frames_along(
    path: np.ndarray, side_hint: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(tangent, side, normal) per path point; ``side`` is the hint made perpendicular to the
    tangent (hint may be (3,) or (k, 3)); normal = tangent x side."""
    t = normalize(np.gradient(path, axis=0))
    hint = np.broadcast_to(np.asarray(side_hint, np.float64), path.shape)
    side = normalize(hint - (hint * t).sum(1, keepdims=True) * t)
    nrm = np.cross(t, side)
    return t, side, nrm


def sweep(
    path: np.ndarray,
    side_hint: np.ndarray,
    half_width: np.ndarray,
    half_thick: np.ndarray,
    cols: int = 12,
    bend: np.ndarray | float = 0.0,
    power: float = 2.0,
    shift: np.ndarray | float = 0.0,
) -> np.ndarray:
    """A closed tube (rows = path points, cols + 1 with a seam column) around ``path``.

    Cross-section: superellipse of exponent ``power`` with half extents ``half_width`` along
    the side axis and ``half_thick`` along the normal; ``bend`` curls the edges back along
    -normal by bend * (x / half_width)^2 (a curved ribbon); ``shift`` moves it along normal.
    """
    k = len(path)
    _, side, nrm = frames_along(path, side_hint)
    a = np.linspace(0.0, 2 * np.pi, cols + 1)
    ca, sa = np.cos(a), np.sin(a)
    e = 2.0 / power
    cx = np.sign(ca) * np.abs(ca) ** e
    cy = np.sign(sa) * np.abs(sa) ** e
    hw = np.broadcast_to(np.asarray(half_width, np.float64), (k,))[:, None]
    ht = np.broadcast_to(np.asarray(half_thick, np.float64), (k,))[:, None]
    bd = np.broadcast_to(np.asarray(bend, np.float64), (k,))[:, None]
    sh = np.broadcast_to(np.asarray(shift, np.float64), (k,))[:, None]
    lx = hw * cx[None, :]
    ly = ht * cy[None, :] - bd * cx[None, :] ** 2 + sh
    grid = path[:, None, :] + lx[..., None] * side[:, None, :] + ly[..., None] * nrm[:, None, :]
    grid[:, -1] = grid[:, 0]
    return grid


class Weights:
    """Builds dense (n, bones) weight matrices."""

    def __init__(self, bone_count: int) -> None:
        self.bones = bone_count

    def rigid(self, n: int, bone: int) -> np.ndarray:
        w = np.zeros((n, self.bones))
        w[:, bone] = 1.0
        return w

    def chain(
        self,
        s: np.ndarray,
        knots: list[float] | np.ndarray,
        bones: list[int],
        blend: float | list[float],
    ) -> np.ndarray:
        """Weights along a chain: ``bones[i]`` owns s in (knots[i-1], knots[i]); each knot blends
        the two bones smoothly over +-blend (same units as s)."""
        s = np.asarray(s, np.float64).ravel()
        knots = np.asarray(knots, np.float64)
        blends = np.broadcast_to(np.asarray(blend, np.float64), knots.shape)
        w = np.zeros((len(s), self.bones))
        if len(knots) == 0:
            w[:, bones[0]] = 1.0
            return w
        nearest = np.argmin(np.abs(s[:, None] - knots[None, :]), axis=1)
        k, b = knots[nearest], blends[nearest]
        t = smoothstep(0.0, 1.0, (s - (k - b)) / np.maximum(2 * b, 1e-9))
        rows = np.arange(len(s))
        lo = np.asarray(bones)[nearest]
        hi = np.asarray(bones)[nearest + 1]
        np.add.at(w, (rows, lo), 1.0 - t)
        np.add.at(w, (rows, hi), t)
        return w

    @staticmethod
    def mix(a: np.ndarray, b: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Per-vertex blend of two weight sets: (1 - t) a + t b."""
        t = np.asarray(t, np.float64).reshape(-1, 1)
        return a * (1.0 - t) + b * t


def mirror_x(part: Part, name: str, weights_map: np.ndarray | None = None) -> Part:
    """The same part reflected through x = 0 (winding reversed so normals stay outward);
    ``weights_map`` maps each bone column to its mirrored bone."""
    pos = part.pos * (-1.0, 1.0, 1.0)
    nrm = part.nrm * (-1.0, 1.0, 1.0)
    w = None
    if part.weights is not None:
        w = part.weights.copy()
        if weights_map is not None:
            m = len(weights_map)
            w[:, :m] = part.weights[:, weights_map]
    morphs = {k: v * (-1.0, 1.0, 1.0) for k, v in part.morphs.items()}
    return Part(
        name,
        part.mesh,
        part.material,
        pos,
        part.tri[:, ::-1].copy(),
        part.uv.copy(),
        w,
        nrm,
        morphs,
    )
