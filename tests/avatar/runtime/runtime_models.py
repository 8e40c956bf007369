"""Hand-built models for the avatar runtime tests (no loader, no files).

``humanoid(...)`` builds a small VRM-like humanoid: joint world positions are fixed, and the
rest world *rotations* can be scrambled per bone (``twist``) to test the normalized
humanoid; spring chains, colliders, a face mesh with morph targets and expressions can be
added.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.model import (
    Collider,
    ColliderGroup,
    Expression,
    LookAt,
    Mesh,
    MorphBind,
    MorphTarget,
    Node,
    Primitive,
    Skin,
    SpringChain,
    SpringJoint,
    VrmModel,
)

ASSETS = Path(__file__).resolve().parents[4] / "shared" / "assets"
GODETTE = ASSETS / "vrm0" / "Godette_vrm_v4.vrm"

#: bone -> (parent, world position) of the rest T-pose (metres, facing +Z, left is +X).
BONES: dict[str, tuple[str | None, tuple[float, float, float]]] = {
    "hips": (None, (0.0, 0.9, 0.0)),
    "spine": ("hips", (0.0, 1.0, 0.0)),
    "chest": ("spine", (0.0, 1.15, 0.0)),
    "upperChest": ("chest", (0.0, 1.3, 0.0)),
    "neck": ("upperChest", (0.0, 1.42, 0.0)),
    "head": ("neck", (0.0, 1.5, 0.0)),
    "leftEye": ("head", (0.03, 1.58, 0.08)),
    "rightEye": ("head", (-0.03, 1.58, 0.08)),
    "leftShoulder": ("upperChest", (0.05, 1.38, 0.0)),
    "leftUpperArm": ("leftShoulder", (0.15, 1.38, 0.0)),
    "leftLowerArm": ("leftUpperArm", (0.42, 1.38, 0.0)),
    "leftHand": ("leftLowerArm", (0.66, 1.38, 0.0)),
    "rightShoulder": ("upperChest", (-0.05, 1.38, 0.0)),
    "rightUpperArm": ("rightShoulder", (-0.15, 1.38, 0.0)),
    "rightLowerArm": ("rightUpperArm", (-0.42, 1.38, 0.0)),
    "rightHand": ("rightLowerArm", (-0.66, 1.38, 0.0)),
    "leftUpperLeg": ("hips", (0.09, 0.85, 0.0)),
    "leftLowerLeg": ("leftUpperLeg", (0.09, 0.47, 0.0)),
    "leftFoot": ("leftLowerLeg", (0.09, 0.08, 0.0)),
    "rightUpperLeg": ("hips", (-0.09, 0.85, 0.0)),
    "rightLowerLeg": ("rightUpperLeg", (-0.09, 0.47, 0.0)),
    "rightFoot": ("rightLowerLeg", (-0.09, 0.08, 0.0)),
}
FINGERS = ("Thumb", "Index", "Middle", "Ring", "Little")


def _matrix(position, rotation) -> np.ndarray:
    m = np.eye(4)
    m[:3, :3] = quat.to_matrix(rotation)
    m[:3, 3] = position
    return m


class Builder:
    """Adds nodes by world position and world rotation; locals are derived.

    ``flip`` builds a VRM 0.x-style file: positions turned half a turn about Y (facing -Z),
    to be turned back by ``root_rotation_y = pi``.
    """

    def __init__(self, flip: bool = False) -> None:
        self.nodes: list[Node] = []
        self.world: list[np.ndarray] = []
        self.flip = flip

    def add(self, name: str, parent: int | None, position, rotation=quat.IDENTITY) -> int:
        position = np.asarray(position, float)
        if self.flip:
            position = position * (-1.0, 1.0, -1.0)
        world = _matrix(position, np.asarray(rotation, float))
        parent_world = np.eye(4) if parent is None else self.world[parent]
        local = np.linalg.inv(parent_world) @ world
        node = Node(name, parent, translation=local[:3, 3].astype(np.float32),
                    rotation=quat.from_matrix(local[:3, :3]).astype(np.float32))
        self.nodes.append(node)
        self.world.append(world)
        index = len(self.nodes) - 1
        if parent is not None:
            self.nodes[parent].children.append(index)
        return index


def humanoid(*, twist: int | None = None, fingers: bool = False, hair: int = 0,
             hair_joints: int = 4, colliders: bool = False, face: bool = False,
             look_type: str = "bone", vrm0: bool = False, gravity: float = 0.0,
             stiffness: float = 1.0, drag: float = 0.4) -> VrmModel:
    """A humanoid; ``twist`` seeds random rest world rotations (None = axis-aligned).

    ``vrm0`` stores it facing -Z with ``root_rotation_y = pi`` (as the loader converts 0.x).
    """
    rng = np.random.default_rng(twist) if twist is not None else None

    def rot():
        if rng is None:
            return quat.IDENTITY
        return quat.normalize(rng.normal(size=4))

    b = Builder(flip=vrm0)
    root = b.add("Armature", None, (0, 0, 0))
    humanoid_map: dict[str, int] = {}
    for bone, (parent, position) in BONES.items():
        humanoid_map[bone] = b.add(bone, root if parent is None else humanoid_map[parent],
                                   position, rot())
    if fingers:
        for side, sign in (("left", 1.0), ("right", -1.0)):
            hand = humanoid_map[f"{side}Hand"]
            for f, finger in enumerate(FINGERS):
                joints = ("Metacarpal", "Proximal", "Distal") if finger == "Thumb" else \
                    ("Proximal", "Intermediate", "Distal")
                parent = hand
                for k, joint in enumerate(joints):
                    pos = (sign * (0.70 + 0.025 * k), 1.38, 0.04 - 0.02 * f)
                    parent = b.add(f"{side}{finger}{joint}", parent, pos, rot())
                    humanoid_map[f"{side}{finger}{joint}"] = parent
    springs, chains_nodes = [], []
    head = humanoid_map["head"]
    for h in range(hair):
        x = -0.06 + 0.06 * h
        parent, nodes = head, []
        for k in range(hair_joints):
            parent = b.add(f"hair{h}_{k}", parent, (x, 1.62 - 0.06 * k, -0.14 - 0.005 * k), rot())
            nodes.append(parent)
        chains_nodes.append(nodes)
        springs.append(SpringChain(f"hair{h}", [
            SpringJoint(n, hit_radius=0.02, stiffness=stiffness, gravity_power=gravity,
                        drag_force=drag) for n in nodes]))
    model = VrmModel("1.0", b.nodes, [root], humanoid=humanoid_map, springs=springs,
                     root_rotation_y=math.pi if vrm0 else 0.0)
    model.look_at = LookAt(type=look_type)
    if colliders:
        model.colliders = [Collider(head, "sphere", np.array([0, 0.08, 0], np.float32), 0.1),
                           Collider(humanoid_map["upperChest"], "capsule",
                                    np.array([0, 0, -0.05], np.float32), 0.08,
                                    tail=np.array([0, 0.1, -0.05], np.float32))]
        model.collider_groups = [ColliderGroup("head", [0, 1])]
        for chain in springs:
            chain.collider_groups = [0]
    joints = list(range(len(b.nodes)))
    ibm = np.stack([np.linalg.inv(w) for w in b.world]).astype(np.float32)
    model.skins = [Skin(joints[1:], ibm[1:])]
    if face:
        add_face(model)
    return model


def add_face(model: VrmModel) -> None:
    """A face mesh with 8 targets and expressions happy/sad/relaxed/surprised/blink/aa/..."""
    names = ["smile", "frown", "calm", "wide", "blink", "mouth_a", "look_l", "look_r"]
    n = 4
    positions = np.zeros((n, 3), np.float32)
    targets = [MorphTarget(np.full((n, 3), 0.01 * (i + 1), np.float32)) for i in range(len(names))]
    prim = Primitive(positions, np.tile(np.float32([0, 0, 1]), (n, 1)),
                     np.array([0, 1, 2, 0, 2, 3], np.uint32), targets=targets)
    model.meshes.append(Mesh("Face", [prim], target_names=names,
                             default_weights=np.zeros(len(names), np.float32)))
    mesh = len(model.meshes) - 1
    binds = {"happy": 0, "sad": 1, "relaxed": 2, "surprised": 3, "blink": 4, "aa": 5,
             "lookLeft": 6, "lookRight": 7}
    for name, target in binds.items():
        model.expressions[name] = Expression(name, True, [MorphBind(mesh, target, 1.0)])


def degrees_between(a: np.ndarray, b: np.ndarray) -> float:
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    return math.degrees(math.acos(float(np.clip(a @ b, -1.0, 1.0))))
