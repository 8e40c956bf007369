"""Spring bones advance in fixed 60 Hz steps inside ``AvatarRuntime.update``, whatever dt."""

from __future__ import annotations

import math
import random

import pytest

from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.avatar.vrm.spring import MAX_DT_S, STEP_S
from tests.avatar.runtime.runtime_models import humanoid


def _count_steps(dts: list[float]) -> list[int]:
    runtime = AvatarRuntime(humanoid(hair=2), random.Random(0))
    counts: list[int] = []
    update = runtime.springs.update

    def counting(pose, world, dt):
        counts.append(update(pose, world, dt))
        return counts[-1]

    runtime.springs.update = counting  # type: ignore[method-assign]
    for dt in dts:
        runtime.update(dt)
    return counts


@pytest.mark.parametrize("dt", [1 / 144, 1 / 120, 1 / 60, 1 / 45, 1 / 30, 0.05, 0.1])
def test_springs_step_at_60_hz_for_any_frame_time(dt: float) -> None:
    seconds = 3.0
    counts = _count_steps([dt] * round(seconds / dt))
    assert sum(counts) in (math.floor(seconds / STEP_S + 1e-6), round(seconds / STEP_S) - 1)
    assert max(counts) <= math.ceil(dt / STEP_S)


def test_a_hitch_runs_at_most_max_dt_of_steps() -> None:
    counts = _count_steps([1 / 60, 2.5, 1 / 60])
    assert counts == [1, round(MAX_DT_S / STEP_S), 1]


def test_jittery_frames_keep_the_60_hz_total() -> None:
    rng = random.Random(1)
    dts = [rng.uniform(0.004, 0.04) for _ in range(400)]
    total = sum(counts := _count_steps(dts))
    assert abs(total - sum(dts) / STEP_S) <= 1.0
    assert min(counts) >= 0
