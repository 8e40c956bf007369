"""VRMC_vrm 1.0 (humanoid, expressions, look-at, first person, meta) into ``VrmModel``.

Morph target binds name a node; they are stored against that node's mesh. References
to things that do not exist are dropped with a warning; the humanoid's required bones
are checked by the loader. ``VRMC_node_constraint`` (roll, aim, rotation) is read into
``model.constraints`` (``constraints.NodeConstraint``); an invalid one (unknown kind or
axis, a source that does not exist, a node constraining itself, a dependency cycle) is
dropped with a warning.
"""

from __future__ import annotations

from typing import Any, Literal

from .constraints import AIM_AXES, KINDS, ROLL_AXES, NodeConstraint, order_constraints
from .fields import as_bool, as_dict, as_float, as_list, as_pair, as_str, as_vec, get, index_or_none
from .load_context import LoadContext
from .model import (
    HUMANOID_BONES,
    PRESET_EXPRESSIONS,
    Expression,
    LookAt,
    MaterialColorBind,
    Meta,
    MorphBind,
    RangeMap,
    TextureTransformBind,
    VrmModel,
)  # fmt: skip
from .vrm1_springs import read_spring_bone

OVERRIDES = ("none", "block", "blend")
COLOR_KINDS = ("color", "emissionColor", "shadeColor", "matcapColor", "rimColor", "outlineColor")
FIRST_PERSON_TYPES = ("auto", "both", "thirdPersonOnly", "firstPersonOnly")


def apply_vrm1(ctx: LoadContext, model: VrmModel, ext: dict) -> None:
    """Everything but the humanoid (read first by the loader, with ``read_humanoid``)."""
    model.version = "1.0"
    model.expressions = read_expressions(ctx, model, as_dict(ext.get("expressions")))
    if isinstance(ext.get("lookAt"), dict):
        model.look_at = read_look_at(ext["lookAt"])
    model.first_person = read_first_person(ctx, model, as_dict(ext.get("firstPerson")))
    model.meta = read_meta(as_dict(ext.get("meta")))
    spring_bone = ctx.doc.extensions.get("VRMC_springBone")
    if isinstance(spring_bone, dict):
        read_spring_bone(ctx, model, spring_bone)
    model.constraints = read_constraints(ctx, model)


def read_humanoid(ctx: LoadContext, humanoid: dict, node_count: int) -> dict[str, int]:
    bones: dict[str, int] = {}
    used: dict[int, str] = {}
    for name, bone in as_dict(humanoid.get("humanBones")).items():
        node = index_or_none(get(as_dict(bone), "node"), node_count)
        if name not in HUMANOID_BONES:
            ctx.warn(f"humanoid bone {name!r} is not a VRM 1.0 bone", "it is ignored")
        elif node is None:
            ctx.warn(f"humanoid bone {name!r} refers to a node that does not exist",
                     "the bone is ignored")
        elif node in used:
            ctx.warn(f"humanoid bones {used[node]!r} and {name!r} use the same node",
                     f"{name!r} is ignored")
        else:
            bones[name] = node
            used[node] = name
    return bones


def _expression(
    ctx: LoadContext, model: VrmModel, name: str, raw: dict, preset: bool
) -> Expression:
    expression = Expression(name=name, preset=preset, is_binary=as_bool(raw.get("isBinary")))
    for key in ("overrideBlink", "overrideLookAt", "overrideMouth"):
        value = raw.get(key, "none")
        attr = "override_" + {"overrideBlink": "blink", "overrideLookAt": "look_at",
                              "overrideMouth": "mouth"}[key]
        setattr(expression, attr, value if value in OVERRIDES else "none")
    what = f"expression {name!r}"
    materials = len(model.materials)
    for bind in map(as_dict, as_list(raw.get("morphTargetBinds"))):
        node = index_or_none(bind.get("node"), len(model.nodes))
        mesh = model.nodes[node].mesh if node is not None else None
        morph = index_or_none(bind.get("index"), _target_count(model, mesh)) \
            if mesh is not None else None
        if mesh is None or morph is None:
            ctx.warn(f"{what} binds a morph target that does not exist", "the bind is ignored")
            continue
        weight = min(max(as_float(bind.get("weight"), 1.0), 0.0), 1.0)
        expression.morph_binds.append(MorphBind(mesh, morph, weight))
    for bind in map(as_dict, as_list(raw.get("materialColorBinds"))):
        material = index_or_none(bind.get("material"), materials)
        kind = bind.get("type")
        if material is None or kind not in COLOR_KINDS:
            ctx.warn(f"{what} has a material colour bind that cannot be used", "it is ignored")
            continue
        target = as_vec(bind.get("targetValue"), 4, (0, 0, 0, 1))
        expression.material_color_binds.append(MaterialColorBind(material, kind, target))
    for bind in map(as_dict, as_list(raw.get("textureTransformBinds"))):
        material = index_or_none(bind.get("material"), materials)
        if material is None:
            ctx.warn(f"{what} has a texture transform bind without a material", "it is ignored")
            continue
        scale = as_pair(bind.get("scale"), (1.0, 1.0))
        offset = as_pair(bind.get("offset"), (0.0, 0.0))
        expression.texture_transform_binds.append(TextureTransformBind(material, scale, offset))
    return expression


def _target_count(model: VrmModel, mesh: int) -> int:
    return max((len(p.targets) for p in model.meshes[mesh].primitives), default=0)


