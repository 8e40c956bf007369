"""VRM 0.x (the ``VRM`` extension) converted into the 1.0 ``VrmModel``, once, at load.

* Humanoid: 0.x names are the 1.0 names except the thumbs (0.x Proximal / Intermediate /
  Distal are 1.0 Metacarpal / Proximal / Distal).
* Expressions (blend shape groups): preset names mapped to 1.0 (joy -> happy, sorrow ->
  sad, fun -> relaxed, a/i/u/e/o -> aa/ih/ou/ee/oh, blink_l -> blinkLeft, ...); an unknown
  or empty preset becomes a custom expression named after the group. Bind weights 0-100
  become 0-1; binds name a mesh directly. ``materialValues``: ``_Color``/``_ShadeColor``/
  ``_EmissionColor``/``_RimColor``/``_OutlineColor`` become colour binds (RGB sRGB ->
  linear, like the 0.x materials), ``_MainTex_ST`` (scale x, scale y, offset x, offset y)
  a texture transform bind with the V offset flipped to glTF's top-left origin
  (1 - scale y - offset y), as three-vrm does. 0.x has no override fields: they stay
  "none" (three-vrm and UniVRM's migration do the same).
* Look-at: ``Bone`` -> "bone", ``BlendShape`` -> "expression"; each curve becomes a range
  map (``xRange`` -> input_max, at least 0.5; ``yRange`` -> output_scale). Curves other
  than linear are approximated by a line (warning). ``firstPersonBoneOffset`` is in Unity
  space: (x, y, z) -> (x, y, -z) in the head's glTF space.
* Spring bones: see ``vrm0_springs``; MToon: see ``vrm0_mtoon``.
* ``root_rotation_y`` = pi: 0.x models face -Z, the runtime's models face +Z.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from .fields import as_bool, as_dict, as_float, as_list, as_str, as_xyz, index_or_none
from .load_context import LoadContext
from .model import (
    HUMANOID_BONES,
    Expression,
    LookAt,
    MaterialColorBind,
    Meta,
    MorphBind,
    RangeMap,
    TextureTransformBind,
    VrmModel,
)  # fmt: skip
from .vrm0_mtoon import apply_material_properties, srgb_to_linear
from .vrm0_springs import read_secondary_animation

PRESETS = {
    "joy": "happy", "angry": "angry", "sorrow": "sad", "fun": "relaxed",
    "surprised": "surprised", "a": "aa", "i": "ih", "u": "ou", "e": "ee", "o": "oh",
    "blink": "blink", "blink_l": "blinkLeft", "blink_r": "blinkRight", "lookup": "lookUp",
    "lookdown": "lookDown", "lookleft": "lookLeft", "lookright": "lookRight",
    "neutral": "neutral",
}  # fmt: skip
THUMBS = {"ThumbProximal": "ThumbMetacarpal", "ThumbIntermediate": "ThumbProximal"}
_ColorKind = Literal["color", "shadeColor", "emissionColor", "rimColor", "outlineColor"]
COLOR_PROPERTIES: dict[str, _ColorKind] = {
    "_Color": "color", "_ShadeColor": "shadeColor", "_EmissionColor": "emissionColor",
    "_RimColor": "rimColor", "_OutlineColor": "outlineColor",
}  # fmt: skip
FIRST_PERSON_FLAGS = {
    "auto": "auto", "both": "both", "thirdpersononly": "thirdPersonOnly",
    "firstpersononly": "firstPersonOnly",
}  # fmt: skip
LINEAR_CURVE = [0, 0, 0, 1, 1, 1, 1, 0]


def apply_vrm0(ctx: LoadContext, model: VrmModel, ext: dict) -> None:
    """Everything but the humanoid (read first by the loader, with ``read_humanoid``)."""
    model.version = "0.x"
    model.root_rotation_y = math.pi
    apply_material_properties(ctx, model.materials, ext.get("materialProperties"),
                              len(model.textures))
    model.expressions = read_blend_shapes(ctx, model, as_dict(ext.get("blendShapeMaster")),
                                          as_list(ext.get("materialProperties")))
    first_person = as_dict(ext.get("firstPerson"))
    model.look_at = read_look_at(ctx, first_person)
    model.first_person = read_first_person(ctx, first_person, len(model.meshes))
    model.meta = read_meta(as_dict(ext.get("meta")))
    read_secondary_animation(ctx, model, as_dict(ext.get("secondaryAnimation")))


def bone_name(name: str) -> str:
    """A 0.x humanoid bone name as the 1.0 name."""
    for old, new in THUMBS.items():
        if name.endswith(old):
            return name[: -len(old)] + new
    return name


def read_humanoid(ctx: LoadContext, humanoid: dict, node_count: int) -> dict[str, int]:
    bones: dict[str, int] = {}
    for item in map(as_dict, as_list(humanoid.get("humanBones"))):
        raw_name = as_str(item.get("bone"))
        name = bone_name(raw_name)
        node = index_or_none(item.get("node"), node_count)
        if name not in HUMANOID_BONES:
            ctx.warn(f"humanoid bone {raw_name!r} is not a VRM bone", "it is ignored")
        elif node is None:
            ctx.warn(f"humanoid bone {raw_name!r} refers to a node that does not exist",
                     "the bone is ignored")
        elif name in bones or node in bones.values():
            ctx.warn(f"humanoid bone {raw_name!r} is listed twice or shares a node",
                     "the first listing is used")
        else:
            bones[name] = node
    return bones


def _material_indices(model: VrmModel, props: list, name: str) -> list[int]:
    found = [i for i, m in enumerate(model.materials) if m.name == name]
    if not found:
        found = [i for i, p in enumerate(props)
                 if as_str(as_dict(p).get("name")) == name and i < len(model.materials)]
    return found


def _add_material_value(ctx: LoadContext, model: VrmModel, expression: Expression,
                        value: dict, props: list) -> None:
    name, prop = as_str(value.get("materialName")), as_str(value.get("propertyName"))
    target = [as_float(v, 0.0) for v in as_list(value.get("targetValue"))[:4]]
    target += [0.0, 0.0, 0.0, 1.0][len(target):]
    materials = _material_indices(model, props, name)
    if not materials or (prop not in COLOR_PROPERTIES and prop != "_MainTex_ST"):
        ctx.warn(f"expression {expression.name!r} changes {prop!r} of material {name!r}, "
                 "which cannot be used", "that change is ignored")
        return
    for material in materials:
        if prop == "_MainTex_ST":
            scale = (target[0], target[1])
            offset = (target[2], 1.0 - target[1] - target[3])
            expression.texture_transform_binds.append(TextureTransformBind(material, scale, offset))
        else:
            rgba = np.array(target, np.float32)
            rgba[:3] = srgb_to_linear(rgba[:3])
            expression.material_color_binds.append(
                MaterialColorBind(material, COLOR_PROPERTIES[prop], rgba)
            )


def read_blend_shapes(ctx: LoadContext, model: VrmModel, master: dict, props: list
                      ) -> dict[str, Expression]:
    expressions: dict[str, Expression] = {}
    for k, group in enumerate(map(as_dict, as_list(master.get("blendShapeGroups")))):
        preset = PRESETS.get(as_str(group.get("presetName")).lower())
        name = preset or as_str(group.get("name")) or f"expression{k}"
        if name in expressions:
            ctx.warn(f"blend shape group {k} ({name!r}) repeats an expression", "it is ignored")
            continue
        expression = Expression(name, preset is not None, is_binary=as_bool(group.get("isBinary")))
        for bind in map(as_dict, as_list(group.get("binds"))):
            mesh = index_or_none(bind.get("mesh"), len(model.meshes))
            count = max((len(p.targets) for p in model.meshes[mesh].primitives), default=0) \
                if mesh is not None else 0
            target = index_or_none(bind.get("index"), count)
            if mesh is None or target is None:
                ctx.warn(f"expression {name!r} binds a morph target that does not exist",
                         "the bind is ignored")
                continue
            weight = min(max(as_float(bind.get("weight"), 100.0) / 100.0, 0.0), 1.0)
            expression.morph_binds.append(MorphBind(mesh, target, weight))
        for value in map(as_dict, as_list(group.get("materialValues"))):
            _add_material_value(ctx, model, expression, value, props)
        expressions[name] = expression
    return expressions


def _range_map(raw: Any, default_scale: float, curved: list) -> RangeMap:
    raw = as_dict(raw)
    curve = as_list(raw.get("curve"))
    if curve and [as_float(v, math.nan) for v in curve] != LINEAR_CURVE:
        curved.append(True)
    return RangeMap(
        input_max=max(as_float(raw.get("xRange"), 90.0), 0.5),
        output_scale=as_float(raw.get("yRange"), default_scale),
    )


def read_look_at(ctx: LoadContext, first_person: dict) -> LookAt:
    kind: Literal["bone", "expression"] = \
        "expression" if first_person.get("lookAtTypeName") == "BlendShape" else "bone"
    scale = 1.0 if kind == "expression" else 10.0
    curved: list = []
    offset = as_xyz(first_person.get("firstPersonBoneOffset"), (0, 0.06, 0))
    look_at = LookAt(
        type=kind,
        offset_from_head=offset * np.array([1, 1, -1], np.float32),
        horizontal_inner=_range_map(first_person.get("lookAtHorizontalInner"), scale, curved),
        horizontal_outer=_range_map(first_person.get("lookAtHorizontalOuter"), scale, curved),
        vertical_down=_range_map(first_person.get("lookAtVerticalDown"), scale, curved),
        vertical_up=_range_map(first_person.get("lookAtVerticalUp"), scale, curved),
    )
    if curved:
        ctx.warn("the VRM 0.x look-at curves are not straight lines",
                 "eye movement follows a straight line to the same end points")
    return look_at


def read_first_person(ctx: LoadContext, first_person: dict, mesh_count: int) -> dict[int, str]:
    annotations: dict[int, str] = {}
    for item in map(as_dict, as_list(first_person.get("meshAnnotations"))):
        mesh = index_or_none(item.get("mesh"), mesh_count)
        flag = FIRST_PERSON_FLAGS.get(as_str(item.get("firstPersonFlag"), "auto").lower())
        if mesh is None or flag is None:
            ctx.warn("a first-person mesh annotation cannot be used", "it is ignored")
            continue
        annotations[mesh] = flag
    return annotations


def read_meta(raw: dict) -> Meta:
    license_name = as_str(raw.get("licenseName"))
    if license_name == "Other" and as_str(raw.get("otherLicenseUrl")):
        license_name = f"Other ({as_str(raw.get('otherLicenseUrl'))})"
    author = as_str(raw.get("author"))
    return Meta(
        name=as_str(raw.get("title")),
        version=as_str(raw.get("version")),
        authors=[author] if author else [],
        license=license_name,
    )
