"""Look-at: yaw/pitch from the head, range maps, bone and expression outputs, smoothing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.expressions import ExpressionManager
from companion_desktop.avatar.vrm.look_at import (
    LookAtController,
    eye_angles,
    look_expression_weights,
    map_range,
    smooth_critical,
)
from companion_desktop.avatar.vrm.model import LookAt, RangeMap
from companion_desktop.avatar.vrm.pose import Pose
from tests.avatar.runtime.runtime_models import humanoid

LOOK = LookAt(
    horizontal_inner=RangeMap(30.0, 8.0),
    horizontal_outer=RangeMap(40.0, 12.0),
    vertical_down=RangeMap(20.0, 6.0),
    vertical_up=RangeMap(25.0, 5.0),
)
EYE_HEIGHT = 1.5 + 0.06  # head y + offset_from_head


@pytest.mark.parametrize(("degrees", "out"), [(0.0, 0.0), (-10.0, 0.0), (20.0, 6.0), (40.0, 12.0),
                                              (90.0, 12.0)])
def test_map_range(degrees, out):
    assert map_range(LOOK.horizontal_outer, degrees) == pytest.approx(out)


@pytest.mark.parametrize(("yaw", "pitch", "left", "right"), [
    (0.0, 0.0, (0.0, 0.0), (0.0, 0.0)),
    (20.0, 0.0, (6.0, 0.0), (8.0 * 20 / 30, 0.0)),     # her left: left eye outward
    (-15.0, 0.0, (-4.0, 0.0), (-4.5, 0.0)),            # her right: left eye inward
    (30.0, 0.0, (9.0, 0.0), (8.0, 0.0)),               # inner limit reached
    (60.0, 0.0, (12.0, 0.0), (8.0, 0.0)),              # both limits reached
    (-90.0, 0.0, (-8.0, 0.0), (-12.0, 0.0)),
    (0.0, 25.0, (0.0, 5.0), (0.0, 5.0)),               # up limit
    (0.0, 12.5, (0.0, 2.5), (0.0, 2.5)),
    (0.0, -10.0, (0.0, -3.0), (0.0, -3.0)),            # down
    (0.0, -45.0, (0.0, -6.0), (0.0, -6.0)),
])
def test_bone_type_eye_angles(yaw, pitch, left, right):
    got_left, got_right = eye_angles(LOOK, yaw, pitch)
    assert got_left == pytest.approx(left) and got_right == pytest.approx(right)


@pytest.mark.parametrize(("yaw", "pitch", "expected"), [
    (0.0, 0.0, {}),
    (20.0, 0.0, {"lookLeft": 0.5}),
    (-40.0, 0.0, {"lookRight": 1.0}),
    (-80.0, 0.0, {"lookRight": 1.0}),
    (0.0, 10.0, {"lookUp": 0.4}),
    (0.0, -20.0, {"lookDown": 1.0}),
    (10.0, -5.0, {"lookLeft": 0.25, "lookDown": 0.25}),
])
def test_expression_type_weights(yaw, pitch, expected):
    look = LookAt(type="expression", horizontal_outer=RangeMap(40.0, 1.0),
                  vertical_up=RangeMap(25.0, 1.0), vertical_down=RangeMap(20.0, 1.0))
    got = look_expression_weights(look, yaw, pitch)
    assert got == pytest.approx({"lookLeft": 0.0, "lookRight": 0.0, "lookUp": 0.0,
                                 "lookDown": 0.0, **expected})


MODELS = {"axis-aligned": {}, "twisted": {"twist": 4}, "vrm0": {"vrm0": True, "twist": 9}}


def model_with_eye_offset(**kwargs):
    """The humanoid with ``offset_from_head`` (head node space) 6 cm above the head."""
    model = humanoid(**kwargs)
    head = Pose(model).skeleton.rest_world_rotation[model.humanoid["head"]]
    model.look_at.offset_from_head = quat.rotate(quat.conjugate(head), np.array([0, 0.06, 0]))
    return model
TARGETS = [  # world target, expected (yaw, pitch)
    ((0.0, EYE_HEIGHT, 2.0), (0.0, 0.0)),
    ((1.0, EYE_HEIGHT, 1.0), (45.0, 0.0)),
    ((-1.0, EYE_HEIGHT, math.sqrt(3.0)), (-30.0, 0.0)),
    ((0.0, EYE_HEIGHT + 1.0, 1.0), (0.0, 45.0)),
    ((0.0, EYE_HEIGHT - 0.5, 0.5), (0.0, -45.0)),
]


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize(("target", "expected"), TARGETS)
def test_goal_is_measured_from_the_head_in_world_aligned_axes(name, target, expected):
    model = model_with_eye_offset(**MODELS[name])
    pose = Pose(model)
    look = LookAtController(model)
    look.look_at(np.array(target))
    assert look.goal(pose, pose.world_matrices()) == pytest.approx(expected, abs=1e-4)


def test_goal_follows_the_head_turn():
    model = model_with_eye_offset(twist=2)
    pose = Pose(model)
    pose.set_bone_rotation("head", quat.from_axis_angle(np.array([0.0, 1.0, 0.0]),
                                                        math.radians(30)))
    pose.apply_humanoid()
    look = LookAtController(model)
    look.look_at(np.array([0.0, EYE_HEIGHT, 50.0]))
    yaw, _ = look.goal(pose, pose.world_matrices())
    assert yaw == pytest.approx(-30.0, abs=0.2)


def _eye_direction(pose: Pose, world, bone: str) -> tuple[float, float]:
    node = pose.model.humanoid[bone]
    basis = world[node, :3, :3] / np.linalg.norm(world[node, :3, :3], axis=0)
    rest = quat.to_matrix(pose.skeleton.rest_world_rotation[node])
    d = basis @ rest.T @ np.array([0.0, 0.0, 1.0])
    yaw = math.degrees(math.atan2(d[0], d[2]))
    return yaw, math.degrees(math.atan2(d[1], math.hypot(d[0], d[2])))


@pytest.mark.parametrize("name", MODELS)
def test_bone_type_turns_the_eyes_by_the_mapped_angles(name):
    model = model_with_eye_offset(**MODELS[name])
    model.look_at.horizontal_inner = LOOK.horizontal_inner
    model.look_at.horizontal_outer = LOOK.horizontal_outer
    pose = Pose(model)
    look = LookAtController(model)
    look.look_at(np.array([1.0, EYE_HEIGHT, 1.0]))  # 45 degrees to her left
    for _ in range(200):
        look.update(pose, pose.world_matrices(), 1 / 60)
    assert (look.yaw, look.pitch) == pytest.approx((45.0, 0.0), abs=1e-3)
    world = pose.world_matrices()
    assert _eye_direction(pose, world, "leftEye") == pytest.approx((12.0, 0.0), abs=1e-3)
    assert _eye_direction(pose, world, "rightEye") == pytest.approx((8.0, 0.0), abs=1e-3)


def test_expression_type_sets_look_weights():
    model = humanoid(face=True, look_type="expression")
    model.look_at.horizontal_outer = RangeMap(90.0, 1.0)
    model.look_at.vertical_up = RangeMap(90.0, 1.0)
    pose = Pose(model)
    manager = ExpressionManager(model)
    look = LookAtController(model, omega=1e6)
    look.look_at(np.array([1.0, EYE_HEIGHT, 1.0]))
    look.update(pose, pose.world_matrices(), 1.0, manager)
    assert manager.get("lookLeft") == pytest.approx(0.5, abs=1e-4)
    assert manager.get("lookRight") == 0.0
    look.look_at(None)
    look.update(pose, pose.world_matrices(), 1.0, manager)
    assert manager.get("lookLeft") == 0.0


@pytest.mark.parametrize("frame_times", [[1 / 60] * 120, [1 / 144] * 300,
                                         list(np.random.default_rng(1).uniform(0, 0.1, 60))])
def test_smoothing_is_critically_damped_without_overshoot(frame_times):
    value, velocity, history = 0.0, 0.0, []
    for dt in frame_times:
        value, velocity = smooth_critical(value, velocity, 30.0, 14.0, dt)
        history.append(value)
    assert all(b >= a for a, b in zip(history, history[1:], strict=False))
    assert max(history) <= 30.0
    assert history[-1] == pytest.approx(30.0, abs=0.05)
    # a moving goal that reverses never sends it past the new goal
    value, velocity = smooth_critical(10.0, 500.0, 0.0, 14.0, 0.05)
    assert value >= 0.0
