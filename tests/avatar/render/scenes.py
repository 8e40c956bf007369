"""Hand-built VrmModels for renderer tests (numpy only): quads, boxes, spheres, a skinned
two-bone strip, a morphing plane and a small MToon humanoid doll."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from companion_desktop.avatar.vrm.frame import Frame, joint_matrices, rest_locals, world_matrices
from companion_desktop.avatar.vrm.model import (
    Material,
    Mesh,
    MorphTarget,
    MToon,
    Node,
    Primitive,
    Sampler,
    Skin,
    Texture,
    TextureRef,
    VrmModel,
)  # fmt: skip

F32 = np.float32
SHOTS = Path(__file__).resolve().parents[3] / "shots"


def prim(positions, normals, indices, uv=None, material=None, **extra) -> Primitive:
    return Primitive(
        positions=np.asarray(positions, F32), normals=np.asarray(normals, F32),
        indices=np.asarray(indices, np.uint32), uv0=None if uv is None else np.asarray(uv, F32),
        material=material, **extra,
    )  # fmt: skip


def quad(size=1.0, z=0.0, facing=1.0, material=0, center=(0.0, 0.0)) -> Primitive:
    """A square in the XY plane at ``z``, facing +Z (``facing`` 1) or -Z (-1)."""
    h, (cx, cy) = size / 2, center
    pos = [[cx - h, cy - h, z], [cx + h, cy - h, z], [cx + h, cy + h, z], [cx - h, cy + h, z]]
    idx = [0, 1, 2, 0, 2, 3] if facing > 0 else [0, 2, 1, 0, 3, 2]
    uv = [[0, 1], [1, 1], [1, 0], [0, 0]]
    return prim(pos, [[0, 0, facing]] * 4, idx, uv, material)


def box(size=(1, 1, 1), center=(0, 0, 0), material=0) -> Primitive:
    """An axis-aligned box, 24 vertices with flat normals, outward CCW faces."""
    half, c = np.asarray(size, F32) / 2, np.asarray(center, F32)
    positions, normals, uvs, indices = [], [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = np.zeros(3, F32)
            n[axis] = sign
            u = np.zeros(3, F32)
            u[(axis + 1) % 3] = 1.0
            v = np.cross(n, u)
            base = len(positions)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                positions.append(c + half * (n + du * u + dv * v))
                normals.append(n)
                uvs.append(((du + 1) / 2, (1 - dv) / 2))
            indices += [base, base + 1, base + 2, base, base + 2, base + 3]
    return prim(positions, normals, indices, uvs, material)


def sphere(radius=0.5, center=(0, 0, 0), segments=24, rings=16, scale=(1, 1, 1),
           material=0) -> Primitive:
    """A UV sphere, (segments + 1) * (rings + 1) vertices."""
    theta = np.linspace(0, math.pi, rings + 1)
    phi = np.linspace(0, 2 * math.pi, segments + 1)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    n = np.stack([np.sin(t) * np.sin(p), np.cos(t), np.sin(t) * np.cos(p)], -1).reshape(-1, 3)
    pos = n * radius * np.asarray(scale, F32) + np.asarray(center, F32)
    normals = n / np.asarray(scale, F32)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    uv = np.stack([p / (2 * math.pi), t / math.pi], -1).reshape(-1, 2)
    idx = []
    for r in range(rings):
        for s in range(segments):
            a, b = r * (segments + 1) + s, (r + 1) * (segments + 1) + s
            idx += [a, b, a + 1, a + 1, b, b + 1]
    return prim(pos, normals, idx, uv, material)


def single_mesh(primitives, materials=None, textures=None, **fields) -> VrmModel:
    node = Node("mesh", mesh=0)
    return VrmModel(
        version=fields.pop("version", "gltf"), nodes=[node], scene_roots=[0],
        meshes=[Mesh("mesh", list(primitives))], materials=list(materials or [Material()]),
        textures=list(textures or []), **fields,
    )  # fmt: skip


def checker(size=64, cells=8, a=(255, 255, 255, 255), b=(40, 40, 40, 255)) -> Texture:
    yy, xx = np.mgrid[0:size, 0:size]
    odd = ((yy * cells // size) + (xx * cells // size)) % 2 == 1
    pixels = np.where(odd[..., None], np.array(b, np.uint8), np.array(a, np.uint8))
    return Texture("checker", pixels.astype(np.uint8), Sampler())


# -- skinning -----------------------------------------------------------------------------
def two_bone_strip(segments=20, length=2.0, width=0.2) -> VrmModel:
    """A vertical strip from y=0 to ``length`` skinned to two bones (split at half)."""
    ys = np.linspace(0, length, segments + 1)
    pos = np.array([[x, y, 0] for y in ys for x in (-width / 2, width / 2)], F32)
    idx = []
    for i in range(segments):
        a = 2 * i
        idx += [a, a + 1, a + 3, a, a + 3, a + 2]
    t = np.clip((pos[:, 1] - (length / 2 - 0.2)) / 0.4, 0, 1)  # blend around the joint
    weights = np.stack([1 - t, t, 0 * t, 0 * t], 1).astype(F32)
    joints = np.tile(np.array([0, 1, 0, 0], np.uint16), (len(pos), 1))
    primitive = prim(pos, [[0, 0, 1]] * len(pos), idx, material=0, joints=joints, weights=weights)
    nodes = [
        Node("mesh", mesh=0, skin=0),
        Node("root", children=[2]),
        Node("bend", parent=1, translation=np.array([0, length / 2, 0], F32)),
    ]
    inverse_bind = np.stack([np.eye(4, dtype=F32), np.eye(4, dtype=F32)])
    inverse_bind[1, 1, 3] = -length / 2
    return VrmModel(
        version="gltf", nodes=nodes, scene_roots=[0, 1], meshes=[Mesh("strip", [primitive])],
        skins=[Skin(joints=[1, 2], inverse_bind=inverse_bind)],
        materials=[Material(base_color=np.array([0.8, 0.3, 0.2, 1], F32), double_sided=True)],
    )  # fmt: skip


def posed(model: VrmModel, rotations: dict[int, np.ndarray], time=0.0) -> Frame:
    """A frame with some nodes' local rotations replaced (quaternions x, y, z, w)."""
    from companion_desktop.avatar.vrm.frame import trs_matrix

    locals_ = rest_locals(model)
    for index, quat in rotations.items():
        node = model.nodes[index]
        locals_[index] = trs_matrix(node.translation, quat, node.scale)
    world = world_matrices(model, locals_)
    weights = [np.zeros(len(m.primitives[0].targets) if m.primitives else 0, F32)
               for m in model.meshes]
    return Frame(world, joint_matrices(model, world), weights, time=time)


