"""Her face on real renders: blink closes the eyes, happy changes the face, a VRM 0.x
model faces the camera. Uses the built-in Hana (always present) and Godette (shared)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import frame_camera
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.resources import default_avatar_path
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl
W, H = 384, 576


def hana():
    return load_model(default_avatar_path())


def godette():
    path = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
    if not path.is_file():
        pytest.skip("shared assets not present")
    return load_model(path)


def face_frame(model, **weights):
    runtime = AvatarRuntime(model, random.Random(0), blink=False, breathing=False, springs=False)
    for name, weight in weights.items():
        assert runtime.set_expression(name, weight), name
    return runtime.update(1 / 30)


def head_box(model, camera):
    """Pixel rows above her neck (her head and hair), all columns."""
    frame = rest_frame(model)
    neck = frame.world[model.humanoid.get("neck", model.humanoid["head"])][:3, 3]
    y = int(camera.project(neck[None, :], W, H)[0, 1])
    return slice(0, max(1, min(H, y))), slice(0, W)


@pytest.mark.parametrize("loader", [hana, godette], ids=["hana", "godette"])
@pytest.mark.parametrize("expression", ["blink", "happy"])
def test_expression_changes_the_face(render, loader, expression):
    model = loader()
    camera = frame_camera(model, rest_frame(model), "upper", W / H)
    neutral = render(model, face_frame(model), width=W, height=H, camera=camera)
    changed = render(model, face_frame(model, **{expression: 1.0}), width=W, height=H,
                     camera=camera)
    rows, cols = head_box(model, camera)
    diff = np.abs(neutral[..., :3].astype(int) - changed[..., :3].astype(int)).sum(axis=2) > 40
    in_face = diff[rows, cols].sum()
    assert in_face > 30, f"{expression} changed only {in_face} face pixels"
    assert in_face >= 0.8 * diff.sum()  # the change is in her face, not elsewhere


def test_blink_closes_hanas_eyes(render):
    model = hana()
    camera = frame_camera(model, rest_frame(model), "upper", W / H)
    open_ = render(model, face_frame(model), width=W, height=H, camera=camera)
    shut = render(model, face_frame(model, blink=1.0), width=W, height=H, camera=camera)
    rows, cols = head_box(model, camera)

    def iris_pixels(rgba):
        rgb = rgba[rows, cols, :3].astype(int)
        return int(((rgb[..., 2] > rgb[..., 0] + 40) & (rgb[..., 1] > rgb[..., 0] + 20)).sum())

    assert iris_pixels(open_) > 50  # teal irises show with her eyes open
    assert iris_pixels(shut) < iris_pixels(open_) * 0.1  # and are covered by her eyelids


def test_vrm0_model_faces_the_camera(render):
    model = godette()
    camera = frame_camera(model, rest_frame(model), "upper", W / H)
    front = render(model, rest_frame(model), width=W, height=H, camera=camera)
    model.root_rotation_y = 0.0  # undo the 0.x turn: now we see her back
    back = render(model, rest_frame(model), width=W, height=H, camera=camera)
    rows, cols = head_box(model, camera)

    def dark(rgba):  # eyelashes and pupils: nearly black, opaque
        rgb, alpha = rgba[rows, cols, :3].astype(int), rgba[rows, cols, 3]
        return int(((rgb.sum(axis=2) < 120) & (alpha > 200)).sum())

    assert dark(front) > 40 and dark(front) > 4 * dark(back)
