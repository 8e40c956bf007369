"""The director's moves (walk, sit) and her facing, over the built-in library and Hana:
a move loops until stopped (the idle cycle leaves it alone), a turn takes over from it,
it is refused while she is busy, and facing turns her whole body, eased."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.animation.facing import SIDE_YAW_DEG
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.resources import default_avatar_path
from tests.avatar.animation.test_director import make


@pytest.fixture(scope="module")
def hana():
    return load_model(default_avatar_path())


def test_a_move_loops_until_stopped_and_the_idle_cycle_leaves_it_alone(hana):
    director, runtime = make(hana)
    assert director.play_move("walk") and director.moving == "walk"
    for _ in range(int(30 / 0.1)):  # 30 s: 25 loops of the walk
        runtime.update(0.1)
        assert director.mixer.base_clip.id == "walk"
    director.stop_move()
    assert director.moving is None
    assert director.mixer.base_clip.id in director.library.builtin_idle_ids


def test_talking_takes_over_and_a_late_stop_leaves_it(hana):
    director, _ = make(hana)
    director.play_move("walk")
    director.text_started()
    assert director.talking and director.moving is None
    director.stop_move()  # the walker noticing late
    assert director.mixer.base_clip.id == "talking"
    assert not director.play_move("sit")  # refused while she talks
    director.turn_ended()
    director.posing = True
    assert not director.play_move("walk")  # refused in photo mode


def test_a_turn_without_a_thinking_clip_still_ends_the_walk(hana):
    director, _ = make(hana, thinking=None)
    director.play_move("walk")
    director.turn_started()
    assert director.moving is None
    assert director.mixer.base_clip.id in director.library.builtin_idle_ids
    director, _ = make(hana, thinking="thinking")
    director.play_move("sit")
    director.turn_started()
    assert director.moving is None and director.mixer.base_clip.id == "thinking"


def test_an_unknown_move_is_refused(hana):
    director, _ = make(hana)
    assert not director.play_move("moonwalk")
    assert director.moving is None


def _forward(runtime, hana) -> np.ndarray:
    """Where her hips face in the world (the frame's hips rotation applied to +Z)."""
    world = runtime.update(1 / 30).world
    rest = runtime.pose.skeleton.rest_world[hana.humanoid["hips"]]
    turn = world[hana.humanoid["hips"], :3, :3] @ np.linalg.inv(rest[:3, :3])
    return turn @ np.array([0.0, 0.0, 1.0])


def test_facing_turns_her_body_toward_screen_right_and_back_eased(hana):
    director, runtime = make(hana)
    director.play_move("walk")
    ahead = _forward(runtime, hana)
    assert ahead[2] > 0.9  # toward the viewer
    director.facing.face(1)
    runtime.update(0.05)
    partway = np.degrees(np.arctan2(*_forward(runtime, hana)[[0, 2]]))
    assert 2.0 < partway < SIDE_YAW_DEG - 5.0  # eased, not a snap
    for _ in range(40):
        runtime.update(1 / 30)
    yaw = np.degrees(np.arctan2(*_forward(runtime, hana)[[0, 2]]))
    assert yaw == pytest.approx(SIDE_YAW_DEG, abs=8.0)  # +X: the viewer's right
    director.facing.face(-1)
    for _ in range(60):
        runtime.update(1 / 30)
    yaw = np.degrees(np.arctan2(*_forward(runtime, hana)[[0, 2]]))
    assert yaw == pytest.approx(-SIDE_YAW_DEG, abs=8.0)
