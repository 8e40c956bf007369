"""Playing a .vrma look-at track: the clip's gaze drives the eyes (through the range maps),
weighted by the mixer's fades, and hands back to the pointer look-at when the clip stops."""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.animation.clip import Clip, Track
from companion_desktop.avatar.animation.driver import AnimationDriver
from companion_desktop.avatar.animation.look_track import Gaze, gaze_angles, mix_gaze
from companion_desktop.avatar.animation.vrma import load_vrma
from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.look_at import LookAtController
from companion_desktop.avatar.vrm.model import RangeMap, VrmModel
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from tests.avatar.animation.conftest import HANA, VRMA_DIR
from tests.avatar.animation.vrma_files import VrmaBuilder, simple_vrma
from tests.avatar.runtime.runtime_models import humanoid

FRAME = 1 / 60
LEFT_DEG = 20.0  # the clip turns her gaze this far to her left over 1 s


def _turn(deg: float) -> np.ndarray:
    return quat.from_axis_angle(np.array([0.0, 1.0, 0.0]), math.radians(deg))


def look_vrma(path: Path) -> Path:
    """A 1 s clip: the lookAt node turns from ahead to ``LEFT_DEG`` to her left (+Y)."""
    v = VrmaBuilder()
    node = v.look_at()
    times = [0.0, 0.25, 0.5, 0.75, 1.0]
    v.channel(node, "rotation", times, [_turn(LEFT_DEG * t) for t in times])
    return v.write(path)


@pytest.fixture(scope="module")
def hana() -> VrmModel:
    assert HANA.is_file(), f"the built-in avatar is missing: {HANA}"
    return load_model(HANA)


@pytest.fixture
def look_clip(tmp_path) -> Clip:
    return load_vrma(look_vrma(tmp_path / "glance.vrma"), loop=False)


def make_runtime(model: VrmModel) -> tuple[AvatarRuntime, AnimationDriver]:
    driver = AnimationDriver()
    rt = AvatarRuntime(model, random.Random(0), blink=False, breathing=False, springs=False,
                       animation=driver)
    driver.bind(rt)
    return rt, driver


def run(rt: AvatarRuntime, seconds: float) -> None:
    for _ in range(round(seconds / FRAME)):
        rt.update(FRAME)


def point_to_her_right(rt: AvatarRuntime) -> float:
    """Aim the pointer well to her right and let the eyes settle; the pointer yaw."""
    head = rt.pose.world_matrices()[rt.look.head, :3, 3]
    rt.look_at_point(head + np.array([-1.0, 0.0, 1.5]))
    run(rt, 1.0)
    assert rt.look.yaw < -25.0
    return rt.look.yaw


def eye_yaw(rt: AvatarRuntime, bone: str) -> float:
    """Degrees the eye bone is turned about +Y in the normalized space (+: her left)."""
    q = rt.pose.normalized[rt.pose.skeleton.bone_index[bone]]
    forward = quat.rotate(q, np.array([0.0, 0.0, 1.0]))
    return math.degrees(math.atan2(forward[0], forward[2]))


# -- angles and mixing ---------------------------------------------------------------------
@pytest.mark.parametrize(("rotation", "expected"), [
    (quat.identity(), (0.0, 0.0)),
    (_turn(20.0), (20.0, 0.0)),                                   # her left
    (_turn(-35.0), (-35.0, 0.0)),                                 # her right
    (quat.from_axis_angle(np.array([1.0, 0, 0]), math.radians(-10)), (0.0, 10.0)),  # up
    (quat.from_axis_angle(np.array([1.0, 0, 0]), math.radians(15)), (0.0, -15.0)),  # down
    (2.0 * _turn(20.0), (20.0, 0.0)),                              # unnormalized
])
def test_gaze_angles(rotation, expected):
    assert gaze_angles(rotation) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("bad", [[0, 0, 0, 0], [np.nan, 0, 0, 1], [np.inf, 0, 0, 1], [0, 1]])
def test_gaze_angles_refuses_broken_quaternions(bad):
    assert gaze_angles(np.array(bad, np.float64)) is None


