"""The per-frame update workload of the three-vrm peer benchmark, for our runtime.

A twin of ``shared/bench/threevrm/page.js``'s ``simulate(dt)``: ``idle_loop.vrma`` plays
through an ``AnimationDriver``; ``happy`` is held at 0.5; ``blink`` follows a 0.2 s
triangle every 3 s (the runtime's own blinking is off, breathing stays on, as in the
app); the look-at target moves on a Lissajous path in front of the face; dt is a fixed
1/60 s; spring bones run. ``twin_update_workload`` times ``AvatarRuntime.update`` alone
(milliseconds per frame); ``twin_frames`` yields the frames for agreement tests.

Numpy only (no GL, no Qt). Lengths in metres, times in seconds.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from ..vrm.frame import Frame
from ..vrm.loader import load_model
from ..vrm.model import VrmModel
from ..vrm.runtime import AvatarRuntime
from .driver import AnimationDriver
from .vrma import load_vrma

DT_S = 1.0 / 60.0
WARMUP_FRAMES = 30
#: The clip the peer plays (shared assets).
IDLE_CLIP = Path(__file__).resolve().parents[3].parent / "shared/assets/vrma/idle_loop.vrma"


def twin_blink(t: float) -> float:
    """The peer's blink weight at ``t`` seconds: a 0.2 s triangle every 3 s (0..1)."""
    phase = t % 3.0
    return 1.0 - abs(phase / 0.1 - 1.0) if phase < 0.2 else 0.0


def twin_target(t: float, center: np.ndarray, distance: float) -> np.ndarray:
    """The peer's look-at target at ``t`` seconds: a Lissajous path in the plane
    ``distance`` metres in front of ``center`` (world, the model faces +Z)."""
    return np.array([center[0] + 0.35 * distance * math.sin(t * 0.9),
                     center[1] + 0.2 * distance * math.sin(t * 1.3 + 0.5),
                     distance])


def twin_runtime(model: VrmModel, clip_path: str | Path = IDLE_CLIP
                 ) -> tuple[AvatarRuntime, np.ndarray, float]:
    """A runtime set up as the peer's page: the runtime, the face centre (world metres)
    and the camera distance (metres) for ``twin_target``."""
    driver = AnimationDriver()
    driver.mixer.play_base(load_vrma(clip_path), fade=0.0)
    runtime = AvatarRuntime(model, random.Random(0), animation=driver)
    driver.bind(runtime)
    runtime.set_blink_enabled(False)
    runtime.set_expression("happy", 0.5)
    head = model.humanoid.get("head")
    center = np.zeros(3)
    if head is not None:
        center = runtime.pose.skeleton.rest_world[head, :3, 3].copy()
    return runtime, center, 1.5


def twin_frames(model: VrmModel, frames: int = 300, clip_path: str | Path = IDLE_CLIP,
                dt: float = DT_S) -> Iterator[tuple[AvatarRuntime, Frame]]:
    """Each frame of the workload (warm-up ones included): ``(runtime, frame)``."""
    runtime, center, distance = twin_runtime(model, clip_path)
    t = 0.0
    for _ in range(frames):
        t += dt
        runtime.set_expression("blink", twin_blink(t))
        runtime.look_at_point(twin_target(t, center, distance))
        yield runtime, runtime.update(dt)


def twin_update_workload(path: str | Path, frames: int = 300, *,
                         clip_path: str | Path = IDLE_CLIP,
                         stages: dict[str, list[float]] | None = None,
                         clock: Callable[[], float] = time.perf_counter) -> list[float]:
    """Milliseconds of ``AvatarRuntime.update`` for each of ``frames`` timed frames (after
    ``WARMUP_FRAMES`` untimed ones) of the peer workload on the model at ``path``.

    ``stages``, when given, is filled with per-frame milliseconds by stage name (the
    runtime's ``timings``, wall time), for the timed frames. ``clock`` (seconds) may be
    ``time.thread_time`` to count this thread's CPU time only, on a busy machine."""
    model = load_model(path)
    runtime, center, distance = twin_runtime(model, clip_path)
    out: list[float] = []
    t = 0.0
    for i in range(WARMUP_FRAMES + frames):
        t += DT_S
        runtime.set_expression("blink", twin_blink(t))
        runtime.look_at_point(twin_target(t, center, distance))
        timed = i >= WARMUP_FRAMES
        if timed and stages is not None:
            runtime.timings = {}
        t0 = clock()
        runtime.update(DT_S)
        elapsed = (clock() - t0) * 1000.0
        if timed:
            out.append(elapsed)
            if stages is not None and runtime.timings is not None:
                for name, ms in runtime.timings.items():
                    stages.setdefault(name, []).append(ms)
    return out
