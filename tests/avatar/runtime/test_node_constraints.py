"""VRMC_node_constraint: hand-built VRM 1.0 files through the real loader and the runtime.

Expected poses are computed here from first principles (swing-twist decomposition, the
direction to the source), not with the solver's own formulas.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.constraints import ConstraintSolver, NodeConstraint
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.model import Node, VrmModel
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.avatar.vrm.report import format_report, inspect
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from tests.avatar.loader.gltf_builder import GltfBuilder, minimal_avatar

X, Y, Z = np.eye(3)
FRAME = 1.0 / 60.0


def axis_angle(axis, degrees: float) -> np.ndarray:
    return quat.from_axis_angle(np.asarray(axis, np.float64), math.radians(degrees))


def add_node(b: GltfBuilder, parent: int, name: str, translation=(0.0, 0.0, 0.0),
             rotation=None) -> int:
    fields = {"name": name, "translation": list(translation)}
    if rotation is not None:
        fields["rotation"] = [float(v) for v in rotation]
    node = b.node(root=False, **fields)
    b.json["nodes"][parent].setdefault("children", []).append(node)
    return node


def constrain(b: GltfBuilder, node: int, kind: str, **spec) -> None:
    b.json["nodes"][node].setdefault("extensions", {})["VRMC_node_constraint"] = {
        "specVersion": "1.0", "constraint": {kind: spec}}
    used = b.json.setdefault("extensionsUsed", [])
    if "VRMC_node_constraint" not in used:
        used.append("VRMC_node_constraint")


def rig(b: GltfBuilder) -> int:
    """A parent for the test nodes, turned 40 degrees about Y and placed at (0.3, 1.2, 0)."""
    chest = next(i for i, n in enumerate(b.json["nodes"]) if n.get("name") == "chest")
    return add_node(b, chest, "rig", (0.3, 0.1, 0.0), axis_angle(Y, 40))


def load(b: GltfBuilder, tmp_path: Path) -> VrmModel:
    path = tmp_path / "constrained.vrm"
    path.write_bytes(b.glb())
    return load_model(path)


def runtime(model: VrmModel, hook=None) -> AvatarRuntime:
    return AvatarRuntime(model, random.Random(1), blink=False, breathing=False, springs=False,
                         animation=hook)


def world_rotation(world: np.ndarray, node: int) -> np.ndarray:
    return quat.from_matrix(world[node, :3, :3])


def assert_same_rotation(a: np.ndarray, b: np.ndarray, tol_deg: float = 0.05) -> None:
    assert math.degrees(float(quat.angle_between(a, b))) < tol_deg


def test_roll_constraint_follows_half_of_the_source_twist(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    src_rest = axis_angle([1, 1, 0], 25)
    dst_rest = axis_angle(Z, 90)
    src = add_node(b, parent, "forearm", (0.2, 0, 0), src_rest)
    dst = add_node(b, parent, "twist", (0.1, 0, 0), dst_rest)
    constrain(b, dst, "roll", source=src, rollAxis="X", weight=0.5)
    model = load(b, tmp_path)
    assert model.constraints == [NodeConstraint("roll", dst, src, "X", 0.5)]
    assert not [p for p in model.problems if "constraint" in p.message]
    # the source turns (in its parent's space) by a swing, then 60 degrees about the
    # destination's X axis: only half the twist reaches the destination.
    roll_axis = quat.rotate(dst_rest, X)
    swing_axis = np.cross(roll_axis, [0.3, 0.9, 0.2])
    turn = quat.multiply(axis_angle(swing_axis, 35), axis_angle(roll_axis, 60))
    source_local = quat.multiply(turn, src_rest)
    rt = runtime(model, lambda pose, dt, t: pose.set_local_rotation(src, source_local))
    world = rt.update(FRAME).world.astype(np.float64)
    expected = quat.multiply(world_rotation(world, parent),
                             quat.multiply(axis_angle(roll_axis, 30), dst_rest))
    assert_same_rotation(world_rotation(world, dst), expected, tol_deg=0.1)
    assert_same_rotation(rt.pose.rotation[src], source_local)  # the source is untouched


def test_aim_constraint_points_its_z_axis_at_a_moving_source(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    dst = add_node(b, parent, "eye_aim", (0.0, 0.05, 0.0), axis_angle(X, 30))
    src = add_node(b, parent, "target", (0.0, 0.0, 1.0))
    constrain(b, dst, "aim", source=src, aimAxis="PositiveZ")
    model = load(b, tmp_path)
    assert [c.kind for c in model.constraints] == ["aim"] and model.constraints[0].weight == 1.0
    spots = [(0.0, 0.0, 1.0), (0.8, 0.5, 0.2), (-0.4, -0.9, -0.3), (0.1, 1.5, 0.0)]
    state = {"spot": spots[0]}
    rt = runtime(model, lambda pose, dt, t: pose.translation.__setitem__(src, state["spot"]))
    for spot in spots:
        state["spot"] = spot
        world = rt.update(FRAME).world.astype(np.float64)
        direction = world[src, :3, 3] - world[dst, :3, 3]
        aim = world[dst, :3, 2] / np.linalg.norm(world[dst, :3, 2])
        assert np.dot(aim, direction / np.linalg.norm(direction)) == pytest.approx(1.0, abs=1e-5)
    assert np.linalg.norm(world[dst, :3, 3] - world[parent, :3, 3]) == pytest.approx(0.05, 1e-4)


def test_rotation_constraint_copies_the_source_delta_and_runs_in_dependency_order(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    # dst2 (copies dst1) has a lower node index than dst1 (copies src): file order is wrong
    dst2 = add_node(b, parent, "copy_of_copy", (0, 0.2, 0), axis_angle(X, -50))
    dst1 = add_node(b, parent, "copy", (0, 0.1, 0), axis_angle(Y, 70))
    src = add_node(b, parent, "driver", (0, 0, 0.1), axis_angle([0, 1, 1], 20))
    constrain(b, dst2, "rotation", source=dst1)
    constrain(b, dst1, "rotation", source=src, weight=1.0)
    model = load(b, tmp_path)
    assert len(model.constraints) == 2
    delta = quat.multiply(axis_angle(Z, 45), axis_angle(X, 20))
    source_local = quat.multiply(model.nodes[src].rotation, delta)
    rt = runtime(model, lambda pose, dt, t: pose.set_local_rotation(src, source_local))
    rt.trace = []
    world = rt.update(FRAME).world.astype(np.float64)
    assert rt.trace == ["animation", "humanoid", "look_at", "expressions", "constraints",
                        "spring"]
    parent_rot = world_rotation(world, parent)
    for node, rest in ((dst1, axis_angle(Y, 70)), (dst2, axis_angle(X, -50))):
        expected = quat.multiply(parent_rot, quat.multiply(rest, delta))
        assert_same_rotation(world_rotation(world, node), expected)


def test_weight_zero_holds_the_rest_and_half_weight_goes_half_way():
    model = VrmModel(version="1.0", nodes=[], scene_roots=[0])
    model.nodes = [Node("root", children=[1, 2, 3]), Node("src", parent=0),
                   Node("half", parent=0), Node("none", parent=0)]
    pose = Pose(model)
    solver = ConstraintSolver([NodeConstraint("rotation", 2, 1, weight=0.5),
                               NodeConstraint("rotation", 3, 1, weight=0.0)], pose.skeleton)
    pose.set_local_rotation(1, axis_angle(Y, 80))
    pose.set_local_rotation(3, axis_angle(X, 10))  # animated, but the constraint decides
    solver.apply(pose)
    assert_same_rotation(pose.rotation[2], axis_angle(Y, 40))
    assert_same_rotation(pose.rotation[3], quat.identity())


def test_invalid_constraints_are_dropped_with_clear_problems(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    a = add_node(b, parent, "a")
    c = add_node(b, parent, "c")
    others = [add_node(b, parent, f"n{i}") for i in range(5)]
    constrain(b, a, "rotation", source=c)  # a <- c <- a: a cycle
    constrain(b, c, "roll", source=a, rollAxis="Y")
    constrain(b, others[0], "rotation", source=999)
    constrain(b, others[1], "aim", source=others[1], aimAxis="PositiveX")
    constrain(b, others[2], "aim", source=a, aimAxis="Sideways")
    constrain(b, others[3], "rotation", source=parent, weight=7.5)  # valid, weight bounded
    add_node(b, others[4], "child")
    constrain(b, others[4], "aim", source=others[4] + 1, aimAxis="PositiveY")  # own child
    model = load(b, tmp_path)
    assert model.constraints == [NodeConstraint("rotation", others[3], parent, "", 1.0)]
    messages = [p.message for p in model.problems if "constraint" in p.message]
    text = " | ".join(messages)
    assert text.count("cycle") == 3  # a, c and the aim at its own child
    assert "source node 999, which does not exist" in text
    assert "uses its own node as the source" in text
    assert "aimAxis 'Sideways'" in text
    assert all(p.action == "the constraint is dropped" for p in model.problems
               if "constraint" in p.message)
    rt = runtime(model)
    frame = rt.update(FRAME)
    assert np.all(np.isfinite(frame.world))


def test_garbage_constraint_values_never_crash_the_loader(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    nodes = [add_node(b, parent, f"g{i}") for i in range(6)]
    bodies = [{"roll": {"source": [1, 2], "rollAxis": ["X"]}},
              {"aim": {"source": parent, "aimAxis": {"x": 1}, "weight": "lots"}},
              {"rotation": {"source": True}}, {"rotation": None}, "nonsense", {}]
    for node, body in zip(nodes, bodies, strict=True):
        b.json["nodes"][node]["extensions"] = {"VRMC_node_constraint": {"constraint": body}}
    b.json["nodes"][nodes[0]]["extensions"]["VRMC_node_constraint"]["specVersion"] = ["1.0"]
    model = load(b, tmp_path)
    assert model.constraints == []
    dropped = [p for p in model.problems if p.action == "the constraint is dropped"]
    assert len(dropped) == 6
    assert all(len(p.message) < 200 for p in dropped)


def test_report_counts_the_constraints(tmp_path):
    b = minimal_avatar("1.0")
    parent = rig(b)
    src = add_node(b, parent, "src")
    for i, kind in enumerate(("roll", "roll", "aim")):
        node = add_node(b, parent, f"d{i}", (0.1 * i, 0, 0))
        spec = {"rollAxis": "Z"} if kind == "roll" else {"aimAxis": "NegativeY"}
        constrain(b, node, kind, source=src, **spec)
    report = inspect(load(b, tmp_path))
    assert report["constraints"] == {"roll": 2, "aim": 1, "rotation": 0}
    assert "Node constraints: 3 (2 roll, 1 aim, 0 rotation)" in format_report(report)


def test_aim_runs_after_the_constraint_that_turns_its_parent():
    model = VrmModel(version="1.0", nodes=[], scene_roots=[0, 1])
    model.nodes = [Node("driver"), Node("pivot", children=[2]), Node("aimer", parent=1),
                   Node("target", translation=np.array([0.0, 1.0, 0.5], np.float32))]
    model.nodes[2].translation = np.array([0.0, 0.0, 0.2], np.float32)
    pose = Pose(model)
    solver = ConstraintSolver([NodeConstraint("aim", 2, 3, "PositiveZ"),
                               NodeConstraint("rotation", 1, 0)], pose.skeleton)
    pose.set_local_rotation(0, axis_angle(X, -70))
    solver.apply(pose)
    world = pose.world_matrices()
    direction = world[3, :3, 3] - world[2, :3, 3]
    assert np.dot(world[2, :3, 2], direction / np.linalg.norm(direction)) == \
        pytest.approx(1.0, abs=1e-6)
