"""Contact sheets of the built-in clips, posed by the project's runtime and renderer.

Usage: .venv/bin/python tools/clips_gen/preview.py [ids...] [--frames 8] [--vrma]

Writes ``shots/clips_<id>.png`` (git-ignored): columns are moments of the clip; rows are
Hana full length from the front, her upper body from the front and from her left-front,
and Godette (the shared test model, when present) from the front. The animation hook
samples the authored keyframes directly; ``--vrma`` plays the written files through the
project's loader and sampler instead (``companion_desktop.avatar.animation``). Rendering
is offscreen (EGL surfaceless, chosen before OpenGL is imported).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
from pathlib import Path

os.environ.setdefault("PYOPENGL_PLATFORM", "egl")
os.environ.setdefault("EGL_PLATFORM", "surfaceless")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from clips_gen.clips import all_motions  # noqa: E402
from clips_gen.skeleton import NAMES, REST  # noqa: E402
from companion_desktop.avatar.render.bounds import all_posed_positions  # noqa: E402
from companion_desktop.avatar.render.camera import Camera, fit_box  # noqa: E402
from companion_desktop.avatar.render.offscreen import OffscreenRenderer  # noqa: E402
from companion_desktop.avatar.vrm.loader import load_model  # noqa: E402
from companion_desktop.avatar.vrm.pose import Pose  # noqa: E402
from companion_desktop.avatar.vrm.runtime import AvatarRuntime  # noqa: E402

MODELS = {"hana": ROOT / "resources" / "avatar" / "hana.vrm",
          "godette": Path("/work/shared/assets/vrm0/Godette_vrm_v4.vrm")}
OUT = ROOT / "shots"
CELL = (256, 384)


def keyframe_hook(baked, model, loop: bool):
    """An animation hook that plays baked keyframes (linear between 30 fps samples)."""
    hips_node = model.humanoid.get("hips")
    rest = Pose(model).world_matrices()
    scale = float(rest[hips_node, 1, 3]) / REST["hips"][1] if hips_node is not None else 1.0
    duration = float(baked.times[-1])

    def hook(pose, dt, time):
        t = math.fmod(time, duration) if loop else min(time, duration)
        f = t * 30.0
        i = min(int(f), len(baked.times) - 2)
        s = f - i
        for b in NAMES:
            q = baked.rotations[b]
            v = q[i] * (1 - s) + q[i + 1] * s
            pose.set_bone_rotation(b, v / np.linalg.norm(v))
        h = baked.hips[i] * (1 - s) + baked.hips[i + 1] * s
        pose.set_hips_offset((h - REST["hips"]) * scale)
        for n, w in baked.expressions.items():
            hook.runtime.set_expression(n, float(w[i] * (1 - s) + w[i + 1] * s))
    return hook


def vrma_hook(path: Path, model, loop: bool):
    """An animation hook that plays a written .vrma through the project's loader and
    sampler (``companion_desktop.avatar.animation``)."""
    from companion_desktop.avatar.animation.sampling import sample_clip  # noqa: PLC0415
    from companion_desktop.avatar.animation.vrma import load_vrma  # noqa: PLC0415
    clip = load_vrma(path, loop=loop)
    hips_node = model.humanoid.get("hips")
    height = float(Pose(model).world_matrices()[hips_node, 1, 3]) if hips_node is not None else 1.0

    def hook(pose, dt, time):
        cp = sample_clip(clip, time, height)
        for b, q in cp.rotations.items():
            pose.set_bone_rotation(b, q)
        if cp.hips_offset is not None:
            pose.set_hips_offset(cp.hips_offset)
        for n, w in cp.expressions.items():
            hook.runtime.set_expression(n, w)
    return hook


def frames_for(model, hook, times, springs=True):
    """Frames at ``times`` (ascending), the runtime stepped at 30 fps from 0 so the
    spring bones follow the motion."""
    rt = AvatarRuntime(model, random.Random(0), animation=hook, blink=False, springs=springs)
    hook.runtime = rt
    out = []
    frame = rt.update(0.0)
    t = 0.0
    for target in times:
        while target - t > 1e-9:
            step = min(1.0 / 30.0, target - t)
            frame = rt.update(step)
            t += step
        out.append(frame)
    return out


def camera_for(model, frames, yaw_deg=0.0, upper=False):
    pts = np.concatenate([all_posed_positions(model, f) for f in frames])
    if upper:  # from the hips up
        hips = model.humanoid["hips"]
        pts = pts[pts[:, 1] > float(frames[0].world[hips][1, 3]) - 0.12]
    low, high = pts.min(0), pts.max(0)
    cam = fit_box(low, high, CELL[0] / CELL[1], margin=0.04)
    if yaw_deg:
        a = math.radians(yaw_deg)
        rel = cam.eye - cam.target
        rel = np.array([rel[0] * math.cos(a) + rel[2] * math.sin(a), rel[1],
                        -rel[0] * math.sin(a) + rel[2] * math.cos(a)], np.float32)
        cam = Camera(eye=cam.target + rel, target=cam.target, fov_y=cam.fov_y,
                     near=cam.near, far=cam.far)
    return cam


def sheet(motion, renderer, models, columns: int, use_vrma: bool, files: Path) -> Image.Image:
    baked = motion.bake()
    times = [motion.duration * i / (columns - 1) for i in range(columns)]
    rows = []
    for key, model in models.items():
        if use_vrma:
            hook = vrma_hook(files / f"{motion.id}.vrma", model, motion.loop)
        else:
            hook = keyframe_hook(baked, model, motion.loop)
        frames = frames_for(model, hook, times)
        views = [(0.0, False), (0.0, True), (55.0, True)] if key == "hana" else [(0.0, False)]
        for yaw, upper in views:
            cam = camera_for(model, frames, yaw, upper)
            row = []
            for f in frames:
                img = renderer.render(model, f, CELL[0], CELL[1], camera=cam,
                                      background=(0.86, 0.87, 0.9, 1.0))
                row.append(Image.fromarray(img).convert("RGB"))
            rows.append(row)
    out = Image.new("RGB", (CELL[0] * columns, CELL[1] * len(rows) + 20), (255, 255, 255))
    draw = ImageDraw.Draw(out)
    for r, row in enumerate(rows):
        for c, img in enumerate(row):
            out.paste(img, (c * CELL[0], 20 + r * CELL[1]))
    for c, t in enumerate(times):
        draw.text((c * CELL[0] + 4, 4), f"{motion.id} t={t:.2f}s", fill=(0, 0, 0))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--vrma", action="store_true", help="play the written files")
    parser.add_argument("--files", type=Path,
                        default=ROOT / "resources" / "animations")
    parser.add_argument("--suffix", default="")
    args = parser.parse_args(argv)
    models = {k: load_model(p) for k, p in MODELS.items() if p.exists()}
    OUT.mkdir(exist_ok=True)
    with OffscreenRenderer() as renderer:
        for m in all_motions():
            if args.ids and m.id not in args.ids:
                continue
            img = sheet(m, renderer, models, args.frames, args.vrma, args.files)
            path = OUT / f"clips_{m.id}{args.suffix}.png"
            img.save(path)
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
