"""AvatarRuntime: update order, face layers end to end, mouth, blink, `changed`, Godette."""

from __future__ import annotations

import math
import random
import time

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.model import Expression
from companion_desktop.avatar.vrm.runtime import STAGES, AvatarRuntime
from tests.avatar.runtime.runtime_models import humanoid

FRAME = 1 / 60
FACE_TARGETS = ["smile", "frown", "calm", "wide", "blink", "mouth_a", "look_l", "look_r"]


def runtime(**kwargs) -> AvatarRuntime:
    options = {"blink": False, "breathing": False}
    options.update({k: kwargs.pop(k) for k in ("blink", "breathing", "springs", "animation")
                    if k in kwargs})
    return AvatarRuntime(humanoid(face=True, **kwargs), random.Random(3), **options)


def morphs(frame) -> dict[str, float]:
    return {n: float(w) for n, w in zip(FACE_TARGETS, frame.morph_weights[0], strict=True)}


def run(rt: AvatarRuntime, seconds: float, dt: float = FRAME):
    frame = None
    for _ in range(round(seconds / dt)):
        frame = rt.update(dt)
    return frame


def test_update_runs_the_stages_in_three_vrm_order():
    rt = runtime()
    rt.trace = []
    rt.update(FRAME)
    assert rt.trace == list(STAGES) == ["animation", "humanoid", "look_at", "expressions", "spring"]


def test_look_at_sees_the_animated_head_in_the_same_frame():
    turned = quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), math.radians(30))
    rt = runtime(animation=lambda pose, dt, t: pose.set_bone_rotation("head", turned))
    rt.look.omega = 1e6  # no smoothing: the first frame shows the goal
    rt.look_at_point(np.array([0.0, 1.56, 100.0]))
    rt.update(FRAME)
    assert rt.look.yaw == pytest.approx(-30.0, abs=0.2)


def test_springs_follow_the_animated_pose_in_the_same_frame():
    def lean(pose, dt, t):
        pose.set_hips_offset(np.array([0.0, 0.0, 0.3 if t > 0.5 else 0.0]))

    rt = runtime(hair=1, gravity=0.0, stiffness=4.0, animation=lean)
    run(rt, 0.5)
    frame = rt.update(FRAME)
    hair_root = rt.model.springs[0].joints[0].node
    assert frame.world[hair_root, 2, 3] == pytest.approx(-0.14 + 0.3, abs=1e-5)


def test_changed_is_false_when_idle():
    rt = runtime(hair=2, gravity=0.0)
    rt.update(FRAME)
    assert rt.changed  # the first frame
    run(rt, 0.2)
    assert not rt.changed
    rt.mood("happy", 100)
    rt.update(FRAME)
    assert rt.changed
    run(rt, 1.0)
    assert not rt.changed


def test_breathing_and_blinking_count_as_change():
    rt = runtime(breathing=True)
    run(rt, 0.5)
    assert rt.changed
    rt = runtime(blink=True)
    states = []
    for _ in range(600):
        frame = rt.update(FRAME)
        states.append((rt.changed, morphs(frame)["blink"]))
    assert any(w == 1.0 for _, w in states)
    assert all(changed for (changed, w), (_, before) in zip(states[1:], states, strict=False)
               if w != before)
    assert any(not changed for changed, _ in states[10:])


@pytest.mark.parametrize("amount", [0.0, 0.35, 1.0])
def test_mouth_open_drives_aa(amount):
    rt = runtime()
    rt.mouth_open(amount)
    assert morphs(rt.update(FRAME))["mouth_a"] == pytest.approx(amount)


def test_mouth_is_blocked_by_an_override():
    model = humanoid(face=True)
    model.expressions["shout"] = Expression("shout", False, override_mouth="block")
    rt = AvatarRuntime(model, random.Random(0), blink=False, breathing=False)
    rt.mouth_open(0.8)
    rt.set_expression("shout", 1.0)
    assert morphs(rt.update(FRAME))["mouth_a"] == 0.0


def test_resting_face_flash_and_return():
    rt = runtime()
    rt.mood("happy", 80)
    assert morphs(run(rt, 0.5))["smile"] == pytest.approx(0.48)
    assert rt.flash("sad")
    faces = [morphs(rt.update(FRAME)) for _ in range(60)]
    first_sad = next(i for i, f in enumerate(faces) if f["frown"] > 0)
    assert all(f["smile"] == 0 for f in faces[first_sad:])
    assert faces[-1]["frown"] == pytest.approx(0.84)
    back = morphs(run(rt, 2.5 + 0.6 + 1.0))
    assert (back["smile"], back["frown"]) == (pytest.approx(0.48), 0.0)
    assert not rt.flash("neutral")


