"""The VRM 1.0 humanoid hierarchy (three-vrm's ``VRMHumanBoneParentMap``) and bone order.

``BONES`` fixes one index per humanoid bone so the sampler and the mixer can work on
dense ``(len(BONES), 4)`` quaternion arrays with a mask of the bones a clip animates.
"""

from __future__ import annotations

from ..vrm.model import HUMANOID_BONES

BONES: tuple[str, ...] = HUMANOID_BONES
BONE_INDEX: dict[str, int] = {bone: i for i, bone in enumerate(BONES)}


def _parents() -> dict[str, str | None]:
    parents: dict[str, str | None] = {
        "hips": None, "spine": "hips", "chest": "spine", "upperChest": "chest",
        "neck": "upperChest", "head": "neck", "leftEye": "head", "rightEye": "head",
        "jaw": "head",
    }  # fmt: skip
    for side in ("left", "right"):
        parents.update({
            f"{side}UpperLeg": "hips", f"{side}LowerLeg": f"{side}UpperLeg",
            f"{side}Foot": f"{side}LowerLeg", f"{side}Toes": f"{side}Foot",
            f"{side}Shoulder": "upperChest", f"{side}UpperArm": f"{side}Shoulder",
            f"{side}LowerArm": f"{side}UpperArm", f"{side}Hand": f"{side}LowerArm",
            f"{side}ThumbMetacarpal": f"{side}Hand",
            f"{side}ThumbProximal": f"{side}ThumbMetacarpal",
            f"{side}ThumbDistal": f"{side}ThumbProximal",
        })  # fmt: skip
        for finger in ("Index", "Middle", "Ring", "Little"):
            parents[f"{side}{finger}Proximal"] = f"{side}Hand"
            parents[f"{side}{finger}Intermediate"] = f"{side}{finger}Proximal"
            parents[f"{side}{finger}Distal"] = f"{side}{finger}Intermediate"
    return parents


#: bone -> its parent bone in the VRM humanoid (None for the hips).
HUMAN_PARENT: dict[str, str | None] = _parents()
