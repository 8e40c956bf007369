"""Assembles Hana: skeleton, parts, materials, textures, VRM extensions -> GLB bytes."""

from __future__ import annotations

import numpy as np

from . import body, face, hair, head, outfit, textures
from .gltf import FLOAT, USHORT, GlbBuilder
from .materials import DRAW_ORDER, LOOKS, MATERIAL_ORDER, material_json
from .meshkit import Part, Weights, keep_triangles
from .png import encode_png
from .skeleton import Skeleton, humanoid_skeleton
from .vrm import spring_json, vrm_json

MAX_BONES = 256
MESHES = ("Body", "Head", "Face", "Hair")
FIRST_PERSON = {
    "Body": "auto",
    "Head": "thirdPersonOnly",
    "Face": "thirdPersonOnly",
    "Hair": "thirdPersonOnly",
}
TEXTURES = {
    "face": textures.face_texture,
    "iris": textures.iris_texture,
    "eye_white": textures.eye_white_texture,
    "mouth": textures.mouth_texture,
    "hair": textures.hair_texture,
    "brow": textures.brow_texture,
    "lower_lash": textures.lower_lash_texture,
}
#: Textures sampled with clamped edges (sampler 1); the rest repeat (sampler 0).
CLAMPED = ("brow", "lower_lash")


def place_eyes(sk: Skeleton) -> None:
    """Eye bones sit 20 mm behind the iris centres (see vrm.py, look-at)."""
    for side, sign in (("left", 1.0), ("right", -1.0)):
        x, y = sign * face.IRIS_C[0], face.IRIS_C[1]
        z = float(head.face_z(np.array(x), np.array(y)))
        sk.positions[sk.bone(side + "Eye")] = np.array([x, y, z - 0.020])


SKULL_MARGIN = np.radians(30.0)  # how far above the hairline the skull may be left out


def make_parts(sk: Skeleton) -> tuple[list[Part], list[hair.Chain]]:
    w = Weights(MAX_BONES)
    hb = sk.bone("head")
    skull = head.head_part(w.rigid(1, hb)[0])
    # the crown lies deep under the hair cap, out of sight from any side
    hidden = hair.under_cap(skull.pos, SKULL_MARGIN)
    parts = [keep_triangles(skull, ~hidden[skull.tri].all(axis=1))]
    parts += face.eye_parts("left", w, hb, sk.bone("leftEye"))
    parts += face.eye_parts("right", w, hb, sk.bone("rightEye"))
    parts += face.mouth_parts(w, hb)
    parts += body.torso_parts(sk, w) + body.arm_parts(sk, w) + body.leg_parts(sk, w)
    skirt_joints = outfit.add_skirt_joints(sk)
    parts += outfit.skirt_parts(sk, w, skirt_joints) + outfit.sleeve_parts(sk, w)
    parts += outfit.collar_part(sk, w) + outfit.chest_bow(sk, w) + outfit.shoe_bows(sk, w)
    hair_parts, chains = hair.hair_parts(sk, w)
    chains += [
        hair.Chain(f"skirt_{k}", joints, "skirt", ["hips"]) for k, joints in enumerate(skirt_joints)
    ]
    return parts + hair_parts, chains


HEAD_SCALE = 1.10  # chibi-leaning: a bigger head on the same body
HEAD_DROP = 0.012  # metres: a slightly shorter neck
HEIGHT = 1.55  # metres, feet to the top of the hair (the ahoge not counted)


def _is_head_joint(name: str) -> bool:
    return name in ("head", "leftEye", "rightEye") or name.startswith("hair_")


def proportion(sk: Skeleton, parts: list[Part]):
    """Scale the head group (head, face, hair and their joints) about the head bone, then
    scale everything so she is HEIGHT tall. Both are similarities, so normals stay valid.
    Returns (head_xf, k): where an original head-space point ends up, and the global scale."""
    pivot = sk.pos("head").copy()
    drop = np.array([0.0, -HEAD_DROP, 0.0])

    def grow(p):
        return pivot + (np.asarray(p) - pivot) * HEAD_SCALE + drop

    for p in parts:
        if p.mesh in ("Head", "Face", "Hair"):
            p.pos = grow(p.pos)
            p.morphs = {n: v * HEAD_SCALE for n, v in p.morphs.items()}
    for i, name in enumerate(sk.names):
        if _is_head_joint(name):
            sk.positions[i] = grow(sk.positions[i])
    top = max(float(p.pos[:, 1].max()) for p in parts if p.name != "ahoge")
    k = HEIGHT / top
    for p in parts:
        p.pos = p.pos * k
        p.morphs = {n: v * k for n, v in p.morphs.items()}
    for i in range(len(sk.positions)):
        sk.positions[i] = sk.positions[i] * k

    def head_xf(p):
        return grow(p) * k

    return head_xf, k


