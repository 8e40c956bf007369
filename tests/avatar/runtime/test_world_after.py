"""``Pose.world_matrices_after``: recomputing only the changed nodes' subtrees gives the
world matrices of a full recompute (float64, up to rounding)."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.vrm import quat
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.pose import Pose
from companion_desktop.resources import default_avatar_path


@pytest.fixture(scope="module")
def pose() -> Pose:
    return Pose(load_model(default_avatar_path()))


@pytest.mark.parametrize("pick", ["leaves", "middle", "roots", "none"])
def test_world_after_matches_full_recompute(pose: Pose, pick: str) -> None:
    rng = np.random.default_rng(7)
    sk = pose.skeleton
    pose.reset()
    pose.rotation[:] = quat.normalize(sk.rest_rotation + rng.normal(0, 0.2, sk.rest_rotation.shape))
    world = pose.world_matrices()
    has_children = np.isin(np.arange(sk.count), sk.parents)
    nodes = {
        "leaves": np.nonzero(~has_children)[0][::3],
        "middle": np.nonzero(has_children & (sk.parents >= 0))[0][::4],
        "roots": np.nonzero(sk.parents < 0)[0],
        "none": np.zeros(0, np.int64),
    }[pick]
    pose.rotation[nodes] = quat.normalize(rng.normal(size=(len(nodes), 4)))
    pose.translation[nodes] += rng.normal(0, 0.01, (len(nodes), 3))
    got = pose.world_matrices_after(world, nodes)
    want = pose.world_matrices()
    assert got is not world
    assert np.max(np.abs(got - want)) < 1e-12
