"""Curves of a clip to check its timing: each main bone's rotation (as a rotation vector,
degrees: x red, y green, z blue) and the hips offset over time; loops are drawn twice
over so a seam would show. Writes ``shots/curves_<id>.png``.

Usage: .venv/bin/python tools/clips_gen/graphs.py [ids...]
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import numpy as np  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from clips_gen.clips import all_motions  # noqa: E402
from clips_gen.skeleton import REST  # noqa: E402

BONES = ("hips", "spine", "upperChest", "neck", "head", "leftShoulder", "leftUpperArm",
         "leftLowerArm", "leftHand", "rightShoulder", "rightUpperArm", "rightLowerArm",
         "rightHand", "leftUpperLeg", "leftLowerLeg", "rightIndexProximal")
W, H = 900, 110
COLORS = ((220, 40, 40), (30, 160, 30), (40, 70, 230))


def rotvec(q: np.ndarray) -> np.ndarray:
    q = q * np.where(q[:, 3:4] < 0, -1.0, 1.0)
    s = np.linalg.norm(q[:, :3], axis=1)
    angle = 2 * np.arctan2(s, q[:, 3])
    axis = q[:, :3] / np.maximum(s, 1e-12)[:, None]
    return np.degrees(axis * angle[:, None])


def plot(motion) -> Image.Image:
    baked = motion.bake()
    rows = [(b, rotvec(baked.rotations[b])) for b in BONES]
    rows.append(("hips mm", (baked.hips - REST["hips"]) * 1000.0))
    for n, w in baked.expressions.items():
        rows.append((f"ex {n} %", np.stack([w * 100, w * 0, w * 0], axis=1)))
    reps = 2 if motion.loop else 1
    img = Image.new("RGB", (W, H * len(rows)), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    for r, (name, values) in enumerate(rows):
        values = np.concatenate([values[:-1]] * reps + [values[-1:]]) if reps > 1 else values
        top = r * H
        lo, hi = float(values.min()), float(values.max())
        if hi - lo < 2.0:
            mid = (hi + lo) / 2
            lo, hi = mid - 1.0, mid + 1.0
        n = len(values)
        draw.line([(0, top + H - 1), (W, top + H - 1)], fill=(200, 200, 200))
        if reps > 1:
            draw.line([(W // 2, top), (W // 2, top + H)], fill=(180, 180, 250))
        for c in range(3):
            pts = [(i * (W - 1) / (n - 1), top + 14 + (H - 20) * (1 - (v - lo) / (hi - lo)))
                   for i, v in enumerate(values[:, c])]
            draw.line(pts, fill=COLORS[c], width=1)
        draw.text((4, top + 1), f"{motion.id} {name}  [{lo:.1f}, {hi:.1f}]", fill=(0, 0, 0))
    return img


def main(argv=None) -> int:
    ids = sys.argv[1:] if argv is None else argv
    out = ROOT / "shots"
    out.mkdir(exist_ok=True)
    for m in all_motions():
        if ids and m.id not in ids:
            continue
        path = out / f"curves_{m.id}.png"
        plot(m).save(path)
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
