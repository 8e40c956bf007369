"""Spring bones: gravity, rest, colliders, fixed steps, center space, jitter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm.model import (
    Collider,
    ColliderGroup,
    Node,
    SpringChain,
    SpringJoint,
    VrmModel,
)
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.avatar.vrm.spring import MAX_DT_S, STEP_S, SpringSimulator, collide
from tests.avatar.runtime.runtime_models import humanoid

SEGMENT = 0.1


def chain_model(joints: int = 5, *, gravity: float = 1.0, stiffness: float = 0.0,
                drag: float = 0.2, hit_radius: float = 0.0, center: bool = False,
                direction=(1.0, 0.0, 0.0)) -> VrmModel:
    """root -> base (y = 1) -> j0 .. j{n-1}, each SEGMENT along ``direction``."""
    nodes = [Node("root", None, [1]), Node("base", 0, [], translation=np.float32([0, 1, 0]))]
    step = np.float32(direction) * SEGMENT
    for k in range(joints):
        parent = len(nodes) - 1
        nodes[parent].children.append(len(nodes))
        nodes.append(Node(f"j{k}", parent, translation=np.zeros(3, np.float32) if k == 0 else step))
    chain = SpringChain("chain", [SpringJoint(2 + k, hit_radius=hit_radius, stiffness=stiffness,
                                              gravity_power=gravity, drag_force=drag)
                                  for k in range(joints)], center=1 if center else None)
    return VrmModel("1.0", nodes, [0], springs=[chain])


def simulate(model: VrmModel, frame_times, pose: Pose | None = None, move=None):
    pose = pose or Pose(model)
    sim = SpringSimulator(model, pose)
    tails = []
    for i, dt in enumerate(frame_times):
        pose.reset()
        if move is not None:
            move(pose, i)
        sim.update(pose, pose.world_matrices(), dt)
        tails.append(sim.tail_world().copy())
    return sim, pose, tails


def _heads(model: VrmModel, pose: Pose) -> np.ndarray:
    world = pose.world_matrices()
    return world[[j.node for j in model.springs[0].joints], :3, 3]


def test_a_chain_under_gravity_hangs_down_and_comes_to_rest():
    model = chain_model()
    sim, pose, tails = simulate(model, [STEP_S] * 600)
    heads = _heads(model, pose)
    segments = np.diff(heads, axis=0)
    np.testing.assert_allclose(np.linalg.norm(segments, axis=1), SEGMENT, atol=1e-6)
    directions = segments / SEGMENT
    assert np.all(directions[:, 1] < -0.999)  # straight down
    assert np.max(np.abs(tails[-1] - tails[-2])) < 1e-7  # at rest
    # the pose agrees with the simulated tails
    np.testing.assert_allclose(heads[1:], tails[-1], atol=1e-6)


def test_energy_decreases():
    model = chain_model(drag=0.1)
    _, _, tails = simulate(model, [STEP_S] * 600)
    tails = np.array(tails)
    speed = np.linalg.norm(np.diff(tails, axis=0), axis=-1) / STEP_S
    energy = 0.5 * np.sum(speed ** 2, axis=1) + 1.0 / STEP_S * np.sum(tails[1:, :, 1], axis=1)
    windows = energy[: 600 - 599 % 30 - 1].reshape(-1, 30).max(axis=1)
    assert np.all(np.diff(windows) <= 1e-9)
    assert windows[-1] < windows[0]


def test_stiffness_returns_to_the_rest_direction():
    model = chain_model(gravity=0.0, stiffness=2.0, drag=0.3)

    def push(pose, i):  # tilt the base for the first half second, then let go
        if i < 30:
            pose.rotation[1] = [0, 0, math.sin(0.3), math.cos(0.3)]

    _, pose, tails = simulate(model, [STEP_S] * 400, move=push)
    directions = np.diff(_heads(model, pose), axis=0) / SEGMENT
    np.testing.assert_allclose(directions, np.tile([1.0, 0, 0], (len(directions), 1)), atol=1e-3)


@pytest.mark.parametrize(("point", "expected_dist"), [
    ((0.05, 0.0, 0.0), 0.13), ((0.0, -0.01, 0.0), 0.13), ((0.2, 0.0, 0.0), 0.2),
])
def test_sphere_collision_pushes_out_to_radius_plus_hit_radius(point, expected_dist):
    center = np.zeros(3)
    pushed = collide(np.array(point), center, center, 0.1, 0.03)
    assert np.linalg.norm(pushed - center) == pytest.approx(expected_dist)
    direction = np.array(point) / np.linalg.norm(point)
    np.testing.assert_allclose(pushed / np.linalg.norm(pushed), direction, atol=1e-12)


@pytest.mark.parametrize(("point", "expected"), [
    ((0.0, 0.05, 0.5), (0.0, 0.12, 0.5)),     # beside the shaft: straight out
    ((0.0, 0.0, 1.05), (0.0, 0.0, 1.12)),     # past the tail: the end cap
    ((0.03, 0.0, -0.04), (0.12 * 0.6, 0.0, -0.12 * 0.8)),  # before the head: the head cap
    ((0.0, 0.5, 0.5), (0.0, 0.5, 0.5)),       # outside: untouched
])
def test_capsule_collision(point, expected):
    pushed = collide(np.array(point, float), np.zeros(3), np.array([0, 0, 1.0]), 0.1, 0.02)
    np.testing.assert_allclose(pushed, expected, atol=1e-12)


def _hanging_with_collider(shape: str) -> tuple[VrmModel, np.ndarray]:
    """One bone hanging from (0, 1, 0) to (0, 0.9, 0); a collider 3 cm beside the tail."""
    model = chain_model(joints=2, direction=(0, -1, 0), hit_radius=0.01, drag=0.3)
    center = np.array([0.03, 0.9, 0.0])
    if shape == "sphere":
        model.colliders = [Collider(0, "sphere", center.astype(np.float32), 0.05)]
    else:
        model.colliders = [Collider(0, "capsule", (center + [0, 0, -0.2]).astype(np.float32), 0.05,
                                    tail=(center + [0, 0, 0.2]).astype(np.float32))]
    model.collider_groups = [ColliderGroup("g", [0])]
    model.springs[0].collider_groups = [0]
    return model, center


@pytest.mark.parametrize("shape", ["sphere", "capsule"])
def test_collider_holds_the_joint_at_radius_plus_hit_radius(shape):
    model, center = _hanging_with_collider(shape)
    _, pose, tails = simulate(model, [STEP_S] * 300)
    tail = tails[-1][0]
    assert np.linalg.norm(tail - center) == pytest.approx(0.06, abs=1e-6)
    assert np.linalg.norm(tail - [0, 1, 0]) == pytest.approx(SEGMENT, abs=1e-7)
    assert tail[0] < 0  # pushed away from the collider, to -x
    for frame_tails in tails:
        assert np.linalg.norm(frame_tails[0] - center) >= 0.06 - 1e-6


def test_fixed_step_makes_60_and_144_fps_agree():
    model = chain_model(drag=0.15)
    sim60, _, t60 = simulate(model, [1 / 60] * 120)
    sim144, _, t144 = simulate(model, [1 / 144] * 288)
    np.testing.assert_allclose(t60[-1], t144[-1], atol=1e-9)
    assert sim60.accumulator == pytest.approx(sim144.accumulator, abs=1e-6)


def test_stable_with_dt_jitter_and_hitches():
    model = chain_model(drag=0.15)
    rng = np.random.default_rng(0)
    jitter = list(rng.uniform(0.0, 0.05, 300)) + [2.5] + list(rng.uniform(0.0, 0.05, 300))
    sim, pose, tails = simulate(model, jitter)
    assert all(np.all(np.isfinite(t)) for t in tails)
    lengths = np.linalg.norm(np.diff(_heads(model, pose), axis=0), axis=1)
    np.testing.assert_allclose(lengths, SEGMENT, atol=1e-6)
    steady = simulate(model, [STEP_S] * 1200)[2][-1]
    np.testing.assert_allclose(tails[-1], steady, atol=1e-4)
    assert MAX_DT_S == 0.1
    # a hitch is capped: a 2.5 s frame runs at most 0.1 s of steps
    sim2 = SpringSimulator(model, Pose(model))
    assert sim2.update(Pose(model), Pose(model).world_matrices(), 2.5) == round(MAX_DT_S / STEP_S)


def _sway(pose: Pose, i: int) -> None:
    pose.translation[1] = [0.0, 1.0, 0.5 * math.sin(i * 0.2)]  # across the chain


def test_center_space_carries_the_chain_with_its_center():
    free = simulate(chain_model(gravity=0.0, stiffness=1.0), [STEP_S] * 60, move=_sway)
    centered = simulate(chain_model(gravity=0.0, stiffness=1.0, center=True), [STEP_S] * 60,
                        move=_sway)
    still = np.array([[0.1 * (k + 1), 1.0, 0.0] for k in range(4)])
    base = [0, 0, 0.5 * math.sin(59 * 0.2)]
    lag_free = np.abs(free[2][-1] - (still + base)).max()
    lag_centered = np.abs(centered[2][-1] - (still + base)).max()
    assert lag_centered < 1e-6 < 1e-3 < lag_free


def test_humanoid_chains_and_pose_write_back():
    model = humanoid(hair=3, hair_joints=5, colliders=True, gravity=1.0)
    pose = Pose(model)
    sim = SpringSimulator(model, pose)
    assert sim.count == 12 and len(sim.levels) == 4
    for _ in range(240):
        pose.reset()
        pose.apply_humanoid()
        sim.update(pose, pose.world_matrices(), STEP_S)
    world = pose.world_matrices()
    for chain in model.springs:
        heads = world[[j.node for j in chain.joints], :3, 3]
        np.testing.assert_allclose(np.linalg.norm(np.diff(heads, axis=0), axis=1),
                                   np.linalg.norm([0, 0.06, 0.005]), atol=1e-5)
        assert heads[-1, 1] < heads[0, 1]  # hanging
        head_sphere = world[model.humanoid["head"], :3, 3] + [0, 0.08, 0]
        assert np.all(np.linalg.norm(heads[1:] - head_sphere, axis=1) >= 0.12 - 1e-6)


def test_one_joint_chain_gets_a_virtual_tail():
    model = chain_model(joints=1, gravity=1.0)
    model.nodes[2].translation = np.float32([0.2, 0, 0])
    sim, _, tails = simulate(model, [STEP_S] * 200)
    assert sim.count == 1
    assert np.linalg.norm(tails[-1][0] - [0.2, 1, 0]) == pytest.approx(0.07, abs=1e-6)
    assert tails[-1][0][1] < 1.0 - 0.069