def read_expressions(ctx: LoadContext, model: VrmModel, raw: dict) -> dict[str, Expression]:
    expressions: dict[str, Expression] = {}
    for name, value in as_dict(raw.get("preset")).items():
        if name not in PRESET_EXPRESSIONS:
            ctx.warn(f"preset expression {name!r} is not a VRM 1.0 preset", "kept as custom")
        is_preset = name in PRESET_EXPRESSIONS
        expressions[name] = _expression(ctx, model, name, as_dict(value), is_preset)
    for name, value in as_dict(raw.get("custom")).items():
        if name in expressions:
            ctx.warn(f"custom expression {name!r} has the name of a preset", "it is ignored")
            continue
        expressions[name] = _expression(ctx, model, name, as_dict(value), False)
    return expressions


def _range_map(raw: Any, default_scale: float) -> RangeMap:
    raw = as_dict(raw)
    return RangeMap(
        input_max=as_float(raw.get("inputMaxValue"), 90.0),
        output_scale=as_float(raw.get("outputScale"), default_scale),
    )


def read_look_at(raw: dict) -> LookAt:
    kind: Literal["bone", "expression"] = \
        "expression" if raw.get("type") == "expression" else "bone"
    scale = 1.0 if kind == "expression" else 10.0
    return LookAt(
        type=kind,
        offset_from_head=as_vec(raw.get("offsetFromHeadBone"), 3, (0, 0.06, 0)),
        horizontal_inner=_range_map(raw.get("rangeMapHorizontalInner"), scale),
        horizontal_outer=_range_map(raw.get("rangeMapHorizontalOuter"), scale),
        vertical_down=_range_map(raw.get("rangeMapVerticalDown"), scale),
        vertical_up=_range_map(raw.get("rangeMapVerticalUp"), scale),
    )


def read_first_person(ctx: LoadContext, model: VrmModel, raw: dict) -> dict[int, str]:
    annotations: dict[int, str] = {}
    for item in map(as_dict, as_list(raw.get("meshAnnotations"))):
        node = index_or_none(item.get("node"), len(model.nodes))
        mesh = model.nodes[node].mesh if node is not None else None
        kind = item.get("type", "auto")
        if mesh is None or kind not in FIRST_PERSON_TYPES:
            ctx.warn("a first-person mesh annotation cannot be used", "it is ignored")
            continue
        annotations[mesh] = kind
    return annotations


def read_meta(raw: dict) -> Meta:
    authors = [a for a in as_list(raw.get("authors")) if isinstance(a, str)]
    return Meta(
        name=as_str(raw.get("name")),
        version=as_str(raw.get("version")),
        authors=authors,
        license=as_str(raw.get("licenseUrl")),
    )


CONSTRAINT_SPEC_VERSIONS = ("1.0", "1.0-beta")


def read_constraints(ctx: LoadContext, model: VrmModel) -> list[NodeConstraint]:
    """Every node's ``VRMC_node_constraint`` that can be applied, in node order."""
    found: list[NodeConstraint] = []
    for i, node in enumerate(ctx.doc.gltf.nodes or []):
        raw = as_dict(get(node, "extensions")).get("VRMC_node_constraint")
        if raw is not None:
            what = f"the node constraint of node {i} ({as_str(get(node, 'name')) or '-'})"
            constraint = _constraint(ctx, i, as_dict(raw), len(model.nodes), what)
            if constraint is not None:
                found.append(constraint)
    parents = [-1 if n.parent is None else n.parent for n in model.nodes]
    _, cyclic = order_constraints(found, parents)
    for c in cyclic:
        name = model.nodes[c.destination].name or "-"
        ctx.warn(f"the node constraint of node {c.destination} ({name}) depends on itself "
                 "through a cycle of constraints", "the constraint is dropped")
    dropped = {id(c) for c in cyclic}
    return [c for c in found if id(c) not in dropped]


def _short(value: Any) -> str:
    """``repr(value)`` cut to 40 characters (file values can be anything)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _constraint(ctx: LoadContext, node: int, raw: dict, count: int, what: str
                ) -> NodeConstraint | None:
    version = raw.get("specVersion", "1.0")
    if version not in CONSTRAINT_SPEC_VERSIONS:
        ctx.warn(f"{what} has the unknown specVersion {_short(version)}",
                 "the constraint is dropped")
        return None
    body = as_dict(raw.get("constraint"))
    kind = next((k for k in KINDS if isinstance(body.get(k), dict)), None)
    if kind is None:
        ctx.warn(f"{what} is not a roll, aim or rotation constraint", "the constraint is dropped")
        return None
    spec = body[kind]
    source = index_or_none(spec.get("source"), count)
    if source is None:
        ctx.warn(f"{what} refers to source node {_short(spec.get('source'))}, which does not "
                 "exist", "the constraint is dropped")
        return None
    if source == node:
        ctx.warn(f"{what} uses its own node as the source", "the constraint is dropped")
        return None
    axis = ""
    if kind != "rotation":
        key, axes = ("rollAxis", ROLL_AXES) if kind == "roll" else ("aimAxis", AIM_AXES)
        axis = spec.get(key)
        if not isinstance(axis, str) or axis not in axes:
            ctx.warn(f"{what} has the {key} {_short(axis)}; it must be one of {', '.join(axes)}",
                     "the constraint is dropped")
            return None
    weight = min(max(as_float(spec.get("weight"), 1.0), 0.0), 1.0)
    return NodeConstraint(kind, node, source, axis, weight)