def colliders(sk: Skeleton, head_xf, k: float) -> tuple[list[dict], dict[str, list[int]]]:
    """Collider shapes in their node's space (identity rotations: offsets are world deltas).
    Body shapes are given in the original (unscaled) body space and scaled by k."""

    def rel(bone: str, p) -> list[float]:
        return [round(float(v), 5) + 0.0 for v in np.asarray(p) - sk.pos(bone)]

    out: list[dict] = []
    groups: dict[str, list[int]] = {"head": [], "body": [], "arms": [], "hips": []}

    def add(group: str, bone: str, centre, radius: float, tail=None) -> None:
        r = round(float(radius), 5)
        shape = (
            {"sphere": {"offset": rel(bone, centre), "radius": r}}
            if tail is None
            else {"capsule": {"offset": rel(bone, centre), "radius": r, "tail": rel(bone, tail)}}
        )
        out.append({"node": sk.bone(bone) + 1, "shape": shape})
        groups[group].append(len(out) - 1)

    hs = HEAD_SCALE * k
    add("head", "head", head_xf(head.CENTRE + (0, 0.005, -0.005)), 0.108 * hs)
    add("head", "head", head_xf(head.CENTRE + (0, -0.07, 0.035)), 0.07 * hs)
    add("body", "neck", sk.pos("neck"), 0.035 * k, sk.pos("head"))
    add(
        "body",
        "upperChest",
        sk.pos("upperChest") + np.array([-0.035, 0.03, -0.005]) * k,
        0.075 * k,
        sk.pos("upperChest") + np.array([0.035, 0.03, -0.005]) * k,
    )
    add("body", "chest", sk.pos("chest"), 0.07 * k)
    for side in ("left", "right"):
        add(
            "arms",
            side + "UpperArm",
            sk.pos(side + "UpperArm"),
            0.05 * k,
            sk.pos(side + "LowerArm"),
        )
        add("arms", side + "LowerArm", sk.pos(side + "LowerArm"), 0.03 * k, sk.pos(side + "Hand"))
        add(
            "hips",
            side + "UpperLeg",
            sk.pos(side + "UpperLeg") + np.array([0, 0.02, 0]) * k,
            0.07 * k,
            sk.pos(side + "LowerLeg") + np.array([0, 0.1, 0]) * k,
        )
    add(
        "hips",
        "hips",
        sk.pos("hips") + np.array([-0.03, 0.0, -0.01]) * k,
        0.10 * k,
        sk.pos("hips") + np.array([0.04, 0.0, -0.01]) * k,
    )
    return out, groups


def _q(a: np.ndarray, step: float) -> np.ndarray:
    return (np.round(np.asarray(a, np.float64) / step) * step).astype(np.float32)


def _top4(weights: np.ndarray, bones: int) -> tuple[np.ndarray, np.ndarray]:
    w = weights[:, :bones]
    order = np.argsort(-w, axis=1, kind="stable")[:, :4]
    top = np.take_along_axis(w, order, axis=1)
    top = np.where(top > 1e-4, top, 0.0)
    top = top / top.sum(axis=1, keepdims=True)
    top = np.round(top * 10000.0) / 10000.0
    top[:, 0] += 1.0 - top.sum(axis=1)
    order = np.where(top > 0, order, 0)
    return order.astype(np.uint16), top.astype(np.float32)


def _normals(n: np.ndarray) -> np.ndarray:
    n = np.round(np.asarray(n, np.float64) * 1e4) / 1e4
    n = n / np.linalg.norm(n, axis=1, keepdims=True)
    return n.astype(np.float32)


def _primitive(
    g: GlbBuilder, parts: list[Part], material: int, bones: int, morphs: list[str]
) -> dict:
    pos = np.concatenate([p.pos for p in parts])
    nrm = np.concatenate([p.nrm for p in parts])
    uv = np.concatenate([p.uv for p in parts])
    wts = np.concatenate([p.weights for p in parts])
    offs = np.cumsum([0] + [len(p.pos) for p in parts])
    tri = np.concatenate([p.tri + o for p, o in zip(parts, offs[:-1], strict=True)])
    joints, weights = _top4(wts, bones)
    prim: dict = {
        "attributes": {
            "POSITION": g.accessor(_q(pos, 1e-5), FLOAT, minmax=True),
            "NORMAL": g.accessor(_normals(nrm), FLOAT),
            "TEXCOORD_0": g.accessor(_q(uv, 1e-5), FLOAT),
            "JOINTS_0": g.accessor(joints, USHORT),
            "WEIGHTS_0": g.accessor(weights, FLOAT),
        },
        "indices": g.indices(tri, len(pos)),
        "material": material,
        "mode": 4,
    }
    if morphs:
        targets = []
        for name in morphs:
            d = np.concatenate([p.morphs.get(name, np.zeros_like(p.pos)) for p in parts])
            targets.append({"POSITION": g.accessor(_q(d, 1e-5), FLOAT, minmax=True)})
        prim["targets"] = targets
    return prim


