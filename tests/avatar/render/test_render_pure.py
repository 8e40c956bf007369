"""Renderer parts that need no GL context: camera, framing, materials, morph picking."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.render.bounds import all_posed_positions, bounding_box
from companion_desktop.avatar.render.camera import Camera, fit_box, frame_camera
from companion_desktop.avatar.render.materials import (
    SHADING_LIT,
    SHADING_MTOON,
    SHADING_UNLIT,
    SLOTS,
    material_params,
    uv_matrix,
)  # fmt: skip
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.model import Material, TextureRef
from tests.avatar.render import scenes


def test_camera_projects_target_to_the_centre_and_up_to_the_top():
    cam = Camera(eye=np.array([0, 1, 3], np.float32), target=np.array([0, 1, 0], np.float32))
    px = cam.project(np.array([[0, 1, 0], [0, 1.2, 0], [0.2, 1, 0]]), 200, 100)
    assert px[0] == pytest.approx([100, 50], abs=1e-3)
    assert px[1][1] < 50  # up is up in the picture
    assert px[2][0] > 100  # +X is to the right when looking toward -Z



def test_camera_matrices_follow_every_change():
    """The view and clip matrices are kept between calls: an eye moved in place, a target
    replaced, a new field of view or another picture shape gives new ones, and a caller
    changing the matrix it was handed changes nothing the camera keeps."""
    cam = Camera(eye=np.array([0, 1, 3], np.float32), target=np.array([0, 1, 0], np.float32))
    point = np.array([[0.1, 1.1, 0.0]])

    def fresh() -> Camera:
        return Camera(eye=np.array(cam.eye), target=np.array(cam.target), up=np.array(cam.up),
                      fov_y=cam.fov_y, near=cam.near, far=cam.far)

    def agrees(width: int = 200, height: int = 100) -> None:
        np.testing.assert_array_equal(cam.view_matrix(), fresh().view_matrix())
        np.testing.assert_array_equal(cam.project(point, width, height),
                                      fresh().project(point, width, height))

    agrees()
    handed = cam.view_matrix()
    handed[:] = 0
    agrees()
    cam.eye[0] = 0.5  # in place
    agrees()
    cam.target = np.array([0, 1.2, 0], np.float32)
    agrees()
    cam.up[:] = (0.1, 1.0, 0.0)
    agrees()
    cam.fov_y = 20.0
    agrees()
    agrees(100, 200)
    before = cam.project(point, 200, 100)
    cam.eye[2] = 5.0
    assert not np.allclose(cam.project(point, 200, 100), before)

def test_fit_box_keeps_the_margin():
    cam = fit_box(np.array([-0.5, 0, -0.1]), np.array([0.5, 2, 0.1]), aspect=0.5, margin=0.1)
    corners = np.array([[x, y, 0.1] for x in (-0.5, 0.5) for y in (0, 2)], np.float32)
    px = cam.project(corners, 100, 200)
    assert px[:, 0].min() >= 9.9 and px[:, 0].max() <= 90.1
    assert px[:, 1].min() >= 19.9 and px[:, 1].max() <= 180.1
    # the tight side touches the margin
    assert min(px[:, 0].min(), px[:, 1].min() / 2) == pytest.approx(10, abs=0.5)


@pytest.mark.parametrize("shot", ["upper", "full"])
def test_framing_does_not_depend_on_model_size(shot):
    boxes = []
    for factor in (0.2, 1.0, 3.0):
        model = scenes.scaled(scenes.doll(outline=0.0), factor)
        frame = rest_frame(model)
        cam = frame_camera(model, frame, shot, aspect=2 / 3)
        px = cam.project(all_posed_positions(model, frame), 512, 768)
        boxes.append(np.concatenate([px.min(0), px.max(0)]))
    assert np.allclose(boxes[0], boxes[1], atol=0.5) and np.allclose(boxes[2], boxes[1], atol=0.5)


def test_upper_shot_shows_head_to_hips_and_full_shot_everything():
    model = scenes.doll(outline=0.0)
    frame = rest_frame(model)
    points = all_posed_positions(model, frame)
    full = frame_camera(model, frame, "full", 2 / 3).project(points, 512, 768)
    assert full.min() >= 0 and full[:, 0].max() <= 512 and full[:, 1].max() <= 768
    upper = frame_camera(model, frame, "upper", 2 / 3)
    head_top = points[:, 1].max()
    hips = frame.world[model.humanoid["hips"]][:3, 3]
    top_px = upper.project(np.array([[0, head_top, 0]]), 512, 768)[0, 1]
    hips_px = upper.project(hips[None], 512, 768)[0, 1]
    assert 10 < top_px < 100  # the head is whole, near the top
    assert 600 < hips_px <= 768  # down to the hips
    assert upper.eye[2] > upper.target[2]  # on +Z, looking toward -Z


def test_non_humanoid_frames_its_bounding_box():
    model = scenes.single_mesh([scenes.box((4, 1, 1), (10, 0, 0))])
    frame = rest_frame(model)
    cam = frame_camera(model, frame, "upper", 1.0)
    low, high = bounding_box(all_posed_positions(model, frame))
    assert cam.target == pytest.approx((low + high) / 2)


def test_uv_matrix_follows_khr_texture_transform():
    m = uv_matrix((0.5, 0.25), (2, 3), 0.0)
    assert (m @ [1, 1, 1])[:2] == pytest.approx([2.5, 3.25])
    r = uv_matrix((0, 0), (1, 1), math.pi / 2)
    assert (r @ [1, 0, 1])[:2] == pytest.approx([0, -1], abs=1e-6)  # glTF's rotation sense


def test_material_params_kinds_and_overrides():
    model = scenes.doll()
    model.materials.append(Material(unlit=True))
    model.materials.append(Material(alpha_mode="BLEND",
                                    base_color_texture=TextureRef(0, offset=(0.1, 0.2))))
    frame = rest_frame(model)
    assert material_params(model, 0, frame).shading == SHADING_MTOON
    assert material_params(model, 4, frame).shading == SHADING_UNLIT
    blend = material_params(model, 5, frame)
    assert blend.shading == SHADING_LIT and blend.alpha_mode == 2 and not blend.zwrite
    assert material_params(model, None, frame).alpha_mode == 0
    frame.material_colors[(0, "color")] = np.array([1, 0, 0, 0.5], np.float32)
    frame.material_colors[(0, "outlineColor")] = np.array([0, 1, 0, 1], np.float32)
    frame.texture_transforms[5] = ((2.0, 2.0), (0.5, 0.0))
    params = material_params(model, 0, frame)
    assert params.base_color == pytest.approx([1, 0, 0, 0.5])
    assert params.outline_color == pytest.approx([0, 1, 0])
    base = material_params(model, 5, frame).uv_matrices[SLOTS.index("base")]
    assert (base @ [1, 1, 1])[:2] == pytest.approx([2.5, 2.0])


def test_uv_animation_advances_with_time():
    model = scenes.doll()
    model.materials[0].mtoon.uv_animation_scroll_x = 0.25
    model.materials[0].mtoon.uv_animation_rotation = 1.0
    params = material_params(model, 0, rest_frame(model, time=2.0))
    assert params.uv_scroll == pytest.approx([0.5, 0.0]) and params.uv_rotation == 2.0


def test_active_morphs_keeps_the_32_largest():
    from companion_desktop.avatar.render.renderer import active_morphs

    weights = np.linspace(0.01, 1.0, 50).astype(np.float32)
    weights[3] = 0.0
    index, w = active_morphs(weights, 50)
    assert len(index) == 32 and set(index) == set(range(18, 50))
    index, w = active_morphs(np.array([0, 0.5, 0, 1], np.float32), 3)
    assert list(index) == [1] and w == pytest.approx([0.5])


def test_unpremultiply():
    from companion_desktop.avatar.render.target import unpremultiply

    px = np.array([[[64, 32, 0, 128], [0, 0, 0, 0], [255, 255, 255, 255]]], np.uint8)
    out = unpremultiply(px)
    assert out[0, 0].tolist() == [128, 64, 0, 128]
    assert out[0, 1].tolist() == [0, 0, 0, 0] and out[0, 2].tolist() == [255] * 4