def _close(gaze: Gaze | None, yaw: float, pitch: float, weight: float) -> bool:
    return gaze is not None and (gaze.yaw, gaze.pitch, gaze.weight) == pytest.approx(
        (yaw, pitch, weight), abs=1e-5)


def test_mix_gaze_cross_fade_and_overlay():
    a, b = Gaze(20.0, 0.0), Gaze(-10.0, 6.0)
    assert _close(mix_gaze(a, b, 0.5), 5.0, 3.0, 1.0)
    assert _close(mix_gaze(a, None, 0.25), 20.0, 0.0, 0.75)      # the pointer takes a quarter
    assert _close(mix_gaze(None, b, 0.25), -10.0, 6.0, 0.25)
    assert _close(mix_gaze(Gaze(20.0, 0.0, 0.5), b, 0.5), 0.0, 4.0, 0.75)
    assert mix_gaze(None, None, 0.5) is None
    assert mix_gaze(a, None, 1.0) is None
    assert mix_gaze(a, None, 0.6, overlay=True) == a              # an emote without a track
    assert _close(mix_gaze(None, b, 0.4, overlay=True), -10.0, 6.0, 0.4)
    assert mix_gaze(a, b, float("nan")) == a                      # a broken weight: no change
    assert _close(mix_gaze(a, b, 7.0), -10.0, 6.0, 1.0)


def test_set_clip_gaze_bounds_untrusted_numbers(hana):
    look = LookAtController(hana)
    look.set_clip_gaze((500.0, -300.0), 4.0)
    assert look.clip_gaze == (180.0, -90.0) and look.clip_weight == 1.0
    for bad in [(float("nan"), 0.0), (0.0, float("inf")), "ahead", None, (1.0,)]:
        look.set_clip_gaze((10.0, 0.0), 0.5)
        look.set_clip_gaze(bad)  # type: ignore[arg-type]
        assert look.clip_gaze is None and look.clip_weight == 0.0
    look.set_clip_gaze((10.0, 0.0), float("nan"))
    assert look.clip_gaze is None


# -- playing on Hana -----------------------------------------------------------------------
def test_clip_gaze_drives_hana_eyes_and_returns_to_the_pointer(hana, look_clip):
    rt, driver = make_runtime(hana)
    pointer = point_to_her_right(rt)
    driver.mixer.play_base(look_clip, fade=0.0)
    run(rt, 0.5)
    assert rt.look.yaw == pytest.approx(LEFT_DEG / 2, abs=0.3)     # half way through the turn
    run(rt, 0.7)
    assert rt.look.yaw == pytest.approx(LEFT_DEG, abs=1e-3)        # held at the end
    assert rt.look.pitch == pytest.approx(0.0, abs=1e-3)
    look = hana.look_at
    assert look.type == "bone"
    outer = look.horizontal_outer.output_scale * LEFT_DEG / look.horizontal_outer.input_max
    inner = look.horizontal_inner.output_scale * LEFT_DEG / look.horizontal_inner.input_max
    assert eye_yaw(rt, "leftEye") == pytest.approx(outer, abs=1e-3)   # 10 x 20 / 90 degrees
    assert eye_yaw(rt, "rightEye") == pytest.approx(inner, abs=1e-3)
    driver.mixer.play_base(None, fade=1.0)
    run(rt, 0.5)
    assert rt.look.clip_weight == pytest.approx(0.5, abs=0.02)   # the cross-fade's weight
    assert rt.look.yaw == pytest.approx((LEFT_DEG + pointer) / 2, abs=1.0)
    run(rt, 0.6)
    assert rt.look.clip_gaze is None
    assert rt.look.yaw == pytest.approx(pointer, abs=1e-3)        # the pointer is in charge
    assert eye_yaw(rt, "leftEye") < 0.0


def test_a_clip_without_a_look_track_leaves_the_pointer_in_charge(hana, tmp_path):
    rt, driver = make_runtime(hana)
    pointer = point_to_her_right(rt)
    clip = load_vrma(simple_vrma(tmp_path / "wave.vrma"))
    assert clip.look_at is None
    driver.mixer.play_base(clip, fade=0.0)
    run(rt, 0.5)
    assert rt.look.clip_gaze is None and rt.look.yaw == pytest.approx(pointer, abs=1e-3)


