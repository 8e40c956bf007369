"""Our renderer beside its peer (``companion-desktop bench --only peer``).

``bench_threevrm_twin`` runs our renderer through the per-frame work of the three-vrm harness
in ``shared/bench/threevrm`` (page.js): 512x768, no MSAA, idle_loop.vrma playing, a 0.2 s
blink every 3 s, ``happy`` at 0.5, the look-at target on page.js's Lissajous path, fixed
dt 1/60, page.js's upper-body framing, render then read back one pixel; 30 warm-up frames,
300 timed. When node, chromium and an installed copy of the harness are here, the harness
runs on Godette right after, and the ratios ours/peer are printed. Nothing is installed
unless ``--peer-install`` asks for it.
"""

from __future__ import annotations

import filecmp
import json
import math
import os
import shutil
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

HARNESS_FILES = ("bench.mjs", "page.js", "index.html", "summarize.mjs", "package.json",
                 "package-lock.json", "README.md")
WIDTH, HEIGHT = 512, 768


def shared_dir() -> Path:
    """``$COMPANION_SHARED_DIR``, else the ``shared`` folder beside the project root."""
    configured = os.environ.get("COMPANION_SHARED_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[4] / "shared"


def harness_dir() -> Path:
    """Where the installed harness lives: ``$COMPANION_THREEVRM_DIR``, else the user cache."""
    configured = os.environ.get("COMPANION_THREEVRM_DIR")
    if configured:
        return Path(configured)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("companion-desktop")) / "threevrm"


def bench_threevrm_twin(path: Path, frames: int = 300, warmup: int = 30,
                        report: Callable[[str], None] = print) -> dict[str, float] | None:
    """Our renderer doing page.js's frame; returns fps, update_ms_mean, render_ms_mean."""
    import random

    import numpy as np

    from companion_desktop.avatar.animation.driver import AnimationDriver
    from companion_desktop.avatar.animation.vrma import load_vrma
    from companion_desktop.avatar.render.bounds import all_posed_positions
    from companion_desktop.avatar.render.camera import Camera
    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime
    from companion_desktop.cli.offscreen_gl import use_available_context

    use_available_context()
    clip_path = shared_dir() / "assets" / "vrma" / "idle_loop.vrma"
    if not clip_path.is_file():
        report(f"  three-vrm twin: {clip_path} not found")
        return None
    model = load_model(path)
    driver = AnimationDriver()
    runtime = AvatarRuntime(model, random.Random(0), animation=driver)
    driver.bind(runtime)
    driver.mixer.play_base(load_vrma(clip_path), fade=0.0)
    runtime.set_blink_enabled(False)  # page.js drives the blink itself
    runtime.breathing = False
    runtime.set_expression("happy", 0.5)
    first = runtime.update(0.0)
    # page.js frameUpperBody: hips to the top of the bounding box + 3%, 30 degrees, x = 0
    points = all_posed_positions(model, first)
    low, high = float(points[:, 1].min()), float(points[:, 1].max())
    top = high + 0.03 * (high - low)
    hips = float(first.world[model.humanoid["hips"]][1, 3]) if "hips" in model.humanoid else None
    bottom = hips if hips is not None and low < hips < top else high - 0.6 * (high - low)
    center, distance = (0.5 * (top + bottom),
                        0.5 * max(top - bottom, 1e-2) / math.tan(math.radians(15)))
    camera = Camera(eye=np.array([0, center, distance], np.float32),
                    target=np.array([0, center, 0], np.float32), fov_y=30.0,
                    near=max(0.01, distance * 0.05), far=distance * 20)
    clock = [0.0]

    def simulate():  # noqa: ANN202
        clock[0] += 1 / 60
        t = clock[0]
        phase = t % 3.0
        runtime.set_expression("blink", 1 - abs(phase / 0.1 - 1) if phase < 0.2 else 0.0)
        runtime.look_at_point(np.array([0.35 * distance * math.sin(t * 0.9),
                                        center + 0.2 * distance * math.sin(t * 1.3 + 0.5),
                                        distance], np.float32))
        return runtime.update(1 / 60)

    try:
        offscreen = OffscreenRenderer(samples=0)
    except RenderUnavailable as error:
        report(f"  three-vrm twin: no OpenGL context here ({error})")
        return None
    with offscreen:
        renderer = offscreen.renderer
        read_pixel = getattr(renderer, "read_pixel", None) or (lambda: _read_one_pixel(renderer))
        offscreen.render(model, simulate(), WIDTH, HEIGHT, camera=camera)  # upload, compile
        updates, renders = [], []
        for i in range(warmup + frames):
            if i == warmup:
                wall0 = time.perf_counter()
            t0 = time.perf_counter()
            frame = simulate()
            t1 = time.perf_counter()
            renderer.draw(frame, camera, WIDTH, HEIGHT)
            read_pixel()
            t2 = time.perf_counter()
            if i >= warmup:
                updates.append((t1 - t0) * 1000)
                renders.append((t2 - t1) * 1000)
        wall = time.perf_counter() - wall0
    return {"fps": frames / wall, "update_ms_mean": statistics.fmean(updates),
            "render_ms_mean": statistics.fmean(renders)}


