"""The avatar's per-frame costs (``bench --only avatar``): update, animation and an
offscreen frame, for the built-in avatar and the shared models."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from companion_desktop.cli.bench.stats import percentile


def _avatar_models() -> list[tuple[str, Path]]:
    from companion_desktop.cli.bench.peer import shared_dir
    from companion_desktop.resources import default_avatar_path

    models = [("Hana (default)", default_avatar_path())]
    godette = shared_dir() / "assets" / "vrm0" / "Godette_vrm_v4.vrm"
    models.append(("Godette", godette))
    return [(name, path) for name, path in models if path.is_file()]


def bench_avatar_update(path: Path, frames: int = 300, report: Callable[[str], None] = print,
                        aim_ms: float = 1.0) -> dict[str, float]:
    """Per-frame CPU update of the runtime in the three-vrm peer's workload (idle clip,
    blink, ``happy`` at 0.5, a moving look-at target, dt 1/60, springs at 60 Hz), split by
    stage, in milliseconds."""
    from companion_desktop.avatar.animation.workload import twin_update_workload

    stages: dict[str, list[float]] = {}
    whole = twin_update_workload(path, frames, stages=stages)
    figures = {name: statistics.median(values) for name, values in stages.items()}
    parts = ", ".join(f"{name} {ms:.3f}" for name, ms in figures.items())
    figures["update_p50"] = statistics.median(whole)
    figures["update_p95"] = percentile(whole, 95)
    report(f"  CPU update per frame (the peer's workload): p50 {figures['update_p50']:.2f} ms, "
           f"p95 {figures['update_p95']:.2f} ms (aim <= {aim_ms:g} ms); "
           f"by stage (median ms): {parts}")
    return figures

def bench_avatar_frame(path: Path, frames: int = 20, report: Callable[[str], None] = print) -> None:
    """Full frame: update + draw + read back at 512x768 (llvmpipe here: no GPU)."""
    import random

    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime
    from companion_desktop.cli.offscreen_gl import use_available_context

    use_available_context()
    model = load_model(path)
    runtime = AvatarRuntime(model, random.Random(0), animation=relaxed_pose)
    for samples in (0, 4):
        try:
            renderer = OffscreenRenderer(samples=samples)
        except RenderUnavailable as error:
            report(f"  full frame: no OpenGL context here ({error})")
            return
        with renderer:
            renderer.render(model, runtime.update(1 / 30), 512, 768)
            times = []
            for _ in range(frames):
                t0 = time.perf_counter()
                renderer.render(model, runtime.update(1 / 30), 512, 768)
                times.append((time.perf_counter() - t0) * 1000)
        report(f"  full frame 512x768 (update + draw + readback, {samples}x MSAA): "
               f"p50 {statistics.median(times):.1f} ms, p95 {percentile(times, 95):.1f} ms")


def bench_animation(path: Path, frames: int = 600, report: Callable[[str], None] = print) -> None:
    """Per-frame cost of sampling one clip plus the mixer, written into the pose."""

    from companion_desktop.avatar.animation.driver import AnimationDriver
    from companion_desktop.avatar.animation.library import AnimationLibrary
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.pose import Pose

    model = load_model(path)
    library = AnimationLibrary()
    idles = library.builtin_idle_ids
    if not idles:
        report("  animation: no built-in clips found")
        return
    driver = AnimationDriver()
    pose = Pose(model)
    driver.mixer.play_base(library.get(idles[0]), fade=0.0)
    for i in range(60):
        driver(pose, 1 / 30, i / 30)
    steady, fading = [], []
    for i in range(frames):
        if i == frames // 2 and len(idles) > 1:
            driver.mixer.play_base(library.get(idles[1]), fade=5.0)  # a long cross-fade
            if library.emote_ids:
                driver.mixer.play_emote(library.get(library.emote_ids[0]))
        t0 = time.perf_counter()
        driver(pose, 1 / 30, i / 30)
        (steady if i < frames // 2 else fading).append((time.perf_counter() - t0) * 1000)
    joints = len(model.skins[0].joints) if model.skins else 0
    report(f"  animation per frame ({joints}-joint skin): one clip + mixer p50 "
           f"{statistics.median(steady):.3f} ms; cross-fade + emote p50 "
           f"{statistics.median(fading):.3f} ms, "
           f"p95 {percentile(fading, 95):.3f} ms (aim < 0.5 ms)")


def run_avatar_bench() -> None:
    """Every section of the avatar bench, for each model found."""
    for name, path in _avatar_models():
        print(f"avatar: {name}")
        bench_avatar_update(path, aim_ms=1.0 if "Hana" in name else 0.5)
        bench_animation(path)
        bench_avatar_frame(path)
