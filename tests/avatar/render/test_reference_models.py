"""GPU skinning and morph targets against the numpy reference, on the Khronos samples
RiggedSimple, Fox and AnimatedMorphCube: the rendered silhouette must cover exactly the
pixels the CPU-posed triangles project to (bounding box within 2 px, and the CPU
vertices all land on rendered pixels)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import fit_box
from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.frame import Frame, joint_matrices, rest_locals, world_matrices
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.skinning import apply_morphs, skin_vertices
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl
W, H = 256, 256


def sample(name):
    path = SHARED_ASSETS / "gltf" / name
    if not path.is_file():
        pytest.skip("shared assets not present")
    return load_model(path)


def posed_frame(model, bends: dict[int, float], morphs: float = 0.0) -> Frame:
    """Rotate the given joints (node index -> degrees about their local Z) from rest."""
    locals_ = rest_locals(model)
    for node, degrees in bends.items():
        turn = quat.to_matrix(quat.from_axis_angle(np.array([0.0, 0.0, 1.0]),
                                                   math.radians(degrees)))
        m = np.eye(4, dtype=np.float32)
        m[:3, :3] = turn
        locals_[node] = locals_[node] @ m
    world = world_matrices(model, locals_)
    weights = [np.full(len(mesh.primitives[0].targets) if mesh.primitives else 0, morphs,
                       np.float32)
               for mesh in model.meshes]
    return Frame(world, joint_matrices(model, world), weights)


def cpu_points(model, frame: Frame) -> np.ndarray:
    """Every vertex posed on the CPU (morphs, then skinning or the node transform)."""
    out = []
    for index, node in enumerate(model.nodes):
        if node.mesh is None:
            continue
        for prim in model.meshes[node.mesh].primitives:
            positions, normals = apply_morphs(prim, frame.morph_weights[node.mesh])
            if node.skin is not None and prim.joints is not None:
                positions, _ = skin_vertices(prim, frame.joint_matrices[node.skin], positions,
                                             normals)
            else:
                m = frame.world[index]
                positions = positions @ m[:3, :3].T + m[:3, 3]
            out.append(np.asarray(positions, np.float64))
    return np.concatenate(out)


def check(render, model, frame):
    points = cpu_points(model, frame)
    camera = fit_box(points.min(axis=0), points.max(axis=0), W / H, 30.0, 0.15)
    rgba = render(model, frame, width=W, height=H, camera=camera)
    alpha = rgba[..., 3] > 0
    ys, xs = np.nonzero(alpha)
    xy = camera.project(points.astype(np.float32), W, H)
    assert abs(xs.min() - xy[:, 0].min()) <= 2 and abs(xs.max() + 1 - xy[:, 0].max()) <= 2
    assert abs(ys.min() - xy[:, 1].min()) <= 2 and abs(ys.max() + 1 - xy[:, 1].max()) <= 2
    inside = np.clip(np.floor(xy).astype(int), 0, [W - 1, H - 1])
    grown = alpha.copy()  # a vertex on a silhouette edge may land a pixel outside coverage
    grown[1:] |= alpha[:-1]
    grown[:-1] |= alpha[1:]
    grown[:, 1:] |= alpha[:, :-1]
    grown[:, :-1] |= alpha[:, 1:]
    assert grown[inside[:, 1], inside[:, 0]].mean() > 0.99
    return rgba


def test_rigged_simple_bent(render):
    model = sample("RiggedSimple.glb")
    joints = model.skins[0].joints
    rest = check(render, model, posed_frame(model, {}))
    bent = check(render, model, posed_frame(model, {joints[-1]: 70.0}))
    assert (rest[..., 3] > 0).sum() != (bent[..., 3] > 0).sum()


def test_fox_with_bent_neck_and_tail(render):
    model = sample("Fox.glb")
    joints = model.skins[0].joints
    check(render, model, posed_frame(model, {joints[3]: 35.0, joints[-1]: -40.0}))


@pytest.mark.parametrize("weight", [0.0, 1.0])
def test_animated_morph_cube(render, weight):
    model = sample("AnimatedMorphCube.glb")
    check(render, model, posed_frame(model, {}, morphs=weight))