def _read_one_pixel(renderer) -> None:  # noqa: ANN001
    """One pixel from the last picture (a renderer without ``read_pixel``)."""
    from OpenGL import GL

    last = getattr(renderer, "_last_read", None)
    if last is not None:
        GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, last[0])
    GL.glReadPixels(0, 0, 1, 1, GL.GL_RGBA, GL.GL_UNSIGNED_BYTE)


# -- the peer harness -------------------------------------------------------------------------
def _missing_tools() -> str | None:
    if shutil.which("node") is None:
        return "node is not on PATH"
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not Path(chromium).is_file():
        return f"no chromium at {chromium}"
    if not (shared_dir() / "bench" / "threevrm" / "bench.mjs").is_file():
        return f"no harness in {shared_dir() / 'bench' / 'threevrm'}"
    return None


def _sync_harness(target: Path) -> None:
    """Copy the harness files that changed in the shared folder (node_modules stays)."""
    source = shared_dir() / "bench" / "threevrm"
    target.mkdir(parents=True, exist_ok=True)
    for name in HARNESS_FILES:
        if (source / name).is_file() and not ((target / name).is_file()
                                              and filecmp.cmp(source / name, target / name, False)):
            shutil.copy2(source / name, target / name)


def install_peer(report: Callable[[str], None] = print) -> bool:
    """``--peer-install``: copy the harness to the cache folder and run npm there."""
    missing = _missing_tools() or (None if shutil.which("npm") else "npm is not on PATH")
    if missing:
        report(f"  three-vrm peer: cannot install ({missing})")
        return False
    target = harness_dir()
    _sync_harness(target)
    verb = "ci" if (target / "package-lock.json").is_file() else "install"
    report(f"  three-vrm peer: npm {verb} in {target} ...")
    try:
        done = subprocess.run(["npm", verb, "--no-audit", "--no-fund"], cwd=target, timeout=900,
                              capture_output=True, text=True)
    except subprocess.TimeoutExpired:
        report("  three-vrm peer: npm took over 15 minutes; stopped")
        return False
    if done.returncode != 0:
        report(f"  three-vrm peer: npm {verb} failed: {done.stderr.strip().splitlines()[-1:]}")
        return False
    return True


def run_peer(report: Callable[[str], None] = print, timeout: float = 300.0) -> dict | None:
    """The three-vrm harness on Godette (llvmpipe, no idle window); its JSON line, or None."""
    missing = _missing_tools()
    target = harness_dir()
    if missing is None and not (target / "node_modules").is_dir():
        missing = (f"not installed in {target}; `companion-desktop bench --only peer "
                   "--peer-install` copies it there and runs npm once")
    if missing:
        report(f"  three-vrm peer: not run ({missing})")
        return None
    if "COMPANION_THREEVRM_DIR" not in os.environ:
        _sync_harness(target)
    command = ["node", "bench.mjs", "--gl", "llvmpipe", "--idle-seconds", "0",
               "--assets", str(shared_dir() / "assets")]
    try:
        done = subprocess.run(command, cwd=target, timeout=timeout, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        report(f"  three-vrm peer: no result within {timeout:.0f} s")
        return None
    result = parse_peer_output(done.stdout)
    if result is None:
        tail = (done.stdout.strip() or done.stderr.strip()).splitlines()[-1:]
        report(f"  three-vrm peer: no figures (exit {done.returncode}): {tail}")
    return result


def parse_peer_output(stdout: str) -> dict | None:
    """The last JSON line of bench.mjs that carries fps, update_ms_mean and render_ms_mean."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and all(k in item
                                          for k in ("fps", "update_ms_mean", "render_ms_mean")):
            return item
    return None


def _figures(name: str, ours: dict[str, float], update_aim: float) -> str:
    return (f"  ours, {name}, three-vrm's frame (512x768, no MSAA, idle_loop.vrma, one-pixel "
            f"readback): {ours['fps']:.1f} fps, update {ours['update_ms_mean']:.2f} ms "
            f"(aim <= {update_aim:g} ms), render {ours['render_ms_mean']:.2f} ms")


def run_peer_bench(report: Callable[[str], None] = print, install: bool = False,
                   frames: int = 300) -> None:
    from companion_desktop.resources import default_avatar_path

    report("peer (three-vrm's per-frame work, shared/bench/threevrm):")
    if install and not install_peer(report):
        return
    godette = shared_dir() / "assets" / "vrm0" / "Godette_vrm_v4.vrm"
    if godette.is_file():
        ours = bench_threevrm_twin(godette, frames, report=report)
        if ours is not None:
            report(_figures("Godette", ours, 0.5))
            peer = run_peer(report)
            if peer is not None:
                report(f"  three-vrm, Godette (llvmpipe): {peer['fps']:.1f} fps, update "
                       f"{peer['update_ms_mean']:.2f} ms, render {peer['render_ms_mean']:.2f} ms; "
                       f"ours/peer: fps {ours['fps'] / peer['fps']:.2f}x (aim >= 2x), update "
                       f"{ours['update_ms_mean'] / peer['update_ms_mean']:.2f}x, render "
                       f"{ours['render_ms_mean'] / peer['render_ms_mean']:.2f}x")
    else:
        report(f"  three-vrm twin: {godette} not found")
    hana = bench_threevrm_twin(default_avatar_path(), frames, report=report)
    if hana is not None:
        report(_figures("Hana", hana, 1.0))
