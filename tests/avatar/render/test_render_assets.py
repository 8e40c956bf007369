"""Every shared sample model renders (once the loader exists), and a few renders are
saved to ``shots/render_*.png`` for people to look at."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.render.offscreen import save_png
from tests.avatar.render import scenes
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl

MODEL_FILES = sorted(
    path
    for folder in ("vrm0", "vrm1", "gltf")
    if (SHARED_ASSETS / folder).is_dir()
    for path in (SHARED_ASSETS / folder).iterdir()
    if path.suffix.lower() in (".vrm", ".glb", ".gltf")
)


@pytest.fixture(scope="module")
def load_model():
    from companion_desktop.avatar.vrm.loader import load_model

    return load_model


def _silhouette(rgba: np.ndarray) -> None:
    assert rgba[[0, 0, -1, -1], [0, -1, 0, -1], 3].tolist() == [0, 0, 0, 0]
    assert (rgba[..., 3] > 0).sum() > 0.01 * rgba.shape[0] * rgba.shape[1]
    h, w = rgba.shape[:2]
    assert rgba[h // 4: 3 * h // 4, w // 4: 3 * w // 4, 3].max() > 0  # something near the middle


@pytest.mark.skipif(not MODEL_FILES, reason=f"no shared models under {SHARED_ASSETS}")
@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_shared_model_renders(offscreen, gl, load_model, path):
    model = load_model(path)
    for shot in ("upper", "full"):
        rgba = offscreen.render(model, shot=shot, width=256, height=384)
        _silhouette(rgba)
        straight_colour = rgba[rgba[..., 3] == 255][:, :3]
        assert straight_colour.max() > 30, "an opaque model should not come out black"
    save_png(offscreen.render(model, shot="upper", width=512, height=768),
             scenes.SHOTS / f"render_{path.parent.name}_{path.stem}.png")


def test_save_doll_shots(offscreen, gl):
    doll = scenes.doll(outline=0.004)
    for shot in ("upper", "full"):
        rgba = offscreen.render(doll, shot=shot, width=512, height=768)
        _silhouette(rgba)
        path = save_png(rgba, scenes.SHOTS / f"render_doll_{shot}.png")
        assert path.stat().st_size > 1000
    from PIL import Image

    with Image.open(scenes.SHOTS / "render_doll_upper.png") as image:
        assert image.mode == "RGBA" and image.getpixel((0, 0))[3] == 0
