"""Hana's brows at the overlay's size on software GL (one sample a pixel, the edge lines
the app draws there). A brow stroke is thinner than a pixel at that size: drawn as a strip
as thin as itself it fell between pixel centres and broke into dashes. Her generator puts
each thin stroke in the texture of a strip at least a pixel high, so the filtered texture
shows it as a thin line, unbroken from one end to the other."""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion_desktop.avatar.render.bounds import mesh_instances, posed_positions
from companion_desktop.avatar.render.camera import frame_camera
from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.relaxed import relaxed_pose
from companion_desktop.avatar.vrm.runtime import AvatarRuntime
from companion_desktop.resources import default_avatar_path

pytestmark = pytest.mark.gl
W, H = 340, 486  # the overlay's view at its default size, her whole figure
#: How far apart the lightest and darkest pixels (the mean of R, G and B, 0-255) of every
#: column across a brow (its rows and two more each side) must be.
LEAST_DARKENING = 16  # her brows: 32 or more in every column; the old dashed ones: 0


@pytest.fixture(scope="module")
def model():
    return load_model(default_avatar_path())


@pytest.fixture(scope="module")
def lines(gl_context):
    from companion_desktop.avatar.render.offscreen import OffscreenRenderer

    renderer = OffscreenRenderer(context=gl_context, aa="lines")
    if renderer.renderer.aa != "lines":
        renderer.close()
        pytest.skip("this GL has no compute shaders: no edge lines")
    yield renderer
    renderer.close()


def _brows(model, frame, camera) -> list[np.ndarray]:
    """Each brow's vertices on the picture, (n, 2) pixels: left, then right."""
    points = [posed_positions(model, frame, node, mesh, primitive)
              for node, mesh in mesh_instances(model)
              for primitive in model.meshes[mesh].primitives
              if model.materials[primitive.material].name == "Brow"]
    pixels = camera.project(np.concatenate(points).astype(np.float32), W, H)
    middle = float(np.median(pixels[:, 0]))  # the face's middle line parts them
    return [pixels[pixels[:, 0] < middle], pixels[pixels[:, 0] >= middle]]


@pytest.mark.parametrize("expression", [None, "angry", "surprised"])
def test_her_brows_are_unbroken_lines_at_the_overlays_size(gl, lines, model, expression):
    runtime = AvatarRuntime(model, random.Random(0), animation=relaxed_pose)
    runtime.set_blink_enabled(False)
    if expression is not None:
        runtime.set_expression(expression, 1.0)
    for _ in range(10):  # the expression fades in
        frame = runtime.update(1 / 30)
    camera = frame_camera(model, frame, "full", W / H)
    picture = lines.render(model, frame, W, H, camera=camera).astype(int)
    light = picture[..., :3].sum(axis=2) / 3
    for brow in _brows(model, frame, camera):
        assert len(brow) >= 8
        left, right = int(np.ceil(brow[:, 0].min())) + 1, int(np.floor(brow[:, 0].max())) - 1
        assert right - left >= 8  # a brow spans about 16 pixels here
        gaps = []
        for x in range(left, right + 1):
            near = brow[np.abs(brow[:, 0] - x) <= 1.5]
            top, bottom = int(np.floor(near[:, 1].min())), int(np.ceil(near[:, 1].max()))
            column = light[max(0, top - 2): bottom + 3, x]
            if column.max() - column.min() < LEAST_DARKENING:
                gaps.append(x)
        assert not gaps, f"the brow breaks at columns {gaps} (from {left} to {right})"