def test_speaking_flash_holds_until_speech_ends():
    rt = runtime()
    rt.flash("curious", speaking=True)
    assert morphs(run(rt, 5.0))["wide"] == pytest.approx(0.42)
    rt.speaking_ended()
    assert morphs(run(rt, 1.0))["wide"] == 0.0


def test_mood_expressions_switch_and_taps():
    rt = runtime()
    rt.mood("sad", 100)
    run(rt, 0.5)
    rt.set_mood_expressions_enabled(False)
    assert morphs(run(rt, 0.5))["frown"] == 0.0
    assert rt.tap("head") == "happy"
    assert morphs(run(rt, 0.5))["smile"] == pytest.approx(0.8)  # taps are not mood faces
    rt.set_mood_expressions_enabled(True)
    assert rt.tap("body") == "surprised"
    face = morphs(run(rt, 0.5))
    assert face["wide"] == pytest.approx(0.7) and face["frown"] == 0.0  # tap above the mood
    assert morphs(run(rt, 2.0))["frown"] == pytest.approx(0.6)
    assert rt.tap("elbow") is None


def test_direct_expression_control():
    rt = runtime()
    assert rt.set_expression("relaxed", 0.7)
    assert not rt.set_expression("missing", 1.0)
    assert morphs(rt.update(FRAME))["calm"] == pytest.approx(0.7)
    rt.set_expression("relaxed", 0.0)
    assert morphs(rt.update(FRAME))["calm"] == 0.0


def test_photo_mode_is_the_top_layer():
    rt = runtime()
    rt.mood("happy", 100)
    rt.set_emote({"sad": 1.0})
    rt.set_photo({"relaxed": 0.9})
    face = morphs(run(rt, 1.0))
    assert (face["calm"], face["smile"], face["frown"]) == (pytest.approx(0.9), 0.0, 0.0)


def test_frames_are_complete_and_timed():
    rt = runtime(hair=3, hair_joints=5, colliders=True, fingers=True, gravity=1.0)
    frame = run(rt, 1.0)
    assert frame.world.shape == (len(rt.model.nodes), 4, 4) and frame.world.dtype == np.float32
    assert len(frame.joint_matrices) == 1 and frame.joint_matrices[0].dtype == np.float32
    assert frame.time == pytest.approx(1.0)
    assert np.all(np.isfinite(frame.world))


def test_per_frame_time_is_measured_not_asserted():
    """A 68-node humanoid with 3 spring chains: timing only (numbers in `bench`)."""
    rt = AvatarRuntime(humanoid(fingers=True, hair=3, hair_joints=5, colliders=True, face=True,
                                gravity=1.0), random.Random(1))
    assert len(rt.model.nodes) == 68
    rt.mood("happy", 70)
    rt.look_at_point(np.array([0.3, 1.6, 1.0]))
    start = time.perf_counter()
    run(rt, 2.0)
    assert time.perf_counter() - start >= 0.0


def test_godette_runs(godette):
    rt = AvatarRuntime(godette, random.Random(0))
    assert rt.springs.count > 0
    rt.mood("happy", 100)
    rt.look_at_point(np.array([0.3, 1.0, 1.0]))
    frame = run(rt, 1.0)
    assert np.all(np.isfinite(frame.world))
    assert rt.expressions.get("happy") == pytest.approx(0.6)
    assert rt.flash("sad")
    run(rt, 1.0)
    assert rt.expressions.get("sad") == pytest.approx(0.84)
    if godette.look_at is not None and godette.look_at.type == "expression":
        assert rt.expressions.get("lookLeft") > 0.0


@pytest.mark.parametrize(("happy", "blink", "offset"), [
    (0.0, 0.0, (0.0, 0.0)),
    (1.0, 1.0, (0.875, 0.0)),   # binary happy blends blink out completely
    (0.3, 1.0, (0.0, 0.875)),   # 0.3 rounds to 0: blink shows
    (0.6, 0.0, (0.875, 0.0)),
])
def test_is_binary_overrides_sample(is_binary_sample, happy, blink, offset):
    rt = AvatarRuntime(is_binary_sample, random.Random(1), blink=False, breathing=False)
    rt.set_expression("happy", happy)
    rt.set_expression("blink", blink)
    scale, got = rt.update(0.1).texture_transforms[0]  # the validation window atlas
    assert scale == pytest.approx((0.125, 0.125)) and got == pytest.approx(offset)