def quat_z(angle: float) -> np.ndarray:
    return np.array([0, 0, math.sin(angle / 2), math.cos(angle / 2)], F32)


# -- morphs -------------------------------------------------------------------------------
def morph_plane(n=10) -> VrmModel:
    """A unit plane; target 0 pushes the right half's top rows out to +X by 0.4."""
    g = np.linspace(-0.5, 0.5, n + 1)
    pos = np.array([[x, y, 0] for y in g for x in g], F32)
    idx = []
    for r in range(n):
        for c in range(n):
            a = r * (n + 1) + c
            idx += [a, a + 1, a + n + 2, a, a + n + 2, a + n + 1]
    delta = np.zeros_like(pos)
    delta[:, 0] = np.where((pos[:, 0] > 0.45) & (pos[:, 1] > 0.0), 0.4, 0.0)
    primitive = prim(pos, [[0, 0, 1]] * len(pos), idx, material=0,
                     targets=[MorphTarget(np.zeros_like(pos)), MorphTarget(delta)])
    model = single_mesh([primitive], [Material(base_color=np.array([0.2, 0.6, 0.9, 1], F32))])
    model.meshes[0].target_names = ["nothing", "stretch"]
    return model


# -- a humanoid doll ------------------------------------------------------------------------
def mtoon_material(name, color, shade, outline=0.0, mode="worldCoordinates", **kw) -> Material:
    mtoon = MToon(shade_color=np.asarray(shade, F32), shading_toony=0.9, shading_shift=-0.05,
                  parametric_rim_color=np.array([0.25, 0.2, 0.3], F32),
                  parametric_rim_fresnel_power=4.0, parametric_rim_lift=0.05,
                  outline_width_mode=mode if outline > 0 else "none", outline_width=outline,
                  outline_color=np.array([0.12, 0.08, 0.1], F32), outline_lighting_mix=0.5)
    return Material(name, base_color=np.append(np.asarray(color, F32), 1.0).astype(F32),
                    mtoon=mtoon, **kw)


