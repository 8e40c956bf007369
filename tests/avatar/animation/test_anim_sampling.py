"""Track and clip sampling, and plain glTF animations, against hand-computed values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.animation import (
    Clip,
    Track,
    load_gltf_animations,
    sample_clip,
    sample_node_animation,
    sample_track,
)
from companion_desktop.avatar.animation.sampling import clip_time, sampler_for
from companion_desktop.avatar.vrm import quat
from tests.avatar.animation.conftest import GLTF_DIR, shared
from tests.avatar.loader.gltf_builder import GltfBuilder

Z = np.array([0.0, 0.0, 1.0])


def _z(deg: float) -> np.ndarray:
    return quat.from_axis_angle(Z, math.radians(deg))


def _same_rotation(a, b, atol=1e-9):
    assert abs(abs(float(np.dot(a, b))) - 1.0) < atol, (a, b)


SCALAR = Track(np.array([0.0, 1.0, 3.0]), np.array([[0.0], [10.0], [30.0]]))


@pytest.mark.parametrize("t,want", [(-1.0, 0.0), (0.0, 0.0), (0.5, 5.0), (2.0, 20.0),
                                    (3.0, 30.0), (9.0, 30.0)])
def test_linear_scalar(t, want):
    assert sample_track(SCALAR, t)[0] == pytest.approx(want)


@pytest.mark.parametrize("t,want", [(0.99, 0.0), (1.0, 10.0), (2.9, 10.0), (3.5, 30.0)])
def test_step_scalar(t, want):
    track = Track(SCALAR.times, SCALAR.values, "STEP")
    assert sample_track(track, t)[0] == pytest.approx(want)


def test_cubicspline_scalar_by_hand():
    """glTF Hermite with tangents times the key interval (td = 2, u = 0.25):
    0.84375*1 + 0.140625*2*0.5 + 0.15625*3 + (-0.046875)*2*(-1) = 1.546875."""
    values = np.array([[[0.0], [1.0], [0.5]], [[-1.0], [3.0], [0.0]]])
    track = Track(np.array([0.0, 2.0]), values, "CUBICSPLINE")
    assert sample_track(track, 0.5)[0] == pytest.approx(1.546875)
    assert sample_track(track, 0.0)[0] == pytest.approx(1.0)
    assert sample_track(track, 2.0)[0] == pytest.approx(3.0)
    assert sample_track(track, 7.0)[0] == pytest.approx(3.0)


def test_quaternion_tracks_slerp_and_stay_unit():
    linear = Track(np.array([0.0, 1.0]), np.stack([_z(0), _z(90)]), quaternion=True)
    _same_rotation(sample_track(linear, 0.5), _z(45))
    _same_rotation(sample_track(linear, 0.25), _z(22.5))
    step = Track(np.array([0.0, 1.0]), np.stack([_z(0) * 3, _z(90) * 3]), "STEP", True)
    assert np.linalg.norm(sample_track(step, 0.7)) == pytest.approx(1.0)
    _same_rotation(sample_track(step, 1.2), _z(90))
    cubic_values = np.stack([np.stack([np.zeros(4), _z(0), np.zeros(4)]),
                             np.stack([np.zeros(4), _z(90), np.zeros(4)])])
    cubic = Track(np.array([0.0, 1.0]), cubic_values, "CUBICSPLINE", True)
    out = sample_track(cubic, 0.5)
    assert np.linalg.norm(out) == pytest.approx(1.0)
    _same_rotation(out, _z(45))  # zero tangents: the midpoint of the chord, renormalized


def test_slerp_takes_the_short_way():
    track = Track(np.array([0.0, 1.0]), np.stack([_z(10), -_z(30)]), quaternion=True)
    _same_rotation(sample_track(track, 0.5), _z(20))


def _clip(loop: bool) -> Clip:
    times = np.array([0.0, 2.0])
    return Clip(
        id="c", name="c", duration=2.0, loop=loop, hips_height=0.8,
        bone_rotations={"leftUpperArm": Track(times, np.stack([_z(0), _z(80)]),
                                              quaternion=True),
                        "spine": Track(np.array([0.0, 1.0, 2.0]),
                                       np.stack([_z(0), _z(10), _z(0)]), "STEP", True)},
        hips_translation=Track(times, np.array([[0.0, 0.0, 0.0], [0.0, 0.4, 0.0]])),
        expressions={"happy": Track(times, np.array([[0.0], [1.5]]))},
    )


def test_loop_clips_wrap_and_others_hold():
    loop, once = _clip(True), _clip(False)
    assert clip_time(loop, 2.5) == pytest.approx(0.5)
    assert clip_time(once, 2.5) == pytest.approx(2.0)
    _same_rotation(sample_clip(loop, 2.5, 0.8).rotations["leftUpperArm"], _z(20))
    _same_rotation(sample_clip(once, 2.5, 0.8).rotations["leftUpperArm"], _z(80))
    _same_rotation(sample_clip(loop, 1.2, 0.8).rotations["spine"], _z(10))
    assert sample_clip(loop, 0.5, 0.8).expressions["happy"] == pytest.approx(0.375)
    assert sample_clip(once, 9.0, 0.8).expressions["happy"] == 1.0  # clamped to 0..1
    assert set(sample_clip(loop, 0.3, 0.8).rotations) == {"leftUpperArm", "spine"}


def test_hips_offset_is_scaled_to_the_target():
    clip = _clip(False)
    np.testing.assert_allclose(sample_clip(clip, 1.0, 0.8).hips_offset, [0, 0.2, 0])
    np.testing.assert_allclose(sample_clip(clip, 1.0, 1.6).hips_offset, [0, 0.4, 0])


def test_compiled_sampler_matches_per_track_sampling():
    rng = np.random.default_rng(5)
    times = np.sort(rng.uniform(0, 4, 9))
    tracks = {bone: Track(times, quat.normalize(rng.normal(size=(9, 4))), quaternion=True)
              for bone in ("hips", "spine", "neck", "leftHand")}
    tracks["head"] = Track(times[:5], quat.normalize(rng.normal(size=(5, 4))), "STEP", True)
    tracks["neck"] = Track(np.sort(rng.uniform(0, 4, 7)), quat.normalize(rng.normal(size=(7, 4))),
                           quaternion=True)
    tracks["chest"] = Track(np.array([1.5]), quat.normalize(rng.normal(size=(1, 4))),
                            quaternion=True)
    cubic = quat.normalize(rng.normal(size=(9, 3, 4)))
    tracks["leftFoot"] = Track(times, cubic, "CUBICSPLINE", True)
    clip = Clip(id="r", name="r", duration=4.0, bone_rotations=tracks)
    sampler = sampler_for(clip)
    assert len(sampler.table_bones) == 6 and len(sampler.cubic) == 1
    for t in [*rng.uniform(-1, 5, 40), *times, 0.0, 1.5, 4.0]:
        pose = sample_clip(clip, t, 1.0)
        for bone, track in tracks.items():
            _same_rotation(pose.rotations[bone], sample_track(track, clip_time(clip, t)))


# -- plain glTF animations -----------------------------------------------------------------

def _gltf(tmp_path) -> tuple[str, int, int]:
    b = GltfBuilder()
    moving = b.node(name="moving", translation=[1.0, 2.0, 3.0], scale=[2.0, 2.0, 2.0])
    morph = b.node(name="morph")
    times = b.accessor(np.array([0.0, 1.0, 2.0], np.float32))
    cubic_times = b.accessor(np.array([0.0, 2.0], np.float32))
    samplers = [
        {"input": times, "output": b.accessor(np.array(
            [[0, 0, 0], [1, 0, 0], [1, 2, 0]], np.float32)), "interpolation": "LINEAR"},
        {"input": times, "output": b.accessor(np.stack([_z(0), _z(90), _z(180)])
                                              .astype(np.float32)), "interpolation": "STEP"},
        {"input": cubic_times, "output": b.accessor(np.array(
            [[0, 0, 0], [1, 1, 1], [0.5, 0.5, 0.5], [-1, -1, -1], [3, 3, 3], [0, 0, 0]],
            np.float32)), "interpolation": "CUBICSPLINE"},
        {"input": times, "output": b.accessor(np.array(
            [0, 1, 1, 0, 0.5, 0.5], np.float32)), "interpolation": "LINEAR"},
    ]
    channels = [{"sampler": 0, "target": {"node": moving, "path": "translation"}},
                {"sampler": 2, "target": {"node": moving, "path": "scale"}},
                {"sampler": 1, "target": {"node": morph, "path": "rotation"}},
                {"sampler": 3, "target": {"node": morph, "path": "weights"}}]
    b.json["animations"] = [{"name": "hand", "channels": channels, "samplers": samplers}]
    path = tmp_path / "anim.glb"
    path.write_bytes(b.glb())
    return str(path), moving, morph


def test_gltf_channels_by_hand(tmp_path):
    path, moving, morph = _gltf(tmp_path)
    (anim,) = load_gltf_animations(path)
    assert anim.name == "hand" and anim.duration == pytest.approx(2.0)
    transforms, weights = sample_node_animation(anim, 0.5, loop=False)
    t, r, s = transforms[moving]
    np.testing.assert_allclose(t, [0.5, 0, 0])
    _same_rotation(r, quat.identity())  # rest rotation: not animated
    assert s == pytest.approx([1.546875] * 3)  # the Hermite of the scalar test
    t, r, s = transforms[morph]
    _same_rotation(r, _z(0))
    np.testing.assert_allclose(weights[morph], [0.5, 0.5])
    transforms, weights = sample_node_animation(anim, 1.5, loop=False)
    np.testing.assert_allclose(transforms[moving][0], [1, 1, 0])
    _same_rotation(transforms[morph][1], _z(90))
    np.testing.assert_allclose(weights[morph], [0.75, 0.25])  # halfway [1, 0] -> [.5, .5]
    np.testing.assert_allclose(transforms[morph][0], [0, 0, 0])  # rest translation
    transforms, _ = sample_node_animation(anim, 2.5, loop=True)
    np.testing.assert_allclose(transforms[moving][0], [0.5, 0, 0])


@pytest.mark.parametrize("name", ["Fox.glb", "AnimatedMorphCube.glb", "RiggedSimple.glb",
                                  "MorphStressTest.gltf", "SimpleSkin.gltf"])
def test_sample_gltf_assets(name):
    anims = load_gltf_animations(shared(GLTF_DIR / name))
    assert anims
    for anim in anims:
        assert anim.duration > 0 and anim.channels
        for t in np.linspace(-0.5, anim.duration * 1.5, 13):
            transforms, weights = sample_node_animation(anim, t)
            for translation, rotation, scale in transforms.values():
                assert np.all(np.isfinite(translation)) and np.all(np.isfinite(scale))
                assert np.linalg.norm(rotation) == pytest.approx(1.0)
            for w in weights.values():
                assert np.all(np.isfinite(w))
    if name == "Fox.glb":
        assert [a.name for a in anims] == ["Survey", "Walk", "Run"]
    if name == "AnimatedMorphCube.glb":
        assert len(next(iter(sample_node_animation(anims[0], 1.0)[1].values()))) == 2


def test_gltf_animations_refuse_broken_files(tmp_path):
    from companion_desktop.avatar.animation import ClipLoadError

    junk = tmp_path / "junk.glb"
    junk.write_bytes(b"\x00" * 64)
    with pytest.raises(ClipLoadError, match="not a glTF"):
        load_gltf_animations(junk)
    b = GltfBuilder()
    node = b.node(name="n")
    times = b.accessor(np.array([0.0, 1.0], np.float32))
    values = b.accessor(np.array([[0, 0, 0], [np.nan, 0, 0]], np.float32))
    b.json["animations"] = [{"channels": [{"sampler": 0, "target": {"node": node,
                                                                     "path": "translation"}}],
                             "samplers": [{"input": times, "output": values}]}]
    bad = tmp_path / "nan.glb"
    bad.write_bytes(b.glb())
    with pytest.raises(ClipLoadError, match="not finite"):
        load_gltf_animations(bad)
    plain = tmp_path / "still.glb"
    still = GltfBuilder()
    still.node(name="n")
    plain.write_bytes(still.glb())
    assert load_gltf_animations(plain) == []
