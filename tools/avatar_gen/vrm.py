"""VRMC_vrm (meta, humanoid, first person, look-at, expressions) and VRMC_springBone JSON.

Decisions:
- lookAt is type "bone": the eye bones turn the irises (about 20 mm behind them, so a
  10 degree turn moves an iris about 3.5 mm). The four look* expressions are declared
  with no binds, as VRoid does for bone look-at, so nothing moves twice.
- overrideBlink: "block" for happy (her eyes are already closed into ^^ arcs, a blink on
  top would push the lids past closed); "blend" for angry, sad, relaxed and surprised
  (they narrow or widen the lids, so a blink is scaled down while they are strong).
  Mouth and look-at are never overridden, so she keeps lip-syncing in every mood.
"""

from __future__ import annotations

import numpy as np

from .hair import Chain

META = {
    "name": "Hana",
    "version": "1.0.0",
    "authors": ["companion-desktop"],
    "copyrightInformation": "companion-desktop contributors; made by tools/make_default_avatar.py",
    "licenseUrl": "https://vrm.dev/licenses/1.0/",
    "avatarPermission": "everyone",
    "allowExcessivelyViolentUsage": False,
    "allowExcessivelySexualUsage": False,
    "commercialUsage": "corporation",
    "allowPoliticalOrReligiousUsage": False,
    "allowAntisocialOrHateUsage": False,
    "creditNotation": "unnecessary",
    "allowRedistribution": True,
    "modification": "allowModificationRedistribution",
    "otherLicenseUrl": "https://opensource.org/license/mit",
}

OVERRIDE_BLINK = {
    "happy": "block",
    "angry": "blend",
    "sad": "blend",
    "relaxed": "blend",
    "surprised": "blend",
}

PRESETS = (
    "happy",
    "angry",
    "sad",
    "relaxed",
    "surprised",
    "aa",
    "ih",
    "ou",
    "ee",
    "oh",
    "blink",
    "blinkLeft",
    "blinkRight",
    "lookUp",
    "lookDown",
    "lookLeft",
    "lookRight",
    "neutral",
)


def expressions_json(face_node: int, target_names: list[str]) -> dict:
    preset = {}
    for name in PRESETS:
        if name == "blink":
            binds = [
                {"node": face_node, "index": target_names.index(n), "weight": 1.0}
                for n in ("blinkLeft", "blinkRight")
            ]
        elif name in target_names:
            binds = [{"node": face_node, "index": target_names.index(name), "weight": 1.0}]
        else:
            binds = []
        entry: dict = {
            "isBinary": False,
            "overrideBlink": OVERRIDE_BLINK.get(name, "none"),
            "overrideLookAt": "none",
            "overrideMouth": "none",
        }
        if binds:
            entry["morphTargetBinds"] = binds
        preset[name] = entry
    return {"preset": preset, "custom": {}}


def _r(v) -> list[float]:
    return [round(float(x), 5) + 0.0 for x in v]


def vrm_json(
    humanoid: dict[str, int],
    face_node: int,
    target_names: list[str],
    first_person: list[tuple[int, str]],
    look_offset: np.ndarray,
) -> dict:
    rng_h = {"inputMaxValue": 90.0, "outputScale": 10.0}
    rng_v = {"inputMaxValue": 90.0, "outputScale": 8.0}
    return {
        "specVersion": "1.0",
        "meta": dict(META),
        "humanoid": {"humanBones": {name: {"node": node} for name, node in humanoid.items()}},
        "firstPerson": {"meshAnnotations": [{"node": n, "type": t} for n, t in first_person]},
        "lookAt": {
            "type": "bone",
            "offsetFromHeadBone": _r(look_offset),
            "rangeMapHorizontalInner": dict(rng_h),
            "rangeMapHorizontalOuter": dict(rng_h),
            "rangeMapVerticalDown": dict(rng_v),
            "rangeMapVerticalUp": dict(rng_v),
        },
        "expressions": expressions_json(face_node, target_names),
    }


#: spring settings per chain group: stiffness, gravity power, drag, hit radius
SPRING = {
    "bangs": (2.2, 0.05, 0.7, 0.008),
    "ahoge": (1.6, 0.0, 0.5, 0.004),
    "side": (1.1, 0.2, 0.5, 0.012),
    "back": (1.3, 0.15, 0.55, 0.015),
    "tail": (0.9, 0.3, 0.45, 0.022),
    "skirt": (1.6, 0.1, 0.6, 0.02),
}


def spring_json(
    chains: list[Chain], colliders: list[dict], groups: dict[str, list[int]], node_of_joint
) -> dict:
    group_names = list(groups)
    springs = []
    for ch in chains:
        stiff, grav, drag, hit = SPRING[ch.group]
        joints = []
        for k, j in enumerate(ch.joints):
            fade = k / max(1, len(ch.joints) - 1)
            joints.append(
                {
                    "node": node_of_joint(j),
                    "hitRadius": hit,
                    "stiffness": round(stiff * (1.0 - 0.25 * fade), 4),
                    "gravityPower": grav,
                    "gravityDir": [0.0, -1.0, 0.0],
                    "dragForce": drag,
                }
            )
        springs.append(
            {
                "name": ch.name,
                "joints": joints,
                "colliderGroups": [group_names.index(g) for g in ch.colliders],
            }
        )
    return {
        "specVersion": "1.0",
        "colliders": colliders,
        "colliderGroups": [{"name": g, "colliders": idx} for g, idx in groups.items()],
        "springs": springs,
    }
