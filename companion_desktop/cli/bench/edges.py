"""Clean edges without a GPU (``bench --only edges``): for Hana and every shared VRM, how
far each way of drawing edges is from a supersampled picture of the same frame, and what
the edge lines and the post pass cost per picture.

The frame is the one ``avatar render MODEL --pose rest --shot full --size 340x640`` draws
(the overlay's size). The reference is the same frame drawn at 4x the width and height
with one sample per pixel and averaged 4x4 (premultiplied), its outlines kept at their
least width in pixels of the small picture. Edge pixels are those where the reference's
alpha is strictly between 0 and 255, and their 8 neighbours; the error is the mean of
|picture - reference| over the R, G, B and A values (premultiplied, 0..255) of those
pixels. Time per picture: draw, edge smoothing and read-back, ``none``, ``post`` and
``lines`` drawn in turn, round after round, medians.
"""

from __future__ import annotations

import random
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

SIZE = (340, 640)
SUPERSAMPLE = 4
#: Pictures timed per way and model (in turn, the way first rotating). With 9, the median
#: moved by a third between two runs on a shared 2-core machine; with 41, Hana's ratio of
#: lines to none stayed within 1% over two runs (the smaller models' within 10%).
ROUNDS = 41


def edge_models() -> list[tuple[str, Path]]:
    """Hana, then every ``*.vrm`` under the shared assets' vrm0/ and vrm1/ (if present)."""
    from companion_desktop.cli.bench.peer import shared_dir
    from companion_desktop.resources import default_avatar_path

    models = [("Hana (default)", default_avatar_path())]
    assets = shared_dir() / "assets"
    for folder in ("vrm0", "vrm1"):
        models += [(f"{folder}/{path.stem}", path)
                   for path in sorted((assets / folder).glob("*.vrm"))]
    return [(name, path) for name, path in models if path.is_file()]


def rest_frame_of(model):  # noqa: ANN001, ANN201
    """Her frame as ``avatar render --pose rest`` draws it: no blink, one 1/30 s step and
    30 more for her face to settle (that command's ``--time 0``)."""
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime

    runtime = AvatarRuntime(model, random.Random(0), animation=None)
    runtime.set_blink_enabled(False)
    frame = runtime.update(1 / 30)
    for _ in range(30):
        frame = runtime.update(1 / 30)
    return frame


def measure_model(path: Path, rounds: int = ROUNDS, size: tuple[int, int] = SIZE,
                  context=None) -> dict[str, float]:  # noqa: ANN001
    """Edge errors ``none``, ``post``, ``lines`` (where the context has compute shaders),
    ``msaa``, and times ``none_ms``, ``post_ms``, ``lines_ms`` for one model (the context:
    the offscreen one of ``avatar render`` unless given)."""
    from companion_desktop.avatar.render.antialias import box_down, edge_error
    from companion_desktop.avatar.render.camera import frame_camera
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer
    from companion_desktop.avatar.vrm.loader import load_model

    width, height = size
    model = load_model(path)
    frame = rest_frame_of(model)
    camera = frame_camera(model, frame, "full", width / height)
    renderers: dict[str, OffscreenRenderer] = {}
    try:
        for mode in ("none", "post", "lines", "msaa"):
            renderers[mode] = OffscreenRenderer(aa=mode, context=context)
            context = context or renderers[mode].context
            if renderers[mode].renderer.aa != mode:  # no compute shaders: no lines here
                renderers.pop(mode).close()

        def picture(mode: str, scale: int = 1):  # noqa: ANN202
            return renderers[mode].render(model, frame, width * scale, height * scale,
                                          camera=camera, premultiplied=True, pixel_scale=scale)

        reference = box_down(picture("none", SUPERSAMPLE), SUPERSAMPLE)
        figures = {mode: edge_error(picture(mode), reference)[0] for mode in renderers}
        figures["edge_pixels"] = float(edge_error(picture("none"), reference)[1])
        timed = [mode for mode in ("none", "post", "lines") if mode in renderers]
        times: dict[str, list[float]] = {mode: [] for mode in timed}
        for index in range(max(1, rounds)):
            for mode in timed[index % len(timed):] + timed[:index % len(timed)]:
                start = time.perf_counter()
                picture(mode)
                times[mode].append((time.perf_counter() - start) * 1000)
        for mode in timed:
            figures[f"{mode}_ms"] = statistics.median(times[mode])
        return figures
    finally:
        for renderer in reversed(list(renderers.values())):  # the context's owner last
            renderer.close()


def _peer_line() -> str:
    """What can be said of three-vrm's own antialiased picture here."""
    from companion_desktop.cli.bench.peer import harness_dir, shared_dir

    if shutil.which("node") is None or not Path("/usr/bin/chromium").is_file():
        return "  three-vrm (--aa): not measured (node or chromium is absent)"
    if not (shared_dir() / "bench" / "threevrm" / "bench.mjs").is_file():
        return "  three-vrm (--aa): not measured (no harness in the shared folder)"
    installed = (harness_dir() / "node_modules").is_dir()
    return ("  three-vrm (--aa): not compared: its harness draws only 512x768, hips to head, "
            "with an idle clip playing, so it cannot draw this frame"
            + ("" if installed else " (and it is not installed: bench --only peer --peer-install)"))


def run_edges_bench(rounds: int = ROUNDS, models: list[tuple[str, Path]] | None = None,
                    report: Callable[[str], None] = print) -> dict[str, dict[str, float]]:
    """The table for every model found; the figures by model name."""
    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.cli.offscreen_gl import use_available_context

    use_available_context()
    width, height = SIZE
    report(f"edges ({width}x{height}, rest pose, full shot; error: mean |picture - reference| "
           f"over RGBA of edge pixels, 0..255, reference {SUPERSAMPLE}x{SUPERSAMPLE} "
           "supersampled):")
    report(f"  {'model':44s} {'none':>6s} {'post':>6s} {'lines':>6s} {'msaa':>6s}   "
           f"{'none ms':>8s} {'post ms':>8s} {'lines ms':>8s}  {'post x':>6s} {'lines x':>7s}")
    results: dict[str, dict[str, float]] = {}
    for name, path in models if models is not None else edge_models():
        try:
            f = measure_model(path, rounds)
        except RenderUnavailable as error:
            report(f"  no OpenGL context here ({error})")
            return results
        results[name] = f
        lines = "lines" in f
        report(f"  {name[:44]:44s} {f['none']:6.2f} {f['post']:6.2f} "
               + (f"{f['lines']:6.2f}" if lines else f"{'-':>6s}") + f" {f['msaa']:6.2f}   "
               f"{f['none_ms']:8.2f} {f['post_ms']:8.2f} "
               + (f"{f['lines_ms']:8.2f}" if lines else f"{'-':>8s}")
               + f"  {f['post_ms'] / f['none_ms']:6.3f} "
               + (f"{f['lines_ms'] / f['none_ms']:7.3f}" if lines else f"{'-':>7s}"))
    if results and not any("lines" in f for f in results.values()):
        report("  lines: not measured (this OpenGL context has no compute shaders)")
    if models is None:
        report(_peer_line())
    return results