def test_an_emote_look_track_fades_over_the_base(hana, look_clip, tmp_path):
    rt, driver = make_runtime(hana)
    pointer = point_to_her_right(rt)
    driver.mixer.play_base(load_vrma(simple_vrma(tmp_path / "idle.vrma")), fade=0.0)
    assert driver.mixer.play_emote(look_clip, fade=0.3)
    run(rt, 0.15)
    assert rt.look.clip_weight == pytest.approx(0.5, abs=0.03)   # fading in
    run(rt, 0.5)
    assert rt.look.clip_weight == 1.0
    assert rt.look.yaw == pytest.approx(LEFT_DEG * 0.65, abs=0.3)
    run(rt, 0.5)
    assert not driver.mixer.playing_emote and rt.look.clip_gaze is None
    assert rt.look.yaw == pytest.approx(pointer, abs=0.5)


def test_a_clip_cut_off_without_a_fade_does_not_make_the_eyes_jump(hana, look_clip):
    rt, driver = make_runtime(hana)
    pointer = point_to_her_right(rt)
    driver.mixer.play_base(look_clip, fade=0.0)
    run(rt, 1.2)
    driver.mixer.clear()
    rt.update(FRAME)
    assert rt.look.clip_gaze is None and rt.look.yaw > LEFT_DEG - 3.0   # still near the clip
    run(rt, 1.0)
    assert rt.look.yaw == pytest.approx(pointer, abs=0.01)


def test_a_broken_look_track_is_ignored(hana):
    times = np.array([0.0, 1.0])
    broken = Clip("broken", "broken", 1.0,
                  look_at=Track(times, np.full((2, 4), np.nan), quaternion=True))
    rt, driver = make_runtime(hana)
    pointer = point_to_her_right(rt)
    driver.mixer.play_base(broken, fade=0.0)
    run(rt, 0.5)
    assert rt.look.clip_gaze is None and rt.look.yaw == pytest.approx(pointer, abs=1e-3)
    assert np.all(np.isfinite(rt.pose.normalized))


def test_expression_type_models_get_look_left(look_clip):
    model = humanoid(face=True, look_type="expression")
    model.look_at.horizontal_outer = RangeMap(90.0, 1.0)
    rt, driver = make_runtime(model)
    driver.mixer.play_base(look_clip, fade=0.0)
    run(rt, 1.2)
    assert rt.expressions.get("lookLeft") == pytest.approx(LEFT_DEG / 90.0, abs=1e-4)
    assert rt.expressions.get("lookRight") == 0.0


def test_shared_test_vrma_look_track_plays():
    path = VRMA_DIR / "test.vrma"
    if not path.is_file() or not HANA.is_file():
        pytest.skip(f"shared asset missing: {path}")
    clip = load_vrma(path)
    rt, driver = make_runtime(load_model(HANA))
    point_to_her_right(rt)
    driver.mixer.play_base(clip, fade=0.0)
    run(rt, 0.5)
    expected = gaze_angles(clip.look_at.values[0])  # its track holds the gaze ahead
    assert rt.look.clip_weight == 1.0
    assert (rt.look.yaw, rt.look.pitch) == pytest.approx(expected, abs=0.5)


def test_a_fade_interrupted_mid_way_fades_the_gaze_from_where_it_was(look_clip, tmp_path):
    mixer = AnimationDriver().mixer
    mixer.play_base(look_clip, fade=0.0)
    for _ in range(72):
        mixer.update_dense(FRAME)  # 1.2 s: held at LEFT_DEG
    mixer.play_base(load_vrma(simple_vrma(tmp_path / "a.vrma")), fade=1.0)
    for _ in range(30):
        mixer.update_dense(FRAME)
    assert _close(mixer.gaze, LEFT_DEG, 0.0, 0.5)
    mixer.play_base(load_vrma(simple_vrma(tmp_path / "b.vrma")), fade=1.0)
    for _ in range(30):
        mixer.update_dense(FRAME)
    assert mixer.gaze is not None and mixer.gaze.weight == pytest.approx(0.25, abs=1e-6)
    for _ in range(31):
        mixer.update_dense(FRAME)
    assert mixer.gaze is None
