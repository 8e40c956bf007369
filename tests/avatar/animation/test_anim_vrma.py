"""VRM Animation loading: the shared clips, and retargeting into the normalized space."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.animation import (
    apply_clip_pose,
    load_vrma,
    sample_clip,
    sample_track,
)
from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.pose import Pose, normalized_world_rotation
from tests.avatar.animation.conftest import GODETTE, HANA, shared
from tests.avatar.animation.vrma_files import VrmaBuilder, world_positions
from tests.avatar.loader.gltf_builder import minimal_avatar

#: file -> (humanoid bones animated, duration s, expressions).
INVENTORY = {
    "idle_loop.vrma": (21, 10.375, set()),
    "hips_spine_twisting.vrma": (6, 59.967, set()),
    "nop.vrma": (11, 0.0, set()),
    "test.vrma": (1, 3.0, {"happy"}),
}
RNG = np.random.default_rng(11)


def _bones(clip) -> set[str]:
    return set(clip.bone_rotations) | ({"hips"} if clip.hips_translation is not None else set())


@pytest.mark.parametrize("name", sorted(INVENTORY))
def test_shared_clips_load_as_inventoried(vrma_dir, name):
    bones, duration, expressions = INVENTORY[name]
    clip = load_vrma(vrma_dir / name)
    assert len(_bones(clip)) == bones
    assert clip.duration == pytest.approx(duration, abs=0.01)
    assert set(clip.expressions) == expressions
    assert clip.id == clip.name == name.removesuffix(".vrma")
    for track in clip.bone_rotations.values():
        assert track.quaternion
        assert np.allclose(np.linalg.norm(track.values, axis=-1), 1.0, atol=1e-6)
    for t in (0.0, duration / 3, duration * 0.77, duration + 1.0):
        pose = sample_clip(clip, t, 1.0)
        assert all(np.all(np.isfinite(q)) for q in pose.rotations.values())
        assert all(0.0 <= w <= 1.0 for w in pose.expressions.values())


def test_test_vrma_has_expression_and_look_at(vrma_dir):
    clip = load_vrma(vrma_dir / "test.vrma")
    assert set(clip.bone_rotations) == {"rightUpperArm"}
    weights = clip.expressions["happy"].values[:, 0]
    assert weights.min() >= 0.0 and weights.max() <= 1.0 and weights.max() > 0.5
    assert clip.look_at is not None and clip.look_at.quaternion
    assert clip.hips_height == pytest.approx(0.85, abs=1e-3)


def test_idle_loop_hips_in_metres(vrma_dir):
    """idle_loop is in centimetres under a 0.01-scaled root: offsets come out in metres."""
    clip = load_vrma(vrma_dir / "idle_loop.vrma")
    assert clip.hips_height == pytest.approx(0.906, abs=1e-3)
    offsets = clip.hips_translation.values
    assert np.abs(offsets).max() < 0.3  # metres, not centimetres
    pose = sample_clip(clip, 1.0, target_hips_height=2 * clip.hips_height)
    raw = sample_track(clip.hips_translation, 1.0)
    np.testing.assert_allclose(pose.hips_offset, 2 * raw, atol=1e-9)


def _vrma_world(v: VrmaBuilder, animated: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Forward kinematics of the VRMA's own hierarchy with some local rotations replaced."""
    nodes = v.json()["nodes"]
    root_m, _ = v.root_world
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for bone, index in v.nodes.items():
        parent = next((b for b, i in v.nodes.items() if index in nodes[i].get("children", [])),
                      None)
        pm, pp = out[parent] if parent else (root_m, np.zeros(3))
        local_r = animated.get(bone, np.array(nodes[index]["rotation"]))
        pos = pp + pm @ np.array(nodes[index]["translation"])
        out[bone] = (pm @ quat.to_matrix(local_r), pos)
    return {bone: pos for bone, (_, pos) in out.items()}


def test_retarget_from_any_rest_rotation_matches_the_source_motion(tmp_path):
    """A VRMA whose bones have random rest rotations (under a rotated, 0.01-scaled root)
    drives an identity-rest model to the very same joint positions."""
    rest = {bone: quat.normalize(RNG.normal(size=4)) for bone in world_positions()}
    v = VrmaBuilder(rest=rest, root_rotation=quat.from_axis_angle(np.array([1.0, 0, 0]), 0.7),
                    root_scale=0.01)
    animated = {bone: quat.normalize(RNG.normal(size=4)) for bone in rest}
    for bone, q in animated.items():
        v.channel(bone, "rotation", [0.0, 1.0], [q, q])
    clip = load_vrma(v.write(tmp_path / "any_rest.vrma"))
    model_file = tmp_path / "model.vrm"
    model_file.write_bytes(minimal_avatar("1.0").glb())
    model = load_model(model_file)
    pose = Pose(model)
    apply_clip_pose(pose, sample_clip(clip, 0.5, 1.0))
    pose.apply_humanoid()
    world = pose.world_matrices()
    expected = _vrma_world(v, animated)
    hips = expected["hips"]
    for bone, node in model.humanoid.items():
        np.testing.assert_allclose(world[node, :3, 3] - world[model.humanoid["hips"], :3, 3],
                                   expected[bone] - hips, atol=1e-5, err_msg=bone)


