"""The node hierarchy (rest TRS per node) and skins.

A node's ``matrix`` (column-major in glTF) is decomposed into translation, rotation and
scale (a mirroring matrix gets a negative x scale). Every child has exactly one parent and
the hierarchy has no cycles (else a load error). Skins get (joints, 4, 4) row-major
inverse bind matrices, identity when the file has none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .fields import as_int, as_list, as_str, as_vec, get, index_or_none, require_index
from .load_context import LoadContext
from .model import Node, Skin

IDENTITY = (1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0)


def quaternion_from_matrix(m: np.ndarray) -> np.ndarray:
    """Unit quaternion (x, y, z, w) of a 3x3 rotation matrix (column vectors)."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(trace + 1.0)
        q = [(m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(max(1.0 + m[0, 0] - m[1, 1] - m[2, 2], 1e-12))
        q = [s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(max(1.0 + m[1, 1] - m[0, 0] - m[2, 2], 1e-12))
        q = [(m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s]
    else:
        s = 2.0 * np.sqrt(max(1.0 + m[2, 2] - m[0, 0] - m[1, 1], 1e-12))
        q = [(m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s]
    quat = np.array(q, np.float64)
    norm = np.linalg.norm(quat)
    return (quat / norm if norm > 0 else np.array([0, 0, 0, 1.0])).astype(np.float32)


def decompose(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Translation, rotation (x, y, z, w) and scale of a 4x4 row-major affine matrix."""
    m = np.asarray(matrix, np.float64)
    basis = m[:3, :3].copy()
    scale = np.linalg.norm(basis, axis=0)
    if np.linalg.det(basis) < 0:
        scale[0] = -scale[0]
    safe = np.where(np.abs(scale) > 1e-12, scale, 1.0)
    rotation = basis / safe[None, :]
    if np.any(np.abs(scale) <= 1e-12):
        rotation = np.eye(3)
    return m[:3, 3].astype(np.float32), quaternion_from_matrix(rotation), scale.astype(np.float32)


def _node(ctx: LoadContext, i: int, raw: Any) -> Node:
    node = Node(name=as_str(get(raw, "name"), f"node{i}"))
    matrix = get(raw, "matrix")
    if matrix is not None and tuple(as_vec(matrix, 16, IDENTITY)) != IDENTITY:
        columns = as_vec(matrix, 16, IDENTITY).astype(np.float64).reshape(4, 4).T
        node.translation, node.rotation, node.scale = decompose(columns)
    else:
        node.translation = as_vec(get(raw, "translation"), 3, (0, 0, 0))
        rotation = as_vec(get(raw, "rotation"), 4, (0, 0, 0, 1)).astype(np.float64)
        norm = np.linalg.norm(rotation)
        node.rotation = (rotation / norm if norm > 1e-12 else np.array([0, 0, 0, 1.0])).astype(
            np.float32
        )
        node.scale = as_vec(get(raw, "scale"), 3, (1, 1, 1))
    meshes, skins = len(ctx.doc.gltf.meshes or []), len(ctx.doc.gltf.skins or [])
    for key, count in (("mesh", meshes), ("skin", skins)):
        value = get(raw, key)
        index = index_or_none(value, count)
        if value is not None and index is None:
            ctx.warn(f"node {i} uses {key} {value!r}, which does not exist",
                     f"the {key} is ignored")
        setattr(node, key, index)
    return node


def read_nodes(ctx: LoadContext) -> tuple[list[Node], list[int]]:
    """Nodes with parents/children filled in, and the scene's root nodes."""
    raw_nodes = list(ctx.doc.gltf.nodes or [])
    nodes = [_node(ctx, i, raw) for i, raw in enumerate(raw_nodes)]
    for i, raw in enumerate(raw_nodes):
        for child in as_list(get(raw, "children")):
            c = require_index(child, len(nodes), f"a child of node {i}", ctx.source)
            if c == i or nodes[c].parent is not None:
                raise ctx.fail(f"node {c} has more than one parent (or is its own child)")
            nodes[c].parent = i
            nodes[i].children.append(c)
    _check_acyclic(ctx, nodes)
    return nodes, _scene_roots(ctx, nodes)


def _check_acyclic(ctx: LoadContext, nodes: list[Node]) -> None:
    state = [0] * len(nodes)  # 0 unknown, 1 on the current path, 2 reaches a root
    for start in range(len(nodes)):
        path = []
        i: int | None = start
        while i is not None and state[i] == 0:
            state[i] = 1
            path.append(i)
            i = nodes[i].parent
        if i is not None and state[i] == 1:
            raise ctx.fail(f"the node hierarchy has a cycle through node {i}")
        for j in path:
            state[j] = 2


def _scene_roots(ctx: LoadContext, nodes: list[Node]) -> list[int]:
    scenes = list(ctx.doc.gltf.scenes or [])
    parentless = [i for i, node in enumerate(nodes) if node.parent is None]
    if not scenes:
        return parentless
    scene = scenes[index_or_none(get(ctx.doc.gltf, "scene", 0), len(scenes)) or 0]
    roots = []
    for value in as_list(get(scene, "nodes")):
        index = index_or_none(value, len(nodes))
        if index is None or nodes[index].parent is not None or index in roots:
            ctx.warn(f"the scene lists node {value!r}, which cannot be a root", "it is ignored")
            continue
        roots.append(index)
    return roots or parentless


def read_skins(ctx: LoadContext, node_count: int) -> list[Skin]:
    skins = []
    for s, raw in enumerate(ctx.doc.gltf.skins or []):
        joints_raw = as_list(get(raw, "joints"))
        if len(joints_raw) > ctx.limits.max_joints:
            raise ctx.fail(f"skin {s} has {len(joints_raw)} joints; at most "
                           f"{ctx.limits.max_joints} are allowed")
        joints = [require_index(j, node_count, f"a joint of skin {s}", ctx.source)
                  for j in joints_raw]
        accessor = get(raw, "inverseBindMatrices")
        inverse = np.tile(np.eye(4, dtype=np.float32), (len(joints), 1, 1))
        if accessor is not None and joints:
            matrices = ctx.accessors.read(accessor, f"skin {s} inverseBindMatrices")
            if matrices.shape[1] != 16 or len(matrices) < len(joints):
                raise ctx.fail(f"skin {s} inverseBindMatrices are not one MAT4 per joint")
            inverse = matrices[: len(joints)].astype(np.float32).reshape(-1, 4, 4)
            inverse = np.ascontiguousarray(inverse.transpose(0, 2, 1))
        skeleton = index_or_none(get(raw, "skeleton"), node_count)
        skins.append(Skin(joints, inverse, skeleton))
    return skins


def as_node_index(value: Any, count: int) -> int | None:
    """A node reference, or None (VRM 0.x writes -1 for 'none')."""
    return index_or_none(as_int(value, -1), count)
