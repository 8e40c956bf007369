"""CPU reference morphing and linear blend skinning on a hand-built two-joint mesh."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.model import Mesh, MorphTarget, Node, Primitive, Skin, VrmModel
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.avatar.vrm.skinning import apply_morphs, skin_vertices

# vertex, joint weights (j0, j1)
VERTICES = [
    ((0.0, 0.5, 0.0), (1.0, 0.0)),   # only the lower joint
    ((0.0, 1.5, 0.0), (0.0, 1.0)),   # only the upper joint
    ((0.2, 1.5, 0.0), (0.25, 0.75)),  # blended
    ((0.0, 1.0, 0.1), (0.5, 0.5)),   # on the joint
]


def two_joint_model() -> VrmModel:
    """j0 at the origin, j1 one metre up (child of j0); a skinned mesh node beside them."""
    positions = np.array([v for v, _ in VERTICES], np.float32)
    weights = np.array([(a, b, 0, 0) for _, (a, b) in VERTICES], np.float32)
    joints = np.tile(np.array([0, 1, 0, 0], np.uint16), (len(VERTICES), 1))
    normals = np.tile(np.float32([1, 0, 0]), (len(VERTICES), 1))
    targets = [MorphTarget(np.tile(np.float32([0, 0, 0.1]), (len(VERTICES), 1)),
                           np.tile(np.float32([0, 1, 0]), (len(VERTICES), 1)))]
    prim = Primitive(positions, normals, np.array([0, 1, 2, 0, 2, 3], np.uint32),
                     joints=joints, weights=weights, targets=targets)
    nodes = [Node("j0", None, [1]), Node("j1", 0, translation=np.float32([0, 1, 0])),
             Node("mesh", None, mesh=0, skin=0, translation=np.float32([5, 0, 0]))]
    ibm = np.stack([np.eye(4), np.linalg.inv(np.array(
        [[1, 0, 0, 0], [0, 1, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]], float))]).astype(np.float32)
    return VrmModel("gltf", nodes, [0, 2], meshes=[Mesh("m", [prim], ["push"])],
                    skins=[Skin([0, 1], ibm)])


def _skinned(model, rotation_j1):
    pose = Pose(model)
    pose.set_local_rotation(1, rotation_j1)
    joints = pose.joint_matrices(pose.world_matrices())[0]
    return skin_vertices(model.meshes[0].primitives[0], joints)


def test_rest_pose_leaves_vertices_in_place():
    model = two_joint_model()
    prim = model.meshes[0].primitives[0]
    positions, normals = _skinned(model, quat.identity())
    np.testing.assert_allclose(positions, prim.positions, atol=1e-6)
    np.testing.assert_allclose(normals, prim.normals, atol=1e-6)


@pytest.mark.parametrize("degrees", [30.0, 90.0, -120.0])
def test_rotating_the_upper_joint_moves_exactly_its_weighted_vertices(degrees):
    model = two_joint_model()
    q = quat.from_axis_angle(np.array([0.0, 0.0, 1.0]), math.radians(degrees))
    positions, normals = _skinned(model, q)
    r = quat.to_matrix(q)
    pivot = np.array([0.0, 1.0, 0.0])
    for (vertex, (w0, w1)), got in zip(VERTICES, positions, strict=True):
        v = np.array(vertex)
        expected = w0 * v + w1 * (pivot + r @ (v - pivot))
        np.testing.assert_allclose(got, expected, atol=1e-6)
    np.testing.assert_allclose(positions[0], VERTICES[0][0], atol=1e-7)  # j0-only: unmoved
    moved = np.linalg.norm(positions[1] - np.array(VERTICES[1][0]))
    assert moved == pytest.approx(2 * 0.5 * math.sin(math.radians(abs(degrees)) / 2), abs=1e-6)
    np.testing.assert_allclose(normals[1], r @ np.array([1.0, 0, 0]), atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-6)


def test_skinned_mesh_node_transform_is_ignored_and_unskinned_passes_through():
    model = two_joint_model()
    positions, _ = _skinned(model, quat.identity())
    assert np.all(positions[:, 0] < 1.0)  # the mesh node sits at x = 5: not applied
    prim = model.meshes[0].primitives[0]
    plain = Primitive(prim.positions, prim.normals, prim.indices)
    out, _ = skin_vertices(plain, np.eye(4)[None] * 2)
    np.testing.assert_array_equal(out, prim.positions)


@pytest.mark.parametrize("weight", [0.0, 0.5, 1.0])
def test_morphs_add_deltas_and_renormalize(weight):
    prim = two_joint_model().meshes[0].primitives[0]
    positions, normals = apply_morphs(prim, [weight])
    np.testing.assert_allclose(positions, prim.positions + [0, 0, 0.1 * weight], atol=1e-7)
    expected = np.array([1.0, weight, 0.0]) / math.hypot(1.0, weight)
    np.testing.assert_allclose(normals, np.tile(expected, (len(VERTICES), 1)), atol=1e-6)


def test_morph_then_skin():
    model = two_joint_model()
    prim = model.meshes[0].primitives[0]
    q = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), math.pi / 2)
    pose = Pose(model)
    pose.set_local_rotation(1, q)
    joints = pose.joint_matrices(pose.world_matrices())[0]
    positions, _ = skin_vertices(prim, joints, *apply_morphs(prim, [1.0]))
    # vertex 1 (upper joint only) at (0, 1.5, 0.1): a quarter turn about +Y takes +Z to +X
    np.testing.assert_allclose(positions[1], [0.1, 1.5, 0.0], atol=1e-6)
