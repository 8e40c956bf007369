"""The edges of a mesh, for the edge lines (``silhouette``): each edge with the two
faces that meet there, found once per mesh. Pure numpy."""

from __future__ import annotations

import numpy as np

#: Edges between faces closer than this to one plane are no edges (``mesh_edges``).
FLAT_DEGREES = 1.0


def mesh_edges(indices: np.ndarray, positions: np.ndarray,
               flat_degrees: float = FLAT_DEGREES) -> np.ndarray:
    """(edges, 4) uint32: per edge ``c, a, b, d``, where ``a, b, c`` is a face in winding
    order whose edge is ``a -> b`` and ``b, a, d`` the face across it; ``d == c`` marks
    an open edge (no face across, or one wound the other way, or a third face on the
    edge: each is then its own open edge). Vertices at the same position count as one;
    degenerate faces are left out, and so are edges between faces less than
    ``flat_degrees`` from one plane (the diagonal of a flat quad): they can only be on
    the silhouette when both faces are seen edge-on, where the edges around them are."""
    faces = np.asarray(indices, np.int64).reshape(-1, 3)
    if not len(faces):
        return np.zeros((0, 4), np.uint32)
    points = np.ascontiguousarray(np.asarray(positions, np.float32))
    _unique, weld = np.unique(points, axis=0, return_inverse=True)
    weld = np.asarray(weld).reshape(-1)
    welded = weld[faces]
    keep = ((welded[:, 0] != welded[:, 1]) & (welded[:, 1] != welded[:, 2])
            & (welded[:, 0] != welded[:, 2]))
    faces, welded = faces[keep], welded[keep]
    triples = np.concatenate([faces[:, [0, 1, 2]], faces[:, [1, 2, 0]], faces[:, [2, 0, 1]]])
    ends = np.concatenate([welded[:, [0, 1]], welded[:, [1, 2]], welded[:, [2, 0]]])
    key = ends.min(axis=1) * (len(points) + 1) + ends.max(axis=1)
    order = np.argsort(key, kind="stable")
    key, triples, ends = key[order], triples[order], ends[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[starts, len(key)])
    pair = starts[counts == 2]  # exactly two faces: a pair when wound opposite ways
    pair = pair[(ends[pair, 0] == ends[pair + 1, 1]) & (ends[pair, 1] == ends[pair + 1, 0])]
    lone = np.ones(len(key), bool)
    lone[pair] = lone[pair + 1] = False
    first, second, single = triples[pair], triples[pair + 1], triples[lone]
    if flat_degrees > 0:  # faces this close to one plane turn away together
        p64 = points.astype(np.float64)
        a, b = p64[first[:, 0]], p64[first[:, 1]]
        one, two = np.cross(b - a, p64[first[:, 2]] - a), np.cross(a - b, p64[second[:, 2]] - b)
        sizes = np.linalg.norm(one, axis=1) * np.linalg.norm(two, axis=1)
        cosine = (one * two).sum(axis=1) / np.maximum(sizes, 1e-30)
        bent = cosine < np.cos(np.radians(flat_degrees))
        first, second = first[bent], second[bent]
    out = np.concatenate([
        np.stack([first[:, 2], first[:, 0], first[:, 1], second[:, 2]], axis=1),
        np.stack([single[:, 2], single[:, 0], single[:, 1], single[:, 2]], axis=1)])
    return out.astype(np.uint32)
