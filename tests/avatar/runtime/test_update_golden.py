"""The app's idle frame loop against frames recorded before the per-frame update was made
cheaper (issue 27): the same numbers up to float32 rounding.

The loop is the app's: the animation ``Director`` with the built-in clips (an idle, the
talking clip and back, cross-faded, and an emote over the base), blinking and breathing
on, at 30 frames a second (two spring steps a frame), with a moving look-at target, a
mood, a flash and lip-sync visemes on the way. World matrices every 10th frame (the whole
run is simulated, so the spring bones' history counts), morph weights and ``changed``
every frame must match within ``TOL``; the joint matrices of every frame must be
``world[joint] @ inverse_bind``. Record again (only
when a change of behaviour is meant) with ``python -m tests.avatar.runtime.test_update_golden``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.animation.director import Director
from companion_desktop.avatar.animation.library import AnimationLibrary
from companion_desktop.avatar.vrm.frame import Frame
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.resources import default_avatar_path
from tests.avatar.runtime.runtime_models import GODETTE

GOLDEN = Path(__file__).resolve().parent / "golden"
MODELS = {"godette": GODETTE, "hana": default_avatar_path()}
FRAMES, EVERY, DT = 400, 10, 1.0 / 30.0
TOL = 1e-6  # metres (a float32 step at 2 m is 2.4e-7) and morph weight


def idle_frames(path: Path, frames: int = FRAMES) -> Iterator[tuple[AvatarRuntime, Frame]]:
    """The app's idle loop on the model at ``path`` (seeded), one frame at a time."""
    library = AnimationLibrary()
    director = Director(library, random.Random(0))
    runtime = AvatarRuntime(load_model(path), random.Random(0), animation=director)
    director.bind(runtime)
    runtime.mood("joy", 60.0)
    emotes = sorted(library.emote_ids)
    for i in range(frames):
        t = i * DT
        if i == 120:
            director.text_started()
        elif i == 220:
            director.turn_ended()
        elif i == 300 and emotes:
            director.play_emote(library.get(emotes[0]))
        runtime.look_at_point(np.array([0.4 * math.sin(0.7 * t), 1.3 + 0.2 * math.sin(1.1 * t),
                                        1.5], np.float32))
        if i == 100:
            runtime.flash("surprise")
        if 150 <= i < 200:
            runtime.set_visemes({"aa": 0.5 + 0.5 * math.sin(t * 9.0), "ou": 0.3})
        elif i == 200:
            runtime.set_visemes(None)
        yield runtime, runtime.update(DT)


def _run(path: Path) -> dict[str, np.ndarray]:
    """The loop's frames, packed as the golden is."""
    world, morphs, changed = [], [], []
    for i, (runtime, frame) in enumerate(idle_frames(path)):
        if i % EVERY == EVERY - 1:
            world.append(frame.world[:, :3, :].astype(np.float32))
        morphs.append(np.concatenate(frame.morph_weights).astype(np.float32))
        changed.append(runtime.changed)
    return {"world": np.stack(world), "morphs": np.stack(morphs), "changed": np.array(changed)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_idle_loop_matches_golden(name: str) -> None:
    path = MODELS[name]
    if not path.exists():
        pytest.skip(f"shared asset missing: {path}")
    golden = np.load(GOLDEN / f"idle_{name}.npz")
    world_err = joint_err = morph_err = 0.0
    for i, (runtime, frame) in enumerate(idle_frames(path)):
        full = frame.world.astype(np.float64)
        for (joints, ibm), got in zip(runtime.pose.skeleton.skins, frame.joint_matrices,
                                      strict=True):
            joint_err = max(joint_err, float(np.max(np.abs(full[joints] @ ibm - got),
                                                    initial=0.0)))
        if i % EVERY == EVERY - 1:
            want = golden["world"][i // EVERY]
            world_err = max(world_err, float(np.max(np.abs(frame.world[:, :3, :] - want))))
        morphs = np.concatenate(frame.morph_weights)
        morph_err = max(morph_err, float(np.max(np.abs(morphs - golden["morphs"][i]),
                                                initial=0.0)))
        assert runtime.changed == bool(golden["changed"][i]), i
    assert world_err <= TOL
    assert joint_err <= 1e-5  # float32 joint matrices against float64 products of them
    assert morph_err <= TOL


def record() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, path in MODELS.items():
        np.savez_compressed(GOLDEN / f"idle_{name}.npz", **_run(path))


if __name__ == "__main__":
    record()
