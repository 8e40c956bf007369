"""A posed frame of a model: everything the renderer needs to draw one picture.

The runtime (``avatar.vrm.runtime``) produces a ``Frame`` per update; ``rest_frame``
gives the bind pose. Numpy only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .model import VrmModel


def trs_matrix(t: np.ndarray, r: np.ndarray, s: np.ndarray) -> np.ndarray:
    """4x4 from translation (3,), quaternion (x, y, z, w) and scale (3,)."""
    x, y, z, w = (float(v) for v in r)
    n = x * x + y * y + z * z + w * w
    if n < 1e-12:
        x, y, z, w = 0.0, 0.0, 0.0, 1.0
    else:
        k = 1.0 / np.sqrt(n)
        x, y, z, w = x * k, y * k, z * k, w * k
    m = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 0.0],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 0.0],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y), 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
        dtype=np.float32,
    )
    m[:3, :3] *= np.asarray(s, np.float32)[None, :]
    m[:3, 3] = t
    return m


def rotation_y(angle: float) -> np.ndarray:
    c, s = float(np.cos(angle)), float(np.sin(angle))
    return np.array([[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]], np.float32)


def node_order(model: VrmModel) -> list[int]:
    """Node indices with every parent before its children."""
    order: list[int] = []
    stack = list(reversed(model.scene_roots))
    seen: set[int] = set()
    while stack:
        index = stack.pop()
        if index in seen:
            continue
        seen.add(index)
        order.append(index)
        stack.extend(reversed(model.nodes[index].children))
    order.extend(i for i in range(len(model.nodes)) if i not in seen)
    return order


def world_matrices(model: VrmModel, locals_: np.ndarray) -> np.ndarray:
    """World matrices (nodes, 4, 4) from local ones, with the model's root rotation on top."""
    root = rotation_y(model.root_rotation_y)
    world = np.empty_like(locals_)
    for index in node_order(model):
        parent = model.nodes[index].parent
        world[index] = (root if parent is None else world[parent]) @ locals_[index]
    return world


def rest_locals(model: VrmModel) -> np.ndarray:
    """Local matrices (nodes, 4, 4) of the rest pose."""
    if not model.nodes:
        return np.zeros((0, 4, 4), np.float32)
    return np.stack([trs_matrix(n.translation, n.rotation, n.scale) for n in model.nodes])


@dataclass
class Frame:
    """One posed picture. ``time`` (seconds) drives MToon UV animation."""

    world: np.ndarray  # (nodes, 4, 4) float32
    joint_matrices: list[np.ndarray]  # per skin: (joints, 4, 4) = world[joint] @ inverse_bind
    morph_weights: list[np.ndarray]  # per mesh: (targets,) float32 in 0..1
    material_colors: dict[tuple[int, str], np.ndarray] = field(default_factory=dict)
    texture_transforms: dict[int, tuple[tuple[float, float], tuple[float, float]]] = field(
        default_factory=dict
    )  # material -> (scale, offset)
    time: float = 0.0


def joint_matrices(model: VrmModel, world: np.ndarray) -> list[np.ndarray]:
    return [
        np.einsum(
            "jab,jbc->jac", world[np.asarray(skin.joints, int)], skin.inverse_bind
        ).astype(np.float32)
        if skin.joints
        else np.zeros((0, 4, 4), np.float32)
        for skin in model.skins
    ]


def rest_frame(model: VrmModel, time: float = 0.0) -> Frame:
    """The bind pose with each mesh's default morph weights."""
    world = world_matrices(model, rest_locals(model))
    weights = [
        np.resize(mesh.default_weights.astype(np.float32), len(mesh.target_names) or
                  (len(mesh.primitives[0].targets) if mesh.primitives else 0))
        for mesh in model.meshes
    ]
    return Frame(world, joint_matrices(model, world), weights, time=time)
