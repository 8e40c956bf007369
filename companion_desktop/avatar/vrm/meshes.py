"""glTF meshes into ``Mesh``/``Primitive``: triangles, attributes, skin weights, morph targets.

* Triangles (mode 4) as is; strips (5) and fans (6) become triangle lists; points and
  lines (0-3) are skipped with a warning. Indices are uint32 and checked against the
  vertex count (an index past the vertices is a load error).
* Vertex data is converted once per accessor, so primitives sharing accessors share arrays.
* Missing normals are made from the faces (area-weighted), once per POSITION accessor
  from the triangles of every primitive that uses it.
* JOINTS_0/WEIGHTS_0 (and a second set, reduced to the 4 largest weights) give uint16
  joints and float32 weights whose rows sum to 1; all-zero rows become joint 0, weight 1.
* TANGENT (VEC4 float) is read when present and sanitised (finite xyz, w = +-1); a bad
  one is ignored with a warning. Files without it get tangents from ``vertex_tangents``
  when a renderer needs them (normal-mapped materials), not at load.
* Morph target names come from ``mesh.extras.targetNames`` or, as VRM 0.x exporters
  write them, from ``primitive.extras.targetNames``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import as_dict, as_int, as_list, as_str, as_vec, get, index_or_none
from .load_context import LoadContext
from .model import Mesh, MorphTarget, Primitive
from .tangents import sanitize_tangents, vertex_tangents  # noqa: F401 - re-exported

LINE_MODES = {0: "points", 1: "lines", 2: "line loops", 3: "line strips"}
INDEX_TYPES = (5121, 5123, 5125)
JOINT_TYPES = (5121, 5123)


def attribute_map(obj: Any) -> dict[str, Any]:
    """A primitive's (or target's) attributes as ``{semantic: accessor}``."""
    if isinstance(obj, dict):
        return obj
    if obj is None or not hasattr(obj, "__dict__") or isinstance(obj, (str, int, float, list)):
        return {}
    return {k: v for k, v in vars(obj).items() if v is not None and not k.startswith("__")}


def face_normals(positions: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Unit vertex normals (n, 3) float32: sums of adjacent face normals weighted by area."""
    n = len(positions)
    tris = indices[: len(indices) // 3 * 3].reshape(-1, 3).astype(np.intp)
    p = positions.astype(np.float64)
    cross = np.cross(p[tris[:, 1]] - p[tris[:, 0]], p[tris[:, 2]] - p[tris[:, 0]])
    normals = np.zeros((n, 3), np.float64)
    for corner in range(3):
        for axis in range(3):
            normals[:, axis] += np.bincount(tris[:, corner], cross[:, axis], minlength=n)
    length = np.linalg.norm(normals, axis=1)
    good = np.isfinite(length) & (length > 1e-20)
    normals[good] /= length[good, None]
    normals[~good] = (0.0, 1.0, 0.0)
    return normals.astype(np.float32)


def triangles_from(indices: np.ndarray, mode: int) -> np.ndarray:
    """Triangle-list indices from a list (4), strip (5) or fan (6)."""
    if mode == 4:
        return indices
    count = len(indices) - 2
    if count <= 0:
        return np.zeros(0, np.uint32)
    i = np.arange(count)
    if mode == 5:  # glTF: triangle i = (i, i + 1 + i%2, i + 2 - i%2)
        odd = i % 2
        tris = np.stack([indices[i], indices[i + 1 + odd], indices[i + 2 - odd]], axis=1)
    else:
        tris = np.stack([indices[i + 1], indices[i + 2], np.full(count, indices[0])], axis=1)
    return tris.reshape(-1).astype(np.uint32)


def read_meshes(ctx: LoadContext, material_count: int) -> list[Mesh]:
    builder = _MeshBuilder(ctx, material_count)
    meshes = [builder.mesh(i, mesh) for i, mesh in enumerate(ctx.doc.gltf.meshes or [])]
    builder.fill_missing_normals()
    return meshes


class _MeshBuilder:
    def __init__(self, ctx: LoadContext, material_count: int) -> None:
        self.ctx = ctx
        self.material_count = material_count
        self.cache: dict[tuple, Any] = {}
        self.without_normals: dict[int, list[Primitive]] = {}

    def mesh(self, i: int, mesh: Any) -> Mesh:
        primitives: list[Primitive] = []
        for p, raw in enumerate(as_list(get(mesh, "primitives"))):
            primitive = self.primitive(f"mesh {i} primitive {p}", raw)
            if primitive is not None:
                primitives.append(primitive)
        count = max((len(p.targets) for p in primitives), default=0)
        names = _target_names(mesh)
        names = [as_str(n, f"morph{k}") for k, n in enumerate(names[:count])]
        names += [f"morph{k}" for k in range(len(names), count)]
        weights = as_vec(get(mesh, "weights"), count, np.zeros(count, np.float32))
        return Mesh(as_str(get(mesh, "name"), f"mesh{i}"), primitives, names, weights)

    def primitive(self, where: str, raw: Any) -> Primitive | None:
        attrs = attribute_map(get(raw, "attributes"))
        mode = as_int(get(raw, "mode", 4), -1)
        if mode not in (4, 5, 6):
            kind = LINE_MODES.get(mode, f"mode {mode}")
            self.ctx.warn(f"{where} draws {kind}, which avatars do not draw", "skipped")
            return None
        if attrs.get("POSITION") is None:
            self.ctx.warn(f"{where} has no POSITION attribute", "skipped")
            return None
        position_accessor = attrs["POSITION"]
        n = self.ctx.accessors.count(position_accessor, f"{where} POSITION")
        if n > self.ctx.limits.max_vertices:
            raise self.ctx.fail(
                f"{where} has {n} vertices; at most {self.ctx.limits.max_vertices} are allowed"
            )
        joints, weights = self.skin_attributes(attrs, where, n)
        material = get(raw, "material")
        if material is not None and index_or_none(material, self.material_count) is None:
            self.ctx.warn(f"{where} uses material {material!r}, which does not exist",
                          "drawn with the default material")
        normal_accessor = attrs.get("NORMAL")
        primitive = Primitive(
            positions=self.vec(position_accessor, 3, f"{where} POSITION", n),
            normals=self.vec(normal_accessor, 3, f"{where} NORMAL", n)
            if normal_accessor is not None else np.zeros((0, 3), np.float32),
            indices=self.indices(get(raw, "indices"), mode, n, where),
            uv0=self.optional_vec(attrs.get("TEXCOORD_0"), 2, f"{where} TEXCOORD_0", n),
            uv1=self.optional_vec(attrs.get("TEXCOORD_1"), 2, f"{where} TEXCOORD_1", n),
            tangents=self.tangents(attrs.get("TANGENT"), f"{where} TANGENT", n),
            colors=self.colors(attrs.get("COLOR_0"), f"{where} COLOR_0", n),
            joints=joints,
            weights=weights,
            material=index_or_none(material, self.material_count),
            targets=self.targets(get(raw, "targets"), where, n),
        )  # fmt: skip
        if normal_accessor is None:
            self.without_normals.setdefault(int(position_accessor), []).append(primitive)
        return primitive

    def fill_missing_normals(self) -> None:
        for primitives in self.without_normals.values():
            positions = primitives[0].positions
            self.ctx.budget.take(positions.nbytes * 3, "generated normals")
            indices = np.concatenate([p.indices for p in primitives])
            normals = face_normals(positions, indices)
            for primitive in primitives:
                primitive.normals = normals

    def vec(self, accessor: Any, size: int, what: str, n: int) -> np.ndarray:
        """A float32 (n, size) attribute, converted once per accessor."""
        key = ("vec", accessor if isinstance(accessor, int) else -1, size)
        array = self.cache.get(key)
        if array is None:
            array = self.ctx.accessors.read(accessor, what)
            if array.shape[1] != size:
                raise self.ctx.fail(f"{what} has {array.shape[1]} components, not {size}")
            array = array.astype(np.float32, copy=False)
            self.cache[key] = array
        if len(array) != n:
            raise self.ctx.fail(f"{what} has {len(array)} elements; the primitive has {n} vertices")
        return array

    def optional_vec(self, accessor: Any, size: int, what: str, n: int) -> np.ndarray | None:
        return None if accessor is None else self.vec(accessor, size, what, n)

    def tangents(self, accessor: Any, what: str, n: int) -> np.ndarray | None:
        """The file's TANGENT as (n, 4) float32 (see ``sanitize_tangents``); None when
        absent or unusable (warned: tangents are then generated where needed)."""
        if accessor is None:
            return None
        key = ("tangent", accessor if isinstance(accessor, int) else -1)
        if key not in self.cache:
            raw = self.ctx.accessors.read(accessor, what)
            self.cache[key] = sanitize_tangents(raw) if raw.shape[1] == 4 else None
        tangents = self.cache[key]
        if tangents is None or len(tangents) != n:
            self.ctx.warn(f"{what} is not one VEC4 per vertex", "generated from the UVs instead")
            return None
        return tangents

    def colors(self, accessor: Any, what: str, n: int) -> np.ndarray | None:
        if accessor is None:
            return None
        key = ("color", accessor if isinstance(accessor, int) else -1)
        if key not in self.cache:
            raw = self.ctx.accessors.read(accessor, what)
            if raw.shape[1] not in (3, 4):
                raise self.ctx.fail(f"{what} has {raw.shape[1]} components, not 3 or 4")
            rgba = np.ones((len(raw), 4), np.float32)
            rgba[:, : raw.shape[1]] = raw
            self.cache[key] = rgba
        if len(self.cache[key]) != n:
            raise self.ctx.fail(f"{what} does not have one element per vertex")
        return self.cache[key]

    def indices(self, accessor: Any, mode: int, n: int, where: str) -> np.ndarray:
        if accessor is None:
            base = np.arange(n, dtype=np.uint32)
        else:
            what = f"{where} indices"
            if self.ctx.accessors.component_type(accessor, what) not in INDEX_TYPES:
                raise self.ctx.fail(f"{what} are not unsigned integers")
            key = ("indices", accessor)
            if key not in self.cache:
                raw = self.ctx.accessors.read(accessor, what)
                if raw.shape[1] != 1:
                    raise self.ctx.fail(f"{what} are not scalars")
                flat = raw.reshape(-1).astype(np.uint32, copy=False)
                self.cache[key] = (flat, int(flat.max()) if flat.size else -1)
            base, highest = self.cache[key]
            if highest >= n:
                raise self.ctx.fail(f"{what} include vertex {highest}; the primitive has {n}")
        triangles = triangles_from(base, mode)
        if len(triangles) % 3:
            self.ctx.warn(f"{where} has {len(triangles)} indices, not a multiple of 3",
                          "the incomplete last triangle is dropped")
            triangles = triangles[: len(triangles) // 3 * 3]
        return triangles

    def skin_attributes(self, attrs: dict, where: str, n: int
                        ) -> tuple[np.ndarray | None, np.ndarray | None]:
        sets = [(attrs.get(f"JOINTS_{k}"), attrs.get(f"WEIGHTS_{k}")) for k in (0, 1)]
        if sets[0][0] is None or sets[0][1] is None:
            if sets[0][0] is not None or sets[0][1] is not None:
                self.ctx.warn(f"{where} has joints without weights (or weights without joints)",
                              "drawn without skinning")
            return None, None
        sets = [s for s in sets if s[0] is not None and s[1] is not None]
        key = ("skin", *(int(a) if isinstance(a, int) else -1 for s in sets for a in s))
        if key not in self.cache:
            joints = [self._joints(j, f"{where} JOINTS_{k}", n) for k, (j, _) in enumerate(sets)]
            weights = [self.vec(w, 4, f"{where} WEIGHTS_{k}", n) for k, (_, w) in enumerate(sets)]
            self.cache[key] = normalize_influences(np.hstack(joints), np.hstack(weights))
        return self.cache[key]

    def _joints(self, accessor: Any, what: str, n: int) -> np.ndarray:
        raw = self.ctx.accessors.read(accessor, what)
        if raw.shape[1] != 4 or len(raw) != n:
            raise self.ctx.fail(f"{what} is not one VEC4 per vertex")
        if self.ctx.accessors.component_type(accessor, what) not in JOINT_TYPES:
            self.ctx.warn(f"{what} is not unsigned bytes or shorts", "converted")
            raw = np.clip(np.nan_to_num(np.rint(raw.astype(np.float64))), 0, 65535)
        return raw.astype(np.uint16)

    def targets(self, raw_targets: Any, where: str, n: int) -> list[MorphTarget]:
        items = as_list(raw_targets)
        if len(items) > self.ctx.limits.max_morph_targets:
            raise self.ctx.fail(f"{where} has {len(items)} morph targets; at most "
                                f"{self.ctx.limits.max_morph_targets} are allowed")
        targets = []
        for t, target in enumerate(items):
            attrs = attribute_map(target)
            what = f"{where} morph target {t}"
            if attrs.get("POSITION") is None:
                positions = self.cache.get(("zeros", n))
                if positions is None:
                    self.ctx.budget.take(n * 12, what)
                    positions = self.cache.setdefault(("zeros", n), np.zeros((n, 3), np.float32))
            else:
                positions = self.vec(attrs["POSITION"], 3, f"{what} POSITION", n)
            normals = self.optional_vec(attrs.get("NORMAL"), 3, f"{what} NORMAL", n)
            targets.append(MorphTarget(positions, normals))
        return targets


def normalize_influences(joints: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep the 4 largest influences, clamp weights at 0 and make rows sum to 1."""
    weights = np.nan_to_num(np.maximum(weights, 0.0), nan=0.0, posinf=0.0)
    if joints.shape[1] > 4:
        order = np.argsort(-weights, axis=1, kind="stable")[:, :4]
        joints = np.take_along_axis(joints, order, axis=1)
        weights = np.take_along_axis(weights, order, axis=1)
    total = weights.sum(axis=1, dtype=np.float64)
    empty = total <= 1e-8
    weights = (weights / np.where(empty, 1.0, total)[:, None]).astype(np.float32)
    if empty.any():
        joints = joints.copy()
        joints[empty] = 0
        weights[empty] = (1.0, 0.0, 0.0, 0.0)
    return np.ascontiguousarray(joints, np.uint16), weights


def _target_names(mesh: Any) -> list:
    names = as_list(as_dict(get(mesh, "extras")).get("targetNames"))
    if names:
        return names
    for primitive in as_list(get(mesh, "primitives")):
        names = as_list(as_dict(get(primitive, "extras")).get("targetNames"))
        if names:
            return names
    return []
