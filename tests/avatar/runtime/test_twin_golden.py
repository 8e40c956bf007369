"""The peer-benchmark workload (``animation.workload``) against a recorded golden.

The golden (``golden/twin_<model>.npz``) was recorded from the straightforward runtime
(per-level world matrices recomputed three times a frame, quaternion helpers per stage)
before the per-frame path was made fast; the fast path must give the same frames within
1e-5: world matrices every 10th frame of 300 (the whole run is simulated, so the spring
bones' history counts), joint matrices (``world[joint] @ inverse_bind``), morph weights
and ``changed`` every frame. Record again (only when a change of behaviour is meant) with
``python -m tests.avatar.runtime.test_twin_golden``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.animation.workload import IDLE_CLIP, twin_frames
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.resources import default_avatar_path
from tests.avatar.runtime.runtime_models import GODETTE

GOLDEN = Path(__file__).resolve().parent / "golden"
MODELS = {"godette": GODETTE, "hana": default_avatar_path()}
FRAMES, EVERY, TOL = 300, 10, 1e-5


def _run(path: Path) -> dict[str, np.ndarray]:
    """The workload's frames, packed as the golden is."""
    world, morphs, changed = [], [], []
    for i, (runtime, frame) in enumerate(twin_frames(load_model(path), FRAMES)):
        if i % EVERY == EVERY - 1:
            world.append(frame.world[:, :3, :].astype(np.float32))
        morphs.append(np.concatenate(frame.morph_weights).astype(np.float32))
        changed.append(runtime.changed)
        assert not frame.material_colors and not frame.texture_transforms
    return {"world": np.stack(world), "morphs": np.stack(morphs), "changed": np.array(changed)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_twin_workload_matches_golden(name: str) -> None:
    path = MODELS[name]
    if not path.exists() or not IDLE_CLIP.exists():
        pytest.skip(f"shared asset missing: {path} or {IDLE_CLIP}")
    golden = np.load(GOLDEN / f"twin_{name}.npz")
    model = load_model(path)
    world_err = joint_err = 0.0
    for i, (runtime, frame) in enumerate(twin_frames(model, FRAMES)):
        full = frame.world.astype(np.float64)
        for (joints, ibm), got in zip(runtime.pose.skeleton.skins, frame.joint_matrices,
                                      strict=True):
            joint_err = max(joint_err, float(np.max(np.abs(full[joints] @ ibm - got),
                                                    initial=0.0)))
        if i % EVERY == EVERY - 1:
            want = golden["world"][i // EVERY]
            world_err = max(world_err, float(np.max(np.abs(frame.world[:, :3, :] - want))))
        morphs = np.concatenate(frame.morph_weights)
        assert np.max(np.abs(morphs - golden["morphs"][i]), initial=0.0) <= TOL, i
        assert runtime.changed == bool(golden["changed"][i]), i
    assert world_err <= TOL
    assert joint_err <= TOL


def record() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, path in MODELS.items():
        np.savez_compressed(GOLDEN / f"twin_{name}.npz", **_run(path))


if __name__ == "__main__":
    record()
