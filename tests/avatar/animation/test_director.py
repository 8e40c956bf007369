"""The director over the built-in library and Hana: idle cycle, thinking, talking, actions."""

from __future__ import annotations

import random
from itertools import pairwise

import pytest

from companion_desktop.avatar.animation.director import Director
from companion_desktop.avatar.animation.library import AnimationLibrary
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.resources import default_avatar_path


@pytest.fixture(scope="module")
def hana():
    return load_model(default_avatar_path())


def make(hana, thinking=None, pool=None):
    library = AnimationLibrary()
    director = Director(library, random.Random(3), pool=lambda: list(pool or []),
                        thinking_clip=lambda: thinking)
    runtime = AvatarRuntime(hana, random.Random(0), animation=director, springs=False)
    director.bind(runtime)
    runtime.update(1 / 30)
    return director, runtime


def test_she_starts_idling_on_a_builtin_idle(hana):
    director, _ = make(hana)
    assert director.mixer.base_clip.id in director.library.builtin_idle_ids


def test_idle_cycle_switches_and_never_repeats(hana):
    director, runtime = make(hana)
    seen = [director.mixer.base_clip.id]
    for _ in range(int(80 / 0.1)):  # 80 s of idling
        runtime.update(0.1)
        current = director.mixer.base_clip.id
        if current != seen[-1]:
            seen.append(current)
    assert len(seen) >= 3
    assert all(a != b for a, b in pairwise(seen))
    assert set(seen) <= set(director.library.builtin_idle_ids)


def test_pool_is_respected(hana):
    director, runtime = make(hana, pool=["idle_sway", "idle_calm"])
    for _ in range(int(60 / 0.1)):
        runtime.update(0.1)
        assert director.mixer.base_clip.id in {"idle_sway", "idle_calm"}


def test_thinking_then_talking_then_idle(hana):
    director, runtime = make(hana, thinking="thinking")
    director.turn_started()
    assert director.thinking and director.mixer.base_clip.id == "thinking"
    runtime.update(0.5)
    director.text_started()
    assert director.talking and not director.thinking
    assert director.mixer.base_clip.id == director.library.talking_id
    director.turn_ended()
    assert not director.talking and director.mixer.base_clip.id in director.library.builtin_idle_ids


def test_no_thinking_clip_keeps_idling(hana):
    director, _ = make(hana, thinking=None)
    before = director.mixer.base_clip.id
    director.turn_started()
    assert not director.thinking and director.mixer.base_clip.id == before


def test_actions_go_through_the_gate(hana):
    director, runtime = make(hana)
    assert director.request_action("wave", 100.0).allowed
    assert director.mixer.playing_emote
    assert director.request_action("nod", 101.0).reason == "emote_playing"
    for _ in range(60):
        runtime.update(0.1)  # the wave ends
    assert not director.mixer.playing_emote
    assert director.request_action("nod", 106.0).reason == "too_soon"
    assert director.request_action("dance", 120.0).reason == "unknown"
    director.posing = True
    assert director.request_action("nod", 130.0).reason == "photo_mode"
