"""Quaternion helpers and the pose: normalized humanoid, world and joint matrices."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.frame import (
    joint_matrices,
    rest_frame,
    trs_matrix,
    world_matrices,
)
from companion_desktop.avatar.vrm.pose import Pose
from tests.avatar.runtime.runtime_models import humanoid

RNG = np.random.default_rng(3)
Z = np.array([0.0, 0.0, 1.0])
Y = np.array([0.0, 1.0, 0.0])
X = np.array([1.0, 0.0, 0.0])


def test_multiply_matches_matrix_composition_and_rotate():
    a, b = quat.normalize(RNG.normal(size=(6, 4))), quat.normalize(RNG.normal(size=(6, 4)))
    np.testing.assert_allclose(quat.to_matrix(quat.multiply(a, b)),
                               quat.to_matrix(a) @ quat.to_matrix(b), atol=1e-12)
    v = RNG.normal(size=(6, 3))
    np.testing.assert_allclose(quat.rotate(a, v), np.einsum("nij,nj->ni", quat.to_matrix(a), v),
                               atol=1e-12)
    np.testing.assert_allclose(quat.multiply(a, quat.conjugate(a)), quat.identity(6), atol=1e-12)


def test_matrix_round_trip_and_frame_agreement():
    q = quat.normalize(RNG.normal(size=(8, 4)))
    back = quat.from_matrix(quat.to_matrix(q))
    np.testing.assert_allclose(np.abs(np.sum(back * q, axis=-1)), 1.0, atol=1e-12)
    m = trs_matrix(np.zeros(3), q[0].astype(np.float32), np.ones(3))
    np.testing.assert_allclose(m[:3, :3], quat.to_matrix(q[0]), atol=1e-6)
    assert np.allclose(quat.to_matrix(np.zeros(4)), np.eye(3))


@pytest.mark.parametrize(("axis", "angle", "v", "expected"), [
    (Z, math.pi / 2, X, Y),
    (Y, math.pi / 2, Z, X),
    (X, math.pi / 2, Y, Z),
])
def test_axis_angle_is_right_handed(axis, angle, v, expected):
    np.testing.assert_allclose(quat.rotate(quat.from_axis_angle(axis, angle), v), expected,
                               atol=1e-12)


def test_euler_yxz_is_yaw_then_pitch():
    q = quat.from_euler(0.3, 0.5, 0.1, "YXZ")
    expected = quat.multiply(quat.multiply(quat.from_axis_angle(Y, 0.5),
                                           quat.from_axis_angle(X, 0.3)),
                             quat.from_axis_angle(Z, 0.1))
    np.testing.assert_allclose(q, expected, atol=1e-12)


@pytest.mark.parametrize(("a", "b"), [(X, Y), (Z, -Z), (Y, -Y), (X, X), ((1, 2, 3), (-3, 0.5, 2))])
def test_from_unit_vectors(a, b):
    q = quat.from_unit_vectors(np.array(a, float), np.array(b, float))
    b = np.array(b, float) / np.linalg.norm(b)
    np.testing.assert_allclose(quat.rotate(q, np.array(a, float) / np.linalg.norm(a)), b,
                               atol=1e-9)


def test_slerp_ends_middle_and_short_arc():
    a, b = quat.identity(), quat.from_axis_angle(Y, 1.0)
    np.testing.assert_allclose(quat.slerp(a, b, 0.0), a, atol=1e-12)
    np.testing.assert_allclose(quat.slerp(a, b, 1.0), b, atol=1e-12)
    np.testing.assert_allclose(quat.slerp(a, b, 0.5), quat.from_axis_angle(Y, 0.5), atol=1e-12)
    np.testing.assert_allclose(quat.slerp(a, -b, 0.5), quat.from_axis_angle(Y, 0.5), atol=1e-12)
    assert quat.angle_between(a, b) == pytest.approx(1.0)


# -- pose ---------------------------------------------------------------------------

SKELETONS = {"axis-aligned": {}, "twisted": {"twist": 7}, "other twist": {"twist": 11},
             "vrm0 (root pi)": {"vrm0": True}, "vrm0 twisted": {"vrm0": True, "twist": 5}}


def _positions(model, pose: Pose) -> dict[str, np.ndarray]:
    world = pose.world_matrices()
    return {bone: world[node, :3, 3] for bone, node in model.humanoid.items()}


def _posed(kwargs) -> tuple[object, Pose]:
    model = humanoid(fingers=True, **kwargs)
    pose = Pose(model)
    pose.set_bone_rotation("leftUpperArm", quat.from_axis_angle(Z, -math.radians(60)))
    pose.set_bone_rotation("leftLowerArm", quat.from_axis_angle(Y, math.radians(45)))
    pose.set_bone_rotation("spine", quat.from_euler(0.1, 0.3, -0.05))
    pose.set_bone_rotation("head", quat.from_axis_angle(X, math.radians(20)))
    pose.set_bone_rotation("rightUpperLeg", quat.from_axis_angle(X, -math.radians(30)))
    pose.set_hips_offset(np.array([0.02, -0.1, 0.05]))
    pose.apply_humanoid()
    return model, pose


def test_rest_positions_agree_across_skeletons():
    reference = None
    for kwargs in SKELETONS.values():
        model = humanoid(**kwargs)
        positions = _positions(model, Pose(model))
        if reference is None:
            reference = positions
        for bone, p in positions.items():
            np.testing.assert_allclose(p, reference[bone], atol=1e-5, err_msg=bone)


@pytest.mark.parametrize("name", list(SKELETONS)[1:])
def test_normalized_rotation_looks_the_same_on_any_skeleton(name):
    reference_model, reference = _posed({})
    model, pose = _posed(SKELETONS[name])
    want, got = _positions(reference_model, reference), _positions(model, pose)
    for bone in want:
        np.testing.assert_allclose(got[bone], want[bone], atol=1e-5, err_msg=bone)


@pytest.mark.parametrize("name", list(SKELETONS))
def test_normalized_rotation_is_in_world_aligned_axes(name):
    model = humanoid(**SKELETONS[name])
    pose = Pose(model)
    pose.set_bone_rotation("leftUpperArm", quat.from_axis_angle(Z, -math.radians(60)))
    pose.apply_humanoid()
    got = _positions(model, pose)
    arm = got["leftLowerArm"] - got["leftUpperArm"]  # +X is her left, the arm turns down
    np.testing.assert_allclose(arm / np.linalg.norm(arm),
                               [math.cos(math.radians(60)), -math.sin(math.radians(60)), 0],
                               atol=1e-5)


def test_hips_offset_is_world_aligned():
    for kwargs in SKELETONS.values():
        model = humanoid(**kwargs)
        pose = Pose(model)
        rest = _positions(model, pose)["hips"]
        pose.set_hips_offset(np.array([0.1, -0.2, 0.3]))
        pose.apply_humanoid()
        np.testing.assert_allclose(_positions(model, pose)["hips"] - rest, [0.1, -0.2, 0.3],
                                   atol=1e-6)


def test_missing_bone_is_ignored_and_reset_restores_rest():
    model = humanoid()
    pose = Pose(model)
    pose.set_bone_rotation("jaw", quat.from_axis_angle(X, 1.0))
    assert not pose.has_bone("jaw")
    np.testing.assert_allclose(pose.bone_rotation("jaw"), quat.identity())
    pose.set_bone_rotation("head", quat.from_axis_angle(X, 1.0))
    pose.apply_humanoid()
    pose.reset()
    np.testing.assert_allclose(pose.world_matrices(), rest_frame(model).world, atol=1e-6)


@pytest.mark.parametrize("kwargs", [{}, {"twist": 3, "hair": 2}, {"vrm0": True, "fingers": True}])
def test_world_and_joint_matrices_match_the_frame_reference(kwargs):
    model = humanoid(**kwargs)
    pose = Pose(model)
    pose.rotation[:] = quat.normalize(RNG.normal(size=pose.rotation.shape))
    pose.translation += RNG.normal(scale=0.01, size=pose.translation.shape)
    locals_ = np.stack([trs_matrix(t, r.astype(np.float32), s) for t, r, s in
                        zip(pose.translation, pose.rotation, pose.scale, strict=True)])
    reference = world_matrices(model, locals_)
    world = pose.world_matrices()
    np.testing.assert_allclose(world, reference, atol=1e-5)
    for ours, theirs in zip(pose.joint_matrices(world), joint_matrices(model, reference),
                            strict=True):
        np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_rest_joint_matrices_are_the_root_rotation():
    for vrm0 in (False, True):
        model = humanoid(vrm0=vrm0)
        pose = Pose(model)
        root = quat.to_matrix(quat.from_axis_angle(Y, model.root_rotation_y))
        for m in pose.joint_matrices(pose.world_matrices())[0]:
            np.testing.assert_allclose(m[:3, :3], root, atol=1e-5)
            np.testing.assert_allclose(m[:3, 3], 0.0, atol=1e-5)
