"""The fast path draws the same pictures as the reference path, on every model we have.

The renderer's fast path compiles a shader per material for only what it uses, reads
a shared shade/base texture once, skins each vertex once per frame by transform
feedback and draws the second window of the same frame without skinning again. The
reference path (``Renderer(specialize=False)``) is the all-in-one shader that reads
every texture slot (white where absent), computes every term and skins in each draw.
Every model (Hana, and the shared VRM 0.x/1.0 and glTF samples when present), posed
with a mood, an expression, a blink and the relaxed pose's motion, from the upper and
the full shot, must come out the same within 2/255 per channel.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import frame_camera
from companion_desktop.resources import default_avatar_path
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl
W, H = 160, 240


def model_paths():
    paths = [default_avatar_path()]
    for folder in ("vrm0", "vrm1", "gltf"):
        root = SHARED_ASSETS / folder
        if root.is_dir():
            paths += sorted(p for p in root.iterdir() if p.suffix in (".vrm", ".glb", ".gltf"))
    return [p for p in paths if p.is_file()]


def posed(model):
    from companion_desktop.avatar.vrm.relaxed import relaxed_pose
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime

    runtime = AvatarRuntime(model, random.Random(3), animation=relaxed_pose)
    runtime.mood("happy", 80)
    runtime.set_expression("aa", 0.5)
    runtime.set_expression("blink", 0.4)
    frame = None
    for _ in range(12):
        frame = runtime.update(1 / 30)
    return frame


def draw(renderer, model, frame, camera, same_frame=False):
    from companion_desktop.avatar.render.target import RenderTarget, read_bgra

    target = RenderTarget(W, H, 0)
    try:
        renderer.draw(frame, camera, W, H, target.draw_fbo, flip_y=True, same_frame=same_frame)
        return read_bgra(target.resolve_fbo, W, H).astype(np.int16)
    finally:
        target.release()


@pytest.mark.parametrize("path", model_paths(), ids=lambda p: p.name)
def test_fast_path_matches_the_reference(gl, path):
    from companion_desktop.avatar.render.renderer import Renderer
    from companion_desktop.avatar.vrm.loader import load_model

    model = load_model(path)
    frame = posed(model)
    fast, reference = Renderer(samples=0), Renderer(samples=0, specialize=False)
    try:
        fast.load(model)
        reference.load(model)
        for index, shot in enumerate(("upper", "full")):
            camera = frame_camera(model, frame, shot, W / H)
            ours = draw(fast, model, frame, camera, same_frame=index > 0)
            theirs = draw(reference, model, frame, camera)
            assert theirs[..., 3].max() > 0, "the reference drew nothing"
            difference = np.abs(ours - theirs)
            assert difference.max() <= 2, f"{shot}: off by {difference.max()}/255"
    finally:
        fast.release()
        reference.release()
