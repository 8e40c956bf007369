"""VRM 0.x ``secondaryAnimation`` (spring bone groups, sphere colliders) as 1.0 springs.

Following three-vrm's VRM 0.x import: every bone listed in a bone group is a root, and
every node below it becomes a joint with the group's settings (``stiffiness`` [sic],
``gravityPower``, ``gravityDir``, ``dragForce``, ``hitRadius``). A 1.0 spring is a list
of joints where each joint's tail is the next one, so each root is walked down its
first children into one chain and every other branch starts a chain of its own. VRM 0.x
simulates a leaf bone with a virtual tail 7 cm further along parent -> leaf (UniVRM);
the 1.0 model has no such joint, so a tail node (``<leaf>_springTail``) is appended to
``VrmModel.nodes`` as the leaf's child and ends the chain. A node listed under two roots
is simulated once (first listing wins).

Coordinates: 0.x writes offsets and directions in Unity's left-handed space, which
UniVRM maps to glTF by negating z. Collider offsets are in their node's local space,
untouched by the model's root rotation: offset (x, y, z) -> (x, y, -z), as three-vrm
does. ``gravityDir`` is a world direction; the 1.0 model's world has the root rotation
(pi about Y) on top of the glTF scene, so Unity (x, y, z) -> glTF (x, y, -z) -> world
(-x, y, z).
"""

from __future__ import annotations

import numpy as np

from .fields import as_dict, as_float, as_list, as_str, as_xyz, index_or_none
from .frame import rest_locals, world_matrices
from .load_context import LoadContext
from .model import Collider, ColliderGroup, Node, SpringChain, SpringJoint, VrmModel
from .nodes import as_node_index

TAIL_LENGTH = 0.07  # metres, UniVRM's virtual tail for a leaf bone
FLIP_Z = np.array([1, 1, -1], np.float32)  # Unity local -> glTF local
FLIP_X = np.array([-1, 1, 1], np.float32)  # Unity world -> the model's world (root rotation pi)


def read_secondary_animation(ctx: LoadContext, model: VrmModel, raw: dict) -> None:
    _read_colliders(ctx, model, as_list(raw.get("colliderGroups")))
    node_count = len(model.nodes)  # before tails are appended
    used: set[int] = set()
    leaves: list[tuple[int, SpringJoint]] = []
    for g, group in enumerate(map(as_dict, as_list(raw.get("boneGroups")))):
        name = as_str(group.get("comment")) or f"boneGroup{g}"
        groups = [
            k for k in (as_node_index(v, len(model.collider_groups))
                        for v in as_list(group.get("colliderGroups"))) if k is not None
        ]  # fmt: skip
        center = as_node_index(group.get("center"), node_count)
        for value in as_list(group.get("bones")):
            root = as_node_index(value, node_count)
            if root is None or root in used:
                ctx.warn(f"spring bone group {g} lists bone {value!r} twice or a missing node",
                         "it is simulated once or ignored")
                continue
            for chain in _walk(model, root, used):
                joints = [_joint(group, node) for node in chain]
                leaves.append((chain[-1], joints[-1]))
                model.springs.append(SpringChain(name, joints, list(groups), center))
        if len(used) > ctx.limits.max_spring_joints:
            raise ctx.fail(f"the spring bones have more than {ctx.limits.max_spring_joints} joints")
    _append_tails(model, leaves)


def _walk(model: VrmModel, root: int, used: set[int]) -> list[list[int]]:
    """Chains below ``root``: the first-child path, then one chain per other branch."""
    chains: list[list[int]] = []
    starts = [root]
    while starts:
        node: int | None = starts.pop(0)
        chain = []
        while node is not None and node not in used:
            used.add(node)
            chain.append(node)
            children = [c for c in model.nodes[node].children if c not in used]
            starts.extend(children[1:])
            node = children[0] if children else None
        if chain:
            chains.append(chain)
    return chains


def _joint(group: dict, node: int) -> SpringJoint:
    gravity = as_xyz(group.get("gravityDir"), (0, -1, 0)) * FLIP_X
    return SpringJoint(
        node=node,
        hit_radius=max(as_float(group.get("hitRadius"), 0.02), 0.0),
        stiffness=max(as_float(group.get("stiffiness", group.get("stiffness")), 1.0), 0.0),
        gravity_power=max(as_float(group.get("gravityPower"), 0.0), 0.0),
        gravity_dir=gravity,
        drag_force=min(max(as_float(group.get("dragForce"), 0.4), 0.0), 1.0),
    )


def _append_tails(model: VrmModel, leaves: list[tuple[int, SpringJoint]]) -> None:
    """A tail node 7 cm along parent -> leaf (world space, as UniVRM) below every leaf."""
    if not leaves:
        return
    world = world_matrices(model, rest_locals(model)).astype(np.float64)
    leaf_chain = {id(chain.joints[-1]): chain for chain in model.springs}
    for leaf, joint in leaves:
        parent = model.nodes[leaf].parent
        here = world[leaf][:3, 3]
        delta = here - world[parent][:3, 3] if parent is not None else np.zeros(3)
        length = np.linalg.norm(delta)
        direction = delta / length if length > 1e-9 else world[leaf][:3, 1]
        target = np.append(here + direction / max(np.linalg.norm(direction), 1e-9) * TAIL_LENGTH,
                           1.0)  # fmt: skip
        try:
            local = np.linalg.solve(world[leaf], target)[:3]
        except np.linalg.LinAlgError:
            local = np.array([0.0, TAIL_LENGTH, 0.0])
        index = len(model.nodes)
        model.nodes.append(Node(name=f"{model.nodes[leaf].name}_springTail", parent=leaf,
                                translation=local.astype(np.float32)))
        model.nodes[leaf].children.append(index)
        tail = SpringJoint(index, joint.hit_radius, joint.stiffness, joint.gravity_power,
                           joint.gravity_dir.copy(), joint.drag_force)
        leaf_chain[id(joint)].joints.append(tail)


def _read_colliders(ctx: LoadContext, model: VrmModel, groups: list) -> None:
    for g, group in enumerate(map(as_dict, groups)):
        node = index_or_none(group.get("node"), len(model.nodes))
        members: list[int] = []
        if node is None:
            ctx.warn(f"spring bone collider group {g} has no valid node", "it has no colliders")
        else:
            for collider in map(as_dict, as_list(group.get("colliders"))):
                offset = as_xyz(collider.get("offset"), (0, 0, 0)) * FLIP_Z
                radius = max(as_float(collider.get("radius"), 0.0), 0.0)
                members.append(len(model.colliders))
                model.colliders.append(Collider(node, "sphere", offset, radius))
        model.collider_groups.append(ColliderGroup(f"colliderGroup{g}", members))