def build_document(
    sk: Skeleton,
    parts: list[Part],
    chains: list[hair.Chain],
    coll: list[dict],
    groups: dict[str, list[int]],
) -> tuple[GlbBuilder, dict]:
    g = GlbBuilder()
    bones = len(sk)
    # images and textures
    images, tex_index = [], {}
    for i, (key, draw) in enumerate(TEXTURES.items()):
        images.append(
            {"name": key, "mimeType": "image/png", "bufferView": g.view(encode_png(draw()))}
        )
        tex_index[key] = i
    textures_json = [
        {"sampler": int(key in CLAMPED), "source": i} for i, key in enumerate(TEXTURES)
    ]
    samplers = [
        {"magFilter": 9729, "minFilter": 9987, "wrapS": 10497, "wrapT": 10497},
        {"magFilter": 9729, "minFilter": 9987, "wrapS": 33071, "wrapT": 33071},
    ]
    materials = [material_json(look, tex_index) for look in LOOKS]
    # nodes: 0 = Root, 1..bones = joints, then one node per mesh
    nodes: list[dict] = [
        {"name": "Root", "children": [1 + i for i, p in enumerate(sk.parents) if p is None]}
    ]
    for i, name in enumerate(sk.names):
        parent = sk.parents[i]
        t = sk.positions[i] - (sk.positions[parent] if parent is not None else 0.0)
        node: dict = {"name": name, "translation": [round(float(v), 6) + 0.0 for v in t]}
        kids = [1 + k for k, p in enumerate(sk.parents) if p == i]
        if kids:
            node["children"] = kids
        nodes.append(node)
    meshes, mesh_nodes, target_names = [], {}, face.EXPRESSIONS
    for mesh_name in MESHES:
        group = [p for p in parts if p.mesh == mesh_name]
        morphs = list(target_names) if mesh_name == "Face" else []
        prims = []
        for mat in DRAW_ORDER:
            sel = [p for p in group if p.material == mat]
            if sel:
                prims.append(_primitive(g, sel, MATERIAL_ORDER.index(mat), bones, morphs))
        mesh: dict = {"name": mesh_name, "primitives": prims}
        if morphs:
            mesh["weights"] = [0.0] * len(morphs)
            mesh["extras"] = {"targetNames": morphs}
        meshes.append(mesh)
        nodes.append({"name": mesh_name, "mesh": len(meshes) - 1, "skin": 0})
        mesh_nodes[mesh_name] = len(nodes) - 1
    # skin
    ibm = np.zeros((bones, 4, 4), np.float32)
    ibm[:] = np.eye(4, dtype=np.float32)
    for i, p in enumerate(sk.positions):
        ibm[i, :3, 3] = -_q(p, 1e-6)
    ibm_acc = g.accessor(np.transpose(ibm, (0, 2, 1)).reshape(bones, 16), FLOAT, target=None)
    skin = {
        "name": "Hana",
        "inverseBindMatrices": ibm_acc,
        "joints": [1 + i for i in range(bones)],
        "skeleton": 0,
    }
    look_offset = sk.pos("leftEye") * (0, 1, 1) + (0, 0, 0.020) - sk.pos("head")
    doc = {
        "asset": {"version": "2.0", "generator": "companion-desktop tools/make_default_avatar.py"},
        "extensionsUsed": [
            "KHR_materials_unlit",
            "VRMC_materials_mtoon",
            "VRMC_springBone",
            "VRMC_vrm",
        ],
        "scene": 0,
        "scenes": [{"name": "Hana", "nodes": [0] + [mesh_nodes[m] for m in MESHES]}],
        "nodes": nodes,
        "meshes": meshes,
        "skins": [skin],
        "materials": materials,
        "textures": textures_json,
        "images": images,
        "samplers": samplers,
        "extensions": {
            "VRMC_vrm": vrm_json(
                {h: i + 1 for h, i in sk.humanoid.items()},
                mesh_nodes["Face"],
                list(target_names),
                [(mesh_nodes[m], FIRST_PERSON[m]) for m in MESHES],
                look_offset,
            ),
            "VRMC_springBone": spring_json(chains, coll, groups, lambda j: j + 1),
        },
    }
    return g, doc


def build() -> tuple[bytes, dict]:
    """The VRM bytes and a summary (counts) for reports and tests."""
    sk = humanoid_skeleton()
    place_eyes(sk)
    parts, chains = make_parts(sk)
    head_xf, k = proportion(sk, parts)
    coll, groups = colliders(sk, head_xf, k)
    g, doc = build_document(sk, parts, chains, coll, groups)
    data = g.to_glb(doc)
    summary = {
        "bones": len(sk),
        "humanoid_bones": len(sk.humanoid),
        "triangles": int(sum(len(p.tri) for p in parts)),
        "vertices": int(sum(len(p.pos) for p in parts)),
        "springs": len(chains),
        "bytes": len(data),
    }
    return data, summary