def doll(outline=0.004, mode="worldCoordinates", facing_minus_z=False) -> VrmModel:
    """A 1.6 m humanoid of rigid parts (like debug_robot) with MToon materials; facing +Z
    (or -Z with ``root_rotation_y`` = pi, as a VRM 0.x file is loaded)."""
    z = -1.0 if facing_minus_z else 1.0
    skin, hair, cloth, dark = 0, 1, 2, 3
    materials = [
        mtoon_material("skin", (1.0, 0.8, 0.68), (0.9, 0.56, 0.5), outline, mode),
        mtoon_material("hair", (0.45, 0.3, 0.75), (0.22, 0.13, 0.42), outline, mode),
        mtoon_material("cloth", (0.95, 0.95, 0.97), (0.55, 0.6, 0.78), outline, mode,
                       base_color_texture=TextureRef(0, scale=(4.0, 4.0))),
        mtoon_material("eyes", (0.1, 0.08, 0.15), (0.05, 0.04, 0.08)),
    ]
    arm, leg, ellipsoid = (0.26, 0.07, 0.07), (0.11, 0.8, 0.11), (1.05, 0.9, 0.7)
    parts = {  # name: (parent, translation, primitives)
        "hips": (None, (0, 0.9, 0), [box((0.3, 0.18, 0.18), (0, 0, 0), cloth)]),
        "spine": ("hips", (0, 0.12, 0), [box((0.26, 0.2, 0.16), (0, 0.1, 0), cloth)]),
        "chest": ("spine", (0, 0.2, 0), [sphere(0.15, (0, 0.06, 0), 20, 12, ellipsoid, cloth)]),
        "neck": ("chest", (0, 0.18, 0), [box((0.07, 0.1, 0.07), (0, 0.03, 0), skin)]),
        "head": ("neck", (0, 0.08, 0), [
            sphere(0.11, (0, 0.1, 0), 32, 20, (0.9, 1.0, 0.95), skin),
            sphere(0.122, (0, 0.13, -0.012 * z), 32, 20, (0.95, 0.9, 0.95), hair),
            box((0.03, 0.035, 0.02), (0.04, 0.1, 0.095 * z), dark),
            box((0.03, 0.035, 0.02), (-0.04, 0.1, 0.095 * z), dark),
        ]),
        "leftUpperArm": ("chest", (0.19 * z, 0.12, 0), [box(arm, (0.13 * z, 0, 0), skin)]),
        "rightUpperArm": ("chest", (-0.19 * z, 0.12, 0), [box(arm, (-0.13 * z, 0, 0), skin)]),
        "leftUpperLeg": ("hips", (0.09 * z, -0.08, 0), [box(leg, (0, -0.4, 0), skin)]),
        "rightUpperLeg": ("hips", (-0.09 * z, -0.08, 0), [box(leg, (0, -0.4, 0), skin)]),
    }  # fmt: skip
    names = list(parts)
    nodes, meshes = [], []
    for name in names:
        parent, translation, primitives = parts[name]
        nodes.append(Node(name, parent=None if parent is None else names.index(parent),
                          translation=np.asarray(translation, F32), mesh=len(meshes)))
        meshes.append(Mesh(name, primitives))
    for index, node in enumerate(nodes):
        if node.parent is not None:
            nodes[node.parent].children.append(index)
    return VrmModel(
        version="0.x" if facing_minus_z else "1.0", nodes=nodes, scene_roots=[0], meshes=meshes,
        materials=materials, textures=[checker(64, 8, b=(170, 180, 235, 255))],
        humanoid={name: i for i, name in enumerate(names)},
        root_rotation_y=math.pi if facing_minus_z else 0.0,
    )  # fmt: skip


def scaled(model: VrmModel, factor: float) -> VrmModel:
    """The same model uniformly scaled (its root node's scale)."""
    import copy

    out = copy.deepcopy(model)
    for root in out.scene_roots:
        out.nodes[root].scale = out.nodes[root].scale * F32(factor)
        out.nodes[root].translation = out.nodes[root].translation * F32(factor)
    return out


def alpha_bbox(rgba: np.ndarray, threshold: int = 8):
    """(x0, y0, x1, y1) of pixels with alpha > threshold (x1, y1 exclusive), or None."""
    ys, xs = np.nonzero(rgba[..., 3] > threshold)
    if not len(xs):
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1
