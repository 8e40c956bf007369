"""Real renders (EGL, llvmpipe is fine): silhouettes, alpha, culling, outlines, framing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import Camera
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.model import Material, Sampler, Texture, TextureRef
from tests.avatar.render import scenes
from tests.avatar.render.scenes import alpha_bbox

pytestmark = pytest.mark.gl

FRONT = Camera(eye=np.array([0, 0, 3], np.float32), target=np.zeros(3, np.float32),
               near=0.1, far=10.0)


def assert_silhouette(rgba):
    h, w = rgba.shape[:2]
    corners = rgba[[0, 0, -1, -1], [0, -1, 0, -1], 3]
    assert corners.tolist() == [0, 0, 0, 0], "the background must stay fully transparent"
    assert rgba[..., 3].max() > 0, "nothing was drawn"
    return alpha_bbox(rgba)


def test_context_is_33_core(gl):
    from companion_desktop.avatar.render.context import gl_version

    assert gl_version() >= (3, 3)


@pytest.mark.parametrize("build", [
    lambda: scenes.single_mesh([scenes.quad()]),
    lambda: scenes.single_mesh([scenes.box((1, 1, 1))]),
    lambda: scenes.two_bone_strip(),
    lambda: scenes.morph_plane(),
    lambda: scenes.doll(),
], ids=["quad", "cube", "strip", "morph", "doll"])
def test_hand_built_models_draw_a_silhouette(render, build):
    model = build()
    rgba = render(model, shot="full")
    assert_silhouette(rgba)
    assert rgba[96, 64, 3] > 0  # the framed model covers the centre


def test_output_is_straight_by_default_and_premultiplied_on_request(offscreen, gl):
    material = Material(base_color=np.array([1.0, 0.5, 0.25, 0.5], np.float32),
                        alpha_mode="BLEND", unlit=True)
    model = scenes.single_mesh([scenes.quad(1.0)], [material])
    pre = offscreen.render(model, camera=FRONT, width=64, height=64, premultiplied=True)
    centre = pre[32, 32].astype(int)
    assert abs(centre[3] - 128) <= 2
    assert (centre[:3] <= centre[3] + 1).all()
    straight = offscreen.render(model, camera=FRONT, width=64, height=64)[32, 32].astype(int)
    assert abs(straight[3] - 128) <= 2
    assert straight[0] >= 253  # 1.0 stays 255 once un-premultiplied
    assert abs(straight[1] - 188) <= 3  # linear 0.5 is sRGB 188
    assert pre[0, 0].tolist() == [0, 0, 0, 0]


def test_background_colour_is_opaque(offscreen, gl):
    model = scenes.single_mesh([scenes.quad(0.2)])
    rgba = offscreen.render(model, camera=FRONT, width=32, height=32, background=(0, 0, 255))
    assert rgba[0, 0].tolist() == [0, 0, 255, 255]


def test_mask_cutoff_discards_below_the_cutoff(offscreen, gl):
    pixels = np.full((8, 8, 4), 255, np.uint8)
    pixels[:, :4, 3] = 50  # left half mostly transparent
    pixels[:, 4:, 3] = 230
    texture = Texture("mask", pixels, Sampler(mag_filter=9728, min_filter=9728))
    material = Material(alpha_mode="MASK", alpha_cutoff=0.5, unlit=True,
                        base_color_texture=TextureRef(0))
    model = scenes.single_mesh([scenes.quad(2.0)], [material], [texture])
    rgba = offscreen.render(model, camera=FRONT, width=64, height=64)
    assert rgba[32, 10, 3] == 0 and rgba[32, 54, 3] == 255
    material.alpha_cutoff = 0.1
    model2 = scenes.single_mesh([scenes.quad(2.0)], [material], [texture])
    assert offscreen.render(model2, camera=FRONT, width=64, height=64)[32, 10, 3] == 255


def test_double_sided_draws_back_faces(offscreen, gl):
    back = scenes.single_mesh([scenes.quad(1.0, facing=-1.0)])
    assert offscreen.render(back, camera=FRONT, width=32, height=32)[..., 3].max() == 0
    both = scenes.single_mesh([scenes.quad(1.0, facing=-1.0)], [Material(double_sided=True)])
    rgba = offscreen.render(both, camera=FRONT, width=32, height=32)
    assert rgba[16, 16, 3] == 255 and rgba[16, 16, :3].max() > 40  # lit: the normal flips


def test_srgb_texture_round_trips(offscreen, gl):
    pixels = np.full((4, 4, 4), (200, 100, 30, 255), np.uint8)
    material = Material(unlit=True, base_color_texture=TextureRef(0))
    model = scenes.single_mesh([scenes.quad(2.0)], [material], [Texture("flat", pixels)])
    rgba = offscreen.render(model, camera=FRONT, width=32, height=32)
    assert np.abs(rgba[16, 16, :3].astype(int) - [200, 100, 30]).max() <= 2


def test_blend_is_sorted_back_to_front(offscreen, gl):
    red = Material(base_color=np.array([1, 0, 0, 0.5], np.float32), alpha_mode="BLEND", unlit=True)
    blue = Material(base_color=np.array([0, 0, 1, 0.5], np.float32), alpha_mode="BLEND", unlit=True)
    # the red quad is nearer but comes first in the file
    near, far = scenes.quad(1.5, z=0.2, material=0), scenes.quad(1.5, z=-0.2, material=1)
    model = scenes.single_mesh([near, far], [red, blue])
    px = offscreen.render(model, camera=FRONT, width=32, height=32, premultiplied=True)[16, 16]
    assert px[0] > px[2]  # red drawn last, over blue


def test_morph_weight_changes_the_right_region(offscreen, gl):
    model = scenes.morph_plane()
    frame = rest_frame(model)
    base = offscreen.render(model, frame, camera=FRONT, width=96, height=96)
    frame.morph_weights[0] = np.array([0.0, 1.0], np.float32)
    moved = offscreen.render(model, frame, camera=FRONT, width=96, height=96)
    changed = np.argwhere(base[..., 3] != moved[..., 3])
    assert len(changed) > 50
    assert changed[:, 1].min() >= 60  # right of the plane's right edge (x > 0.45)
    assert changed[:, 0].max() <= 50  # top half only (y > 0)


def _reference_skinning(model, frame):
    try:
        from companion_desktop.avatar.vrm.skinning import skin_vertices
    except ImportError:  # a tiny local reference
        def skin_vertices(p, mats):
            m = np.einsum("vk,vkab->vab", p.weights, mats[p.joints.astype(int)])
            return np.einsum("vab,vb->va", m[:, :3, :3], p.positions) + m[:, :3, 3], None
    primitive = model.meshes[0].primitives[0]
    return skin_vertices(primitive, frame.joint_matrices[0])[0]


def test_gpu_skinning_matches_the_cpu_reference(offscreen, gl):
    model = scenes.two_bone_strip()
    frame = scenes.posed(model, {2: scenes.quat_z(math.radians(70))})
    camera = Camera(eye=np.array([-0.4, 1.0, 5.0], np.float32),
                    target=np.array([-0.4, 1.0, 0], np.float32), near=0.1, far=20)
    rgba = offscreen.render(model, frame, camera=camera, width=256, height=256)
    box = np.array(alpha_bbox(rgba, threshold=127), float)
    cpu = camera.project(_reference_skinning(model, frame), 256, 256)
    expected = np.concatenate([cpu.min(0), cpu.max(0)])
    assert np.abs(box - expected).max() <= 2.0, (box, expected)
    rest = offscreen.render(model, rest_frame(model), camera=camera, width=256, height=256)
    assert np.abs(np.array(alpha_bbox(rest, 127)) - box).max() > 20  # it did bend


def test_outline_adds_dark_pixels_around_mtoon(offscreen, gl):
    def dark_count(rgba):
        return int(((rgba[..., 3] > 128) & (rgba[..., :3].max(axis=2) < 90)).sum())

    plain, outlined = scenes.doll(outline=0.0), scenes.doll(outline=0.01)
    a = offscreen.render(plain, width=128, height=192)
    b = offscreen.render(outlined, camera=offscreen.last_camera, width=128, height=192)
    assert dark_count(b) > dark_count(a) + 100
    assert (b[..., 3] > 0).sum() > (a[..., 3] > 0).sum()
    screen = scenes.doll(outline=0.01, mode="screenCoordinates")
    c = offscreen.render(screen, camera=offscreen.last_camera, width=128, height=192)
    assert dark_count(c) > dark_count(a) + 100


@pytest.mark.parametrize("shot", ["upper", "full"])
def test_framing_is_the_same_at_any_size(render, shot):
    boxes = [np.array(alpha_bbox(render(scenes.scaled(scenes.doll(outline=0.0), f), shot=shot,
                                        width=256, height=384)))
             for f in (0.2, 1.0, 3.0)]
    assert np.abs(boxes[0] - boxes[1]).max() <= 3 and np.abs(boxes[2] - boxes[1]).max() <= 3


def test_vrm0_model_faces_the_camera(render):
    model = scenes.doll(outline=0.0, facing_minus_z=True)
    rgba = render(model, shot="upper", width=256, height=384)
    box = alpha_bbox(rgba)
    # eyes (dark boxes on the front of the head) are visible: the front faces us
    head = rgba[box[1]: box[1] + (box[3] - box[1]) // 3, box[0]: box[2]]
    assert ((head[..., 3] == 255) & (head[..., :3].max(axis=2) < 120)).sum() > 20
    back = scenes.doll(outline=0.0, facing_minus_z=True)
    back.root_rotation_y = 0.0  # as if the 0.x turn were missing: we see her back
    rgba = render(back, shot="upper", width=256, height=384)
    head = rgba[box[1]: box[1] + (box[3] - box[1]) // 3, box[0]: box[2]]
    assert ((head[..., 3] == 255) & (head[..., :3].max(axis=2) < 120)).sum() == 0


@pytest.mark.parametrize("samples", [0, 4])
def test_draw_into_a_callers_framebuffer(gl, samples):
    """As the Qt widget does: its own (maybe multisampled) framebuffer, read back too."""
    from companion_desktop.avatar.render.renderer import Renderer
    from companion_desktop.avatar.render.target import RenderTarget

    renderer = Renderer()
    target = RenderTarget(48, 48, samples=samples)
    try:
        model = scenes.single_mesh([scenes.quad(1.0)])
        renderer.load(model)
        renderer.draw(rest_frame(model), FRONT, 48, 48, target_fbo=target.draw_fbo)
        rgba = renderer.read_rgba()
        assert rgba[24, 24, 3] == 255 and rgba[0, 0, 3] == 0
        assert renderer.read_rgba(premultiplied=True)[24, 24, 3] == 255
        Renderer.clear(target.draw_fbo)
        assert renderer.read_rgba()[24, 24].tolist() == [0, 0, 0, 0]
    finally:
        target.release()
        renderer.release()


def test_release_frees_gpu_objects(gl):
    from OpenGL import GL

    from companion_desktop.avatar.render.renderer import Renderer

    renderer = Renderer()
    renderer.load(scenes.morph_plane())
    vao = renderer.gpu.primitives[0].vao
    morph = renderer.gpu.primitives[0].morph_tex
    assert GL.glIsVertexArray(vao) and GL.glIsTexture(morph)
    renderer.release()
    assert not GL.glIsVertexArray(vao) and not GL.glIsTexture(morph)


def test_render_image_and_save_png_round_trip(tmp_path):
    from PIL import Image

    from companion_desktop.avatar.render.context import RenderUnavailable
    from companion_desktop.avatar.render.offscreen import render_image, save_png

    material = Material(base_color=np.array([0.2, 0.8, 0.2, 0.5], np.float32), alpha_mode="BLEND")
    try:
        rgba = render_image(scenes.single_mesh([scenes.quad()], [material]), width=40, height=60)
    except RenderUnavailable as error:
        pytest.skip(str(error))
    assert rgba.shape == (60, 40, 4) and rgba.dtype == np.uint8
    path = save_png(rgba, tmp_path / "quad.png")
    with Image.open(path) as image:
        assert image.mode == "RGBA" and np.array_equal(np.asarray(image), rgba)
