"""Hana's skeleton: the VRM 1.0 humanoid in a T-pose facing +Z, +Y up, feet at y = 0.

Every joint has an identity rest rotation; a node's translation is its position minus its
parent's (like a VRoid export). Her left side is +X. Hair and skirt joints are added by
their own modules. Positions in metres.
"""

from __future__ import annotations

import numpy as np

HEIGHT = 1.55  # metres, crown of the hair included

# (humanoid name, parent, position of the LEFT/centre joint)
_CENTRE = [
    ("hips", None, (0.0, 0.80, 0.0)),
    ("spine", "hips", (0.0, 0.88, -0.004)),
    ("chest", "spine", (0.0, 0.975, -0.008)),
    ("upperChest", "chest", (0.0, 1.055, -0.010)),
    ("neck", "upperChest", (0.0, 1.150, -0.012)),
    ("head", "neck", (0.0, 1.232, -0.008)),
]
_LEFT = [
    ("Shoulder", "upperChest", (0.020, 1.128, -0.010)),
    ("UpperArm", "Shoulder", (0.085, 1.132, -0.012)),
    ("LowerArm", "UpperArm", (0.310, 1.132, -0.014)),
    ("Hand", "LowerArm", (0.512, 1.132, -0.012)),
    ("ThumbMetacarpal", "Hand", (0.528, 1.126, 0.016)),
    ("ThumbProximal", "ThumbMetacarpal", (0.549, 1.124, 0.036)),
    ("ThumbDistal", "ThumbProximal", (0.567, 1.123, 0.048)),
    ("IndexProximal", "Hand", (0.584, 1.132, 0.019)),
    ("IndexIntermediate", "IndexProximal", (0.607, 1.132, 0.020)),
    ("IndexDistal", "IndexIntermediate", (0.623, 1.132, 0.020)),
    ("MiddleProximal", "Hand", (0.587, 1.132, 0.005)),
    ("MiddleIntermediate", "MiddleProximal", (0.613, 1.132, 0.005)),
    ("MiddleDistal", "MiddleIntermediate", (0.631, 1.132, 0.005)),
    ("RingProximal", "Hand", (0.584, 1.132, -0.009)),
    ("RingIntermediate", "RingProximal", (0.607, 1.132, -0.010)),
    ("RingDistal", "RingIntermediate", (0.624, 1.132, -0.010)),
    ("LittleProximal", "Hand", (0.578, 1.132, -0.022)),
    ("LittleIntermediate", "LittleProximal", (0.596, 1.132, -0.024)),
    ("LittleDistal", "LittleIntermediate", (0.609, 1.132, -0.025)),
    ("UpperLeg", "hips", (0.068, 0.760, 0.0)),
    ("LowerLeg", "UpperLeg", (0.068, 0.430, 0.004)),
    ("Foot", "LowerLeg", (0.068, 0.080, -0.010)),
    ("Toes", "Foot", (0.068, 0.020, 0.085)),
    ("Eye", "head", (0.047, 1.322, 0.085)),
]
#: finger tip positions (no bone; used for geometry), left side
FINGER_TIPS = {
    "Thumb": (0.582, 1.122, 0.056),
    "Index": (0.637, 1.132, 0.020),
    "Middle": (0.647, 1.132, 0.005),
    "Ring": (0.638, 1.132, -0.010),
    "Little": (0.620, 1.132, -0.026),
}


def _cap(word: str) -> str:
    return word[0].upper() + word[1:]


class Skeleton:
    """Nodes of the rig in creation order: names, parents, world rest positions."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.parents: list[int | None] = []
        self.positions: list[np.ndarray] = []
        self.humanoid: dict[str, int] = {}

    def add(
        self, name: str, parent: str | int | None, position, humanoid: str | None = None
    ) -> int:
        if name in self.names:
            raise ValueError(f"duplicate joint {name}")
        parent_index = self.index(parent) if isinstance(parent, str) else parent
        self.names.append(name)
        self.parents.append(parent_index)
        self.positions.append(np.asarray(position, np.float64))
        if humanoid:
            self.humanoid[humanoid] = len(self.names) - 1
        return len(self.names) - 1

    def index(self, name: str) -> int:
        return self.names.index(name)

    def bone(self, humanoid: str) -> int:
        return self.humanoid[humanoid]

    def pos(self, name_or_index: str | int) -> np.ndarray:
        i = self.index(name_or_index) if isinstance(name_or_index, str) else name_or_index
        return self.positions[i]

    def __len__(self) -> int:
        return len(self.names)

    def mirror_map(self) -> np.ndarray:
        """For each joint, the index of its left/right twin (itself for centre joints)."""
        out = np.arange(len(self.names))
        for i, n in enumerate(self.names):
            for a, b in (("left", "right"), ("right", "left"), ("_L", "_R"), ("_R", "_L")):
                twin = n.replace(a, b, 1) if (n.startswith(a) or n.endswith(a)) else None
                if twin and twin in self.names:
                    out[i] = self.names.index(twin)
        return out


def humanoid_skeleton() -> Skeleton:
    sk = Skeleton()
    for name, parent, p in _CENTRE:
        sk.add(name, parent, p, humanoid=name)
    for side, sign in (("left", 1.0), ("right", -1.0)):
        for name, parent, p in _LEFT:
            full = side + name
            parent_full = parent if parent in ("hips", "upperChest", "head") else side + parent
            sk.add(full, parent_full, (sign * p[0], p[1], p[2]), humanoid=full)
    return sk


def finger_tip(side: str, finger: str) -> np.ndarray:
    x, y, z = FINGER_TIPS[_cap(finger)]
    return np.array([x if side == "left" else -x, y, z])