def test_hips_translation_through_the_parent_and_scaled(tmp_path):
    """Hips translation keys are local to the hips' parent (rotated, scaled); the clip
    keeps the world offset from rest, scaled to the target by hips height."""
    turn = quat.from_axis_angle(np.array([0, 1.0, 0]), math.pi / 2)
    v = VrmaBuilder(root_rotation=turn, root_scale=0.01)
    rest_local = np.array(v.json()["nodes"][v.nodes["hips"]]["translation"])
    moved = rest_local + np.array([10.0, 5.0, 0.0])  # centimetres, parent space
    v.channel("hips", "translation", [0.0, 1.0], [rest_local, moved])
    clip = load_vrma(v.write(tmp_path / "hips.vrma"), loop=False)  # hold the last key
    assert clip.hips_height == pytest.approx(1.0, abs=1e-6)
    world_delta = quat.rotate(turn, np.array([0.10, 0.05, 0.0]))  # metres, world
    np.testing.assert_allclose(sample_clip(clip, 1.0, 1.0).hips_offset, world_delta, atol=1e-6)
    np.testing.assert_allclose(sample_clip(clip, 1.0, 0.5).hips_offset, world_delta / 2,
                               atol=1e-6)
    model_file = tmp_path / "model.vrm"
    model_file.write_bytes(minimal_avatar("1.0").glb())
    model = load_model(model_file)
    pose = Pose(model)
    apply_clip_pose(pose, sample_clip(clip, 1.0, 1.0))
    pose.apply_humanoid()
    hips = model.humanoid["hips"]
    np.testing.assert_allclose(pose.world_matrices()[hips, :3, 3],
                               np.array([0, 1.0, 0]) + world_delta, atol=1e-6)


CHILD_VECTORS = [("leftUpperArm", "leftLowerArm"), ("rightUpperArm", "rightLowerArm"),
                 ("leftLowerArm", "leftHand"), ("rightLowerArm", "rightHand"),
                 ("spine", "chest")]


def _posed(model, clip, t):
    pose = Pose(model)
    sk = pose.skeleton
    apply_clip_pose(pose, sample_clip(clip, t, sk.rest_world[sk.hips, 1, 3]))
    pose.apply_humanoid()
    return pose, pose.world_matrices()


def _direction(model, world, a, b):
    v = world[model.humanoid[b], :3, 3] - world[model.humanoid[a], :3, 3]
    return v / np.linalg.norm(v)


def _degrees(u, v) -> float:
    return math.degrees(math.acos(float(np.clip(u @ v, -1.0, 1.0))))


def test_idle_loop_looks_the_same_on_vrm0_and_vrm1(vrma_dir):
    """The normalized retarget is model-independent: Godette (VRM 0.x, faces -Z in her
    file) and Hana (VRM 1.0) point their limbs the same way at every time."""
    clip = load_vrma(vrma_dir / "idle_loop.vrma")
    godette, hana = load_model(shared(GODETTE)), load_model(shared(HANA))
    for t in (0.0, 2.6, 5.2, 7.9):
        (pg, wg), (ph, wh) = _posed(godette, clip, t), _posed(hana, clip, t)
        for a, b in CHILD_VECTORS:
            dg, dh = _direction(godette, wg, a, b), _direction(hana, wh, a, b)
            assert _degrees(dg, dh) < 5.0, (t, a, b)
        rest_arm = _direction(hana, Pose(hana).world_matrices(), "leftUpperArm", "leftLowerArm")
        assert _degrees(rest_arm, _direction(hana, wh, "leftUpperArm", "leftLowerArm")) > 45.0
        assert _direction(hana, wh, "leftUpperArm", "leftLowerArm")[1] < -0.8  # arms down
        for bone in ("leftUpperArm", "rightLowerArm", "spine", "leftUpperLeg"):
            turn_g = normalized_world_rotation(pg, wg, godette.humanoid[bone])
            turn_h = normalized_world_rotation(ph, wh, hana.humanoid[bone])
            assert math.degrees(quat.angle_between(turn_g, turn_h)) < 1.0, (t, bone)


def test_hips_offset_scales_with_the_model(vrma_dir):
    clip = load_vrma(vrma_dir / "idle_loop.vrma")
    godette, hana = load_model(shared(GODETTE)), load_model(shared(HANA))
    offsets = {}
    for name, model in (("g", godette), ("h", hana)):
        sk = Pose(model).skeleton
        height = sk.rest_world[sk.hips, 1, 3]
        offsets[name] = (sample_clip(clip, 3.0, height).hips_offset, height)
    (og, hg), (oh, hh) = offsets["g"], offsets["h"]
    np.testing.assert_allclose(og / hg, oh / hh, atol=1e-9)
    assert hg != pytest.approx(hh)
