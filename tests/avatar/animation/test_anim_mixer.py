"""The mixer (cross-fades, emotes) and the driver that plugs it into the avatar runtime."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from companion_desktop.avatar.animation import AnimationDriver, Clip, Mixer, Track
from companion_desktop.avatar.animation.pose_apply import relaxed_rotations
from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from tests.avatar.loader.gltf_builder import minimal_avatar

Z = np.array([0.0, 0.0, 1.0])
X = np.array([1.0, 0.0, 0.0])


def _q(axis, deg):
    return quat.from_axis_angle(axis, math.radians(deg))


def _static(clip_id: str, rotations: dict[str, np.ndarray], *, duration: float = 2.0,
            loop: bool = True, hips=None, expressions=None) -> Clip:
    times = np.array([0.0, duration])
    return Clip(
        id=clip_id, name=clip_id, duration=duration, loop=loop, hips_height=1.0,
        bone_rotations={b: Track(times, np.stack([q, q]), quaternion=True)
                        for b, q in rotations.items()},
        hips_translation=None if hips is None else Track(times, np.array([hips, hips], float)),
        expressions={n: Track(times, np.array([[w], [w]])) for n, w in (expressions or {}).items()},
    )


def _same(a, b, atol=1e-7):
    assert abs(abs(float(np.dot(a, b))) - 1.0) < atol, (a, b)


A = _static("a", {"leftUpperArm": _q(Z, 0.0), "spine": _q(X, 20.0)}, hips=[0, 0, 0],
            expressions={"happy": 0.2})
B = _static("b", {"leftUpperArm": _q(Z, 80.0)}, hips=[0, 0.1, 0], expressions={"happy": 1.0})


def test_nothing_plays_nothing_comes_out():
    assert Mixer().update(0.016) is None


def test_cross_fade_midpoint_is_the_slerp_halfway():
    mixer = Mixer()
    assert mixer.play_base(A, fade=0.0)
    mixer.update(0.1)
    assert mixer.play_base(B, fade=0.3)
    assert not mixer.play_base(B)  # already playing
    mid = mixer.update(0.15)
    _same(mid.rotations["leftUpperArm"], quat.slerp(_q(Z, 0), _q(Z, 80), 0.5))
    _same(mid.rotations["leftUpperArm"], _q(Z, 40))
    _same(mid.rotations["spine"], _q(X, 10))  # only A animates it: halfway to rest
    np.testing.assert_allclose(mid.hips_offset, [0, 0.05, 0])
    assert mid.expressions["happy"] == pytest.approx(0.6)
    done = mixer.update(0.15)
    _same(done.rotations["leftUpperArm"], _q(Z, 80))
    after = mixer.update(0.1)
    assert set(after.rotations) == {"leftUpperArm"}
    assert mixer.base_clip is B


def test_a_change_during_a_fade_starts_from_the_pose_shown():
    mixer = Mixer()
    mixer.play_base(A, fade=0.0)
    mixer.update(0.1)
    mixer.play_base(B, fade=0.4)
    shown = mixer.update(0.1).rotations["leftUpperArm"]
    c = _static("c", {"leftUpperArm": _q(Z, -30.0)})
    mixer.play_base(c, fade=0.4)
    nxt = mixer.update(1e-6).rotations["leftUpperArm"]
    assert math.degrees(quat.angle_between(shown, nxt)) < 0.01  # no pop
    _same(mixer.update(0.5).rotations["leftUpperArm"], _q(Z, -30))


def test_emote_plays_once_over_the_base_and_returns():
    emote = _static("wave", {"leftUpperArm": _q(Z, 120.0)}, duration=1.0, loop=False,
                    expressions={"surprised": 1.0})
    mixer = Mixer()
    mixer.play_base(A, fade=0.0)
    mixer.update(0.1)
    assert mixer.play_emote(emote, fade=0.2)
    assert mixer.playing_emote and mixer.emote_clip is emote
    assert not mixer.play_emote(B)  # an emote already playing wins
    half = mixer.update(0.1)
    _same(half.rotations["leftUpperArm"], _q(Z, 60))
    assert half.expressions["surprised"] == pytest.approx(0.5)
    assert half.expressions["happy"] == pytest.approx(0.2)  # the emote leaves it be
    full = mixer.update(0.4)
    _same(full.rotations["leftUpperArm"], _q(Z, 120))
    _same(full.rotations["spine"], _q(X, 20))  # the base still shows under the emote
    fading = mixer.update(0.4)  # 0.9 s: 0.1 s before the end
    _same(fading.rotations["leftUpperArm"], _q(Z, 60))
    back = mixer.update(0.2)
    assert not mixer.playing_emote
    _same(back.rotations["leftUpperArm"], _q(Z, 0))
    assert "surprised" not in back.expressions


def test_emote_without_base_and_stop():
    emote = _static("nod", {"neck": _q(X, 30.0)}, duration=5.0, loop=False)
    mixer = Mixer()
    assert mixer.play_emote(emote, fade=0.0)
    _same(mixer.update(0.1).rotations["neck"], _q(X, 30))
    mixer.stop_emote(fade=0.2)
    _same(mixer.update(0.1).rotations["neck"], _q(X, 15))
    assert mixer.update(0.2) is None and not mixer.playing_emote


def test_zero_length_emote_ends_at_once():
    nop = _static("nop", {"neck": _q(X, 30.0)}, duration=0.0, loop=False)
    mixer = Mixer()
    assert mixer.play_emote(nop)
    assert mixer.update(0.016) is None and not mixer.playing_emote


def test_loops_are_counted():
    mixer = Mixer()
    mixer.play_base(_static("l", {"neck": _q(X, 5.0)}, duration=1.5), fade=0.0)
    ends = [mixer.update(0.5) and mixer.loops_finished for _ in range(9)]
    assert sum(ends) == 3 and mixer.base_loops == 3
    assert ends.index(1) == 2  # after 1.5 s


# -- the runtime hook ------------------------------------------------------------------

@pytest.fixture
def model(tmp_path):
    path = tmp_path / "tiny.vrm"
    path.write_bytes(minimal_avatar("1.0").glb())
    return load_model(path)


def test_driver_without_clips_stands_relaxed(model):
    pose = Pose(model)
    AnimationDriver()(pose, 0.016, 0.0)
    for bone, q in relaxed_rotations().items():
        _same(pose.bone_rotation(bone), q)


def test_driver_writes_bones_and_hips_and_keeps_other_bones_relaxed(model):
    mixer = Mixer()
    driver = AnimationDriver(mixer)
    clip = _static("h", {"spine": _q(X, 15.0)}, hips=[0, -0.2, 0])
    mixer.play_base(clip, fade=0.0)
    pose = Pose(model)
    driver(pose, 0.016, 0.016)
    _same(pose.bone_rotation("spine"), _q(X, 15))
    _same(pose.bone_rotation("leftUpperArm"), relaxed_rotations()["leftUpperArm"])
    np.testing.assert_allclose(pose.hips_offset, [0, -0.2, 0])  # hips height 1 m both
    assert mixer.target_hips_height == pytest.approx(1.0)


def test_driver_feeds_emote_expressions_to_the_runtime(model):
    mixer = Mixer()
    driver = AnimationDriver(mixer)
    runtime = AvatarRuntime(model, random.Random(1), animation=driver)
    driver.bind(runtime)
    mixer.play_base(A, fade=0.0)
    runtime.update(0.05)
    assert runtime.layers.emote is None  # base clip faces are not shown
    joy = _static("joy", {"leftUpperArm": _q(Z, 100.0)}, duration=1.0, loop=False,
                  expressions={"happy": 1.0})
    mixer.play_emote(joy, fade=0.1)
    runtime.update(0.5)
    assert runtime.layers.emote == {"happy": pytest.approx(1.0)}
    frame = runtime.update(0.6)
    assert frame is not None and runtime.layers.emote is None and not mixer.playing_emote


def test_driver_follows_hips_height_of_the_model(model):
    mixer = Mixer()
    driver = AnimationDriver(mixer)
    clip = _static("h", {}, hips=[0, 0.1, 0])
    clip.hips_height = 0.5
    mixer.play_base(clip, fade=0.0)
    pose = Pose(model)
    driver(pose, 0.016, 0.0)
    np.testing.assert_allclose(pose.hips_offset, [0, 0.2, 0])  # model hips 1 m, clip 0.5 m


def test_fade_to_no_clip_and_clear(model):
    mixer = Mixer()
    mixer.play_base(A, fade=0.0)
    mixer.update(0.1)
    assert mixer.play_base(None, fade=0.2)
    _same(mixer.update(0.1).rotations["spine"], _q(X, 10))
    assert mixer.update(0.2) is None and mixer.base_clip is None
    mixer.play_base(A, fade=0.0)
    mixer.play_emote(B)
    mixer.clear()
    assert mixer.update(0.1) is None and not mixer.playing_emote
    driver = AnimationDriver(mixer)
    pose = Pose(model)
    driver(pose, 0.1, 1.0)  # nothing plays: the relaxed pose, sway included
    assert math.degrees(quat.angle_between(pose.bone_rotation("leftUpperArm"),
                                           quat.identity())) > 60
