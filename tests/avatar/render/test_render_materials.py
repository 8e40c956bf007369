"""Material features on real renders: overrides from expressions, texture transforms,
MToon UV animation, emission, shading that is toon-like (lit and shade, not flat)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import Camera
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.model import Material, MToon, Sampler, Texture, TextureRef
from tests.avatar.render import scenes
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl

FRONT = Camera(eye=np.array([0, 0, 2.5], np.float32), target=np.zeros(3, np.float32),
               near=0.1, far=10.0)
NEAREST = Sampler(mag_filter=9728, min_filter=9728)


def halves() -> Texture:
    """Left half red, right half blue (nearest filtering)."""
    pixels = np.zeros((4, 4, 4), np.uint8)
    pixels[..., 3] = 255
    pixels[:, :2, 0] = 255
    pixels[:, 2:, 2] = 255
    return Texture("halves", pixels, NEAREST)


def flat_quad(material: Material, textures=()) -> object:
    return scenes.single_mesh([scenes.quad(1.0)], [material], list(textures))


def sample(offscreen, model, frame=None):
    rgba = offscreen.render(model, frame, camera=FRONT, width=64, height=64)
    return rgba[32, 20, :3].astype(int), rgba[32, 44, :3].astype(int)  # left, right


def test_texture_transform_from_the_frame_replaces_scale_and_offset(offscreen, gl):
    model = flat_quad(Material(unlit=True, base_color_texture=TextureRef(0)), [halves()])
    left, right = sample(offscreen, model)
    assert left[0] > 200 and right[2] > 200
    frame = rest_frame(model)
    frame.texture_transforms[0] = ((0.5, 1.0), (0.5, 0.0))  # only the blue half
    left, right = sample(offscreen, model, frame)
    assert left[2] > 200 and right[2] > 200 and left[0] < 30


def test_khr_texture_transform_offset(offscreen, gl):
    ref = TextureRef(0, offset=(0.5, 0.0), scale=(0.5, 1.0))
    model = flat_quad(Material(unlit=True, base_color_texture=ref), [halves()])
    left, right = sample(offscreen, model)
    assert left[2] > 200 and right[2] > 200


def test_colour_override_from_an_expression(offscreen, gl):
    model = flat_quad(Material(unlit=True))
    frame = rest_frame(model)
    frame.material_colors[(0, "color")] = np.array([1, 0, 0, 1], np.float32)
    left, _ = sample(offscreen, model, frame)
    assert left.tolist() == [255, 0, 0]


def test_mtoon_uv_scroll_follows_time(offscreen, gl):
    mtoon = MToon(uv_animation_scroll_x=0.5)
    model = flat_quad(Material(mtoon=mtoon, base_color_texture=TextureRef(0)), [halves()])
    left0, right0 = sample(offscreen, model, rest_frame(model, time=0.0))
    left1, right1 = sample(offscreen, model, rest_frame(model, time=1.0))  # half a turn
    assert left0[0] > left0[2] and right0[2] > right0[0]
    assert left1[2] > left1[0] and right1[0] > right1[2]


def test_emission_adds_light(offscreen, gl):
    dark = Material(base_color=np.array([0, 0, 0, 1], np.float32),
                    emissive=np.array([0, 1, 0], np.float32))
    left, _ = sample(offscreen, flat_quad(dark))
    assert left[1] > 200 and left[0] < 30


def test_mtoon_is_toon_shaded_not_flat(offscreen, gl):
    """A sphere lit from the left: a lit side in the base colour, a shade side in the
    shade colour, and a sharp step between them (shading_toony 0.9)."""
    from companion_desktop.avatar.render.renderer import Lighting

    material = scenes.mtoon_material("m", (1.0, 1.0, 1.0), (0.3, 0.4, 0.8))
    material.mtoon.parametric_rim_color = np.zeros(3, np.float32)
    model = scenes.single_mesh([scenes.sphere(0.5, segments=48, rings=32)], [material])
    saved = offscreen.renderer.lighting
    offscreen.renderer.lighting = Lighting(direction=np.array([-1.0, 0.0, 0.0], np.float32))
    try:
        rgba = offscreen.render(model, camera=FRONT, width=128, height=128)
    finally:
        offscreen.renderer.lighting = saved
    row = rgba[64, 24:104, :3].astype(int)
    lit, shade = row[:30].mean(axis=0), row[-30:].mean(axis=0)
    assert lit.min() > 240  # lit side: the base colour
    assert shade[2] > shade[0] + 60 and shade[0] < 200  # shade side: the bluish shade colour
    brightness = row.sum(axis=1)
    between = (brightness < lit.sum() - 10) & (brightness > shade.sum() + 10)
    assert between.sum() <= 14  # a narrow toon step (Lambert would grade all 80 pixels)
    assert np.ptp(brightness[:30]) < 10 and np.ptp(brightness[-30:]) < 30  # flat bands


def test_lit_gltf_material_is_not_black_on_the_dark_side(offscreen, gl):
    model = scenes.single_mesh([scenes.sphere(0.5)], [Material()])
    rgba = offscreen.render(model, camera=FRONT, width=64, height=64)
    assert rgba[32, 54, :3].min() > 40  # ambient keeps the far side readable


# -- shared samples (need the loader) --------------------------------------------------------
def _load(relative: str):
    from companion_desktop.avatar.vrm.loader import load_model

    path = SHARED_ASSETS / relative
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    return load_model(path)


def _red(rgba: np.ndarray) -> int:
    c = rgba[..., :3].astype(int)
    return int(((rgba[..., 3] > 0) & (c[..., 0] > 150) & (c[..., 1] < 90)).sum())


def test_is_binary_sample_shows_checks_with_final_transforms(offscreen, gl):
    """Expression texture binds as final (scale, offset), three-vrm's meaning:
    K + sum(weight * (bind - K)), K the material's own KHR_texture_transform."""
    model = _load("vrm1/VRMC_vrm_expressions_isBinary_Overrides.vrm")
    frame = rest_frame(model)
    assert _red(offscreen.render(model, frame, shot="full", width=192, height=288)) == 0
    happy = model.expressions["happy"]  # binary happy at 1 blocks blink
    for bind in happy.texture_transform_binds:
        frame.texture_transforms[bind.material] = (bind.scale, bind.offset)
    assert _red(offscreen.render(model, frame, shot="full", width=192, height=288)) == 0


