"""The skeleton every built-in clip carries: VRM humanoid bones in a T-pose, with identity
rest rotations (like VRoid's exports), so a node's local rotation IS the bone's normalized
rotation relative to its parent. Proportions are Hana's
(``resources/avatar/hana.vrm``,
metres, she faces +Z, +X is her left); the hips are the root node.
"""

from __future__ import annotations

import numpy as np

# bone, parent, rest world position (x, y, z) of the left side and centre; the right side
# mirrors the left (x -> -x).
_CENTRE = (
    ("hips", None, (0.0, 0.806, 0.0)),
    ("spine", "hips", (0.0, 0.886, -0.004)),
    ("chest", "spine", (0.0, 0.982, -0.008)),
    ("upperChest", "chest", (0.0, 1.063, -0.010)),
    ("neck", "upperChest", (0.0, 1.158, -0.012)),
    ("head", "neck", (0.0, 1.229, -0.008)),
)
_LEFT = (
    ("Shoulder", "upperChest", (0.020, 1.136, -0.010)),
    ("UpperArm", "Shoulder", (0.086, 1.140, -0.012)),
    ("LowerArm", "UpperArm", (0.312, 1.140, -0.014)),
    ("Hand", "LowerArm", (0.516, 1.140, -0.012)),
    ("ThumbMetacarpal", "Hand", (0.532, 1.134, 0.016)),
    ("ThumbProximal", "ThumbMetacarpal", (0.553, 1.132, 0.036)),
    ("ThumbDistal", "ThumbProximal", (0.571, 1.131, 0.048)),
    ("IndexProximal", "Hand", (0.588, 1.140, 0.019)),
    ("IndexIntermediate", "IndexProximal", (0.611, 1.140, 0.020)),
    ("IndexDistal", "IndexIntermediate", (0.627, 1.140, 0.020)),
    ("MiddleProximal", "Hand", (0.591, 1.140, 0.005)),
    ("MiddleIntermediate", "MiddleProximal", (0.617, 1.140, 0.005)),
    ("MiddleDistal", "MiddleIntermediate", (0.636, 1.140, 0.005)),
    ("RingProximal", "Hand", (0.588, 1.140, -0.009)),
    ("RingIntermediate", "RingProximal", (0.611, 1.140, -0.010)),
    ("RingDistal", "RingIntermediate", (0.628, 1.140, -0.010)),
    ("LittleProximal", "Hand", (0.582, 1.140, -0.022)),
    ("LittleIntermediate", "LittleProximal", (0.600, 1.140, -0.024)),
    ("LittleDistal", "LittleIntermediate", (0.613, 1.140, -0.025)),
    ("UpperLeg", "hips", (0.068, 0.765, 0.0)),
    ("LowerLeg", "UpperLeg", (0.068, 0.433, 0.004)),
    ("Foot", "LowerLeg", (0.068, 0.081, -0.010)),
    ("Toes", "Foot", (0.068, 0.020, 0.086)),
)
#: Where each finger bone's tip is (the distal bones have no child): rest world position.
_LEFT_TIPS = {
    "ThumbDistal": (0.585, 1.130, 0.058),
    "IndexDistal": (0.641, 1.140, 0.020),
    "MiddleDistal": (0.652, 1.140, 0.005),
    "RingDistal": (0.643, 1.140, -0.010),
    "LittleDistal": (0.625, 1.140, -0.026),
}
FINGERS = ("Thumb", "Index", "Middle", "Ring", "Little")


def _side(prefix: str, sign: float):
    for name, parent, (x, y, z) in _LEFT:
        parent_name = parent if parent in ("upperChest", "hips") else prefix + parent
        yield prefix + name, parent_name, (sign * x, y, z)


BONES: tuple[tuple[str, str | None, tuple[float, float, float]], ...] = (
    *_CENTRE, *_side("left", 1.0), *_side("right", -1.0))
NAMES: tuple[str, ...] = tuple(b[0] for b in BONES)
PARENT: dict[str, str | None] = {b[0]: b[1] for b in BONES}
REST: dict[str, np.ndarray] = {b[0]: np.array(b[2], np.float64) for b in BONES}
TIPS: dict[str, np.ndarray] = {
    **{"left" + k: np.array(v, np.float64) for k, v in _LEFT_TIPS.items()},
    **{"right" + k: np.array((-v[0], v[1], v[2]), np.float64) for k, v in _LEFT_TIPS.items()},
}
CHILDREN: dict[str, list[str]] = {n: [] for n in NAMES}
for _name, _parent, _ in BONES:
    if _parent is not None:
        CHILDREN[_parent].append(_name)


def offset(bone: str) -> np.ndarray:
    """Rest translation of a bone from its parent (the glTF node translation)."""
    parent = PARENT[bone]
    return REST[bone] - (REST[parent] if parent else 0.0)


def length(bone: str, child: str) -> float:
    return float(np.linalg.norm(REST[child] - REST[bone]))


def direction(bone: str) -> np.ndarray:
    """Rest direction of a bone toward its (first) child or tip, unit."""
    kids = [c for c in CHILDREN[bone] if "Thumb" not in c] or CHILDREN[bone]
    end = REST[kids[0]] if kids else TIPS[bone]
    d = end - REST[bone]
    return d / np.linalg.norm(d)
