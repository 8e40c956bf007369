"""VRMC_springBone 1.0 (colliders, collider groups, springs) into ``VrmModel``, as is.

A spring's joints are in order from its root; the last joint is the tail of the one
before it. Extended colliders (``VRMC_springBone_extended_collider``) use their
required fallback shape. References to missing nodes or colliders are dropped with a
warning.
"""

from __future__ import annotations

from typing import Any

from .fields import as_dict, as_float, as_list, as_str, as_vec, index_or_none
from .load_context import LoadContext
from .model import Collider, ColliderGroup, SpringChain, SpringJoint, VrmModel


def read_collider(ctx: LoadContext, i: int, raw: dict, node_count: int) -> Collider | None:
    node = index_or_none(raw.get("node"), node_count)
    shape = as_dict(raw.get("shape"))
    if node is None or not shape:
        ctx.warn(f"spring bone collider {i} has no node or no shape", "it is ignored")
        return None
    if "capsule" in shape:
        capsule = as_dict(shape["capsule"])
        return Collider(
            node, "capsule", as_vec(capsule.get("offset"), 3, (0, 0, 0)),
            max(as_float(capsule.get("radius"), 0.0), 0.0),
            as_vec(capsule.get("tail"), 3, (0, 0, 0)),
        )  # fmt: skip
    sphere = as_dict(shape.get("sphere"))
    return Collider(
        node, "sphere", as_vec(sphere.get("offset"), 3, (0, 0, 0)),
        max(as_float(sphere.get("radius"), 0.0), 0.0),
    )  # fmt: skip


def read_joint(raw: dict, node: int) -> SpringJoint:
    return SpringJoint(
        node=node,
        hit_radius=max(as_float(raw.get("hitRadius"), 0.0), 0.0),
        stiffness=max(as_float(raw.get("stiffness"), 1.0), 0.0),
        gravity_power=max(as_float(raw.get("gravityPower"), 0.0), 0.0),
        gravity_dir=as_vec(raw.get("gravityDir"), 3, (0, -1, 0)),
        drag_force=min(max(as_float(raw.get("dragForce"), 0.5), 0.0), 1.0),
    )


def read_spring_bone(ctx: LoadContext, model: VrmModel, ext: dict) -> None:
    nodes = len(model.nodes)
    collider_map: dict[int, int] = {}
    for i, raw in enumerate(map(as_dict, as_list(ext.get("colliders")))):
        collider = read_collider(ctx, i, raw, nodes)
        if collider is not None:
            collider_map[i] = len(model.colliders)
            model.colliders.append(collider)
    group_map: dict[int, int] = {}
    for g, raw in enumerate(map(as_dict, as_list(ext.get("colliderGroups")))):
        members = [collider_map[c] for c in _indices(raw.get("colliders")) if c in collider_map]
        group_map[g] = len(model.collider_groups)
        model.collider_groups.append(ColliderGroup(as_str(raw.get("name"), f"colliderGroup{g}"),
                                                   members))
    joint_count = 0
    for s, raw in enumerate(map(as_dict, as_list(ext.get("springs")))):
        joints = []
        for item in map(as_dict, as_list(raw.get("joints"))):
            node = index_or_none(item.get("node"), nodes)
            if node is None:
                ctx.warn(f"spring {s} has a joint without a valid node", "the joint is ignored")
                continue
            joints.append(read_joint(item, node))
        joint_count += len(joints)
        if joint_count > ctx.limits.max_spring_joints:
            raise ctx.fail(f"the spring bones have more than {ctx.limits.max_spring_joints} joints")
        groups = [group_map[g] for g in _indices(raw.get("colliderGroups")) if g in group_map]
        center = index_or_none(raw.get("center"), nodes)
        model.springs.append(SpringChain(as_str(raw.get("name"), f"spring{s}"), joints, groups,
                                         center))


def _indices(value: Any) -> list[int]:
    return [int(v) for v in as_list(value) if isinstance(v, int) and not isinstance(v, bool)]