def test_is_binary_sample_through_the_runtime(offscreen, gl):
    """The runtime's expression output and the renderer agree on texture binds: green
    checks, no red crosses, whatever happy (binary, overrides blink) and blink say."""
    from companion_desktop.avatar.vrm.runtime import AvatarRuntime

    model = _load("vrm1/VRMC_vrm_expressions_isBinary_Overrides.vrm")
    runtime = AvatarRuntime(model, random.Random(1), blink=False, breathing=False, springs=False)
    for happy, blink in ((0.0, 0.0), (1.0, 1.0), (0.3, 1.0)):
        runtime.set_expression("happy", happy)
        runtime.set_expression("blink", blink)
        frame = runtime.update(0.1)
        assert _red(offscreen.render(model, frame, shot="full", width=192, height=288)) == 0


def test_uv_animation_sample_moves_with_time(offscreen, gl):
    model = _load("vrm1/VRMC_materials_mtoon_UV_Animation_Test.vrm")
    a = offscreen.render(model, rest_frame(model, time=0.0), shot="full", width=128, height=192)
    b = offscreen.render(model, rest_frame(model, time=0.3), shot="full", width=128, height=192)
    assert (np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 64).sum() > 200


def test_matcap_adds_its_colour(offscreen, gl):
    pixels = np.zeros((4, 4, 4), np.uint8)
    pixels[..., 1] = pixels[..., 3] = 255
    mtoon = MToon(matcap_texture=TextureRef(0), rim_lighting_mix=0.0,
                  shade_color=np.zeros(3, np.float32))
    model = flat_quad(Material(base_color=np.array([0, 0, 0, 1], np.float32), mtoon=mtoon),
                      [Texture("green", pixels)])
    left, _ = sample(offscreen, model)
    assert left[1] > 240 and left[0] < 20
