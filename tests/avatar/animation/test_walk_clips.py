"""The walk and sit clips, played through the project's loader, sampler and skeleton on
Hana (and a VRM 0.x and a VRM 1.0 model when the shared assets are there): seamless
loops, feet on (never through) the floor, a tread that matches the walking pace, arms
clear of the body, and a sit with level thighs and hanging shins."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from companion_desktop.avatar.animation.library import AnimationLibrary
from companion_desktop.avatar.animation.pose_apply import apply_clip_pose
from companion_desktop.avatar.animation.sampling import sample_clip
from companion_desktop.avatar.animation.walk_plan import (
    SIT_SEAT_HEIGHTS,
    WALK_SPEED_HEIGHTS,
)
from companion_desktop.avatar.render.bounds import all_posed_positions
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.pose import Pose
from tests.avatar.animation.conftest import GODETTE, HANA, shared
from tests.conftest import SHARED_ASSETS

ROBOT = SHARED_ASSETS / "vrm1" / "debug_robot.vrm"


@pytest.fixture(scope="module")
def library() -> AnimationLibrary:
    return AnimationLibrary()


@pytest.fixture(scope="module")
def hana():
    return load_model(HANA)


def posed(model, clip, t: float) -> tuple[np.ndarray, Pose]:
    """World matrices of ``model`` posed by ``clip`` at ``t`` (no springs, no breathing)."""
    pose = Pose(model)
    rest = pose.world_matrices()
    height = float(rest[model.humanoid["hips"], 1, 3])
    apply_clip_pose(pose, sample_clip(clip, t, height))
    pose.apply_humanoid()
    return pose.world_matrices(), pose


def bone_y(model, world, bone: str) -> float:
    return float(world[model.humanoid[bone], 1, 3])


def test_moves_are_in_the_library_but_never_idles(library):
    assert set(library.ids_of_kind("move")) == {"walk", "sit"}
    assert not {"walk", "sit"} & set(library.builtin_idle_ids)
    assert not {"walk", "sit"} & set(library.emote_ids)
    for clip_id in ("walk", "sit"):
        clip = library.get(clip_id)
        assert clip.loop
        for bone in ("hips", "leftUpperLeg", "rightLowerLeg", "leftFoot", "rightToes",
                     "leftUpperArm", "head"):
            assert bone in clip.bone_rotations, (clip_id, bone)


@pytest.mark.parametrize("clip_id", ["walk", "sit"])
def test_the_loop_joins_without_a_jump(library, hana, clip_id):
    """The pose at the end is the pose at the start, and the step across the seam is no
    bigger than the largest step anywhere else in the loop."""
    clip = library.get(clip_id)
    h = 1.0 / 30.0
    times = np.arange(0.0, clip.duration + 1e-9, h)
    frames = [posed(hana, clip, float(t))[0] for t in times]
    first, last = frames[0], posed(hana, clip, clip.duration - 1e-6)[0]
    assert np.abs(first[:, :3, 3] - last[:, :3, 3]).max() < 2e-3

    def step(a, b) -> float:
        return float(np.abs(a[:, :3, 3] - b[:, :3, 3]).max())

    inner = max(step(a, b) for a, b in itertools.pairwise(frames))
    seam = step(posed(hana, clip, clip.duration - h)[0], first)
    assert seam <= 1.2 * inner + 1e-4


def test_walk_feet_stay_on_or_above_the_floor_and_tread_at_the_walking_pace(library, hana):
    clip = library.get("walk")
    rest = rest_frame(hana).world
    floor_foot = {s: float(rest[hana.humanoid[f"{s}Foot"], 1, 3]) for s in ("left", "right")}
    floor_toes = {s: float(rest[hana.humanoid[f"{s}Toes"], 1, 3]) for s in ("left", "right")}
    times = np.arange(0.0, clip.duration, 1.0 / 60.0)
    lifts, speeds, last = [], [], None
    for t in times:
        world, _ = posed(hana, clip, float(t))
        lows = []
        for s in ("left", "right"):
            foot, toes = bone_y(hana, world, f"{s}Foot"), bone_y(hana, world, f"{s}Toes")
            assert foot >= floor_foot[s] - 2e-3, (t, s, foot)  # the ankle never sinks
            assert toes >= floor_toes[s] - 2e-3, (t, s, toes)  # nor the ball of the foot
            lows.append(min(foot - floor_foot[s], toes - floor_toes[s]))
        assert min(lows) < 4e-3, t  # a foot is always on the floor: she never floats
        lifts.append(max(lows))
        planted = int(np.argmin(lows))
        side = ("left", "right")[planted]
        z = float(world[hana.humanoid[f"{side}Toes"], 2, 3])
        if last is not None and last[0] == side and min(lows) < 1e-3:
            speeds.append((last[1] - z) * 60.0)
        last = (side, z)
    assert max(lifts) > 0.02  # the swinging foot clears the floor
    height = float(all_posed_positions(hana, rest_frame(hana))[:, 1].max())
    tread = float(np.median(speeds)) / height
    assert tread == pytest.approx(WALK_SPEED_HEIGHTS, rel=0.12)


def test_walk_arms_swing_opposite_the_legs_and_clear_the_body(library, hana):
    clip = library.get("walk")
    node = hana.humanoid
    fronts = []
    for t in np.arange(0.0, clip.duration, 0.1):
        world, _ = posed(hana, clip, float(t))
        hips_x = float(world[node["hips"], 0, 3])
        for s, sign in (("left", 1.0), ("right", -1.0)):
            hand = world[node[f"{s}Hand"], :3, 3]
            thigh = world[node[f"{s}UpperLeg"], :3, 3]
            assert sign * (hand[0] - hips_x) > abs(thigh[0] - hips_x) + 0.03, (t, s)
        lz = world[node["leftHand"], 2, 3] - world[node["hips"], 2, 3]
        rf = world[node["rightFoot"], 2, 3] - world[node["hips"], 2, 3]
        fronts.append((lz, rf))
    lz, rf = np.array(fronts).T
    assert np.corrcoef(lz, rf)[0, 1] > 0.8  # left hand forward with the right foot


@pytest.mark.parametrize("path", [HANA, GODETTE, ROBOT], ids=["hana", "vrm0", "vrm1"])
def test_sit_thighs_level_shins_hanging_seat_where_the_plan_says(library, path):
    model = load_model(shared(path))
    node = model.humanoid
    clip = library.get("sit")
    for t in (0.0, 2.5, 5.0):
        world, _ = posed(model, clip, t)
        for s in ("left", "right"):
            hip, knee, foot = (world[node[f"{s}{b}"], :3, 3]
                               for b in ("UpperLeg", "LowerLeg", "Foot"))
            thigh = knee - hip
            assert thigh[2] > 0.0 and abs(np.degrees(np.arctan2(thigh[1], thigh[2]))) < 25.0
            shin = foot - knee
            assert shin[1] < 0.0 and np.degrees(np.arctan2(shin[2], -shin[1])) < 45.0
    if path == HANA:
        frame_pts = all_posed_positions(model, rest_frame(model))
        height = float(frame_pts[:, 1].max())
        world, _ = posed(model, clip, 0.0)
        seat = float(world[node["leftUpperLeg"], 1, 3]) - 0.06  # under the thigh
        assert (seat - 0.0) / height == pytest.approx(SIT_SEAT_HEIGHTS, abs=0.03)
