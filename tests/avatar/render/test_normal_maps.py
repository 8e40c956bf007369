"""Normal maps: a synthetic map tilts the lit side the right way (lit and MToon shading,
generated and file tangents, mirrored UVs, rigid and skinned transforms); materials
without a normal map, or models without UV0, draw exactly as with the feature off."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.render.camera import Camera, frame_camera
from companion_desktop.avatar.render.renderer import Lighting, Renderer
from companion_desktop.avatar.vrm.frame import rest_frame
from companion_desktop.avatar.vrm.model import (
    Material,
    Mesh,
    MToon,
    Node,
    Sampler,
    Skin,
    Texture,
    TextureRef,
    VrmModel,
)  # fmt: skip
from tests.avatar.render import scenes
from tests.conftest import SHARED_ASSETS

pytestmark = pytest.mark.gl

F32 = np.float32
FRONT = Camera(eye=np.array([0, 0, 3], F32), target=np.zeros(3, F32), near=0.1, far=10.0)
SIZE = 48
RIGHT, LEFT, ABOVE = (1.0, 0.0, 0.3), (-1.0, 0.0, 0.3), (0.0, 1.0, 0.3)  # camera space
FLAT, TILT_X, TILT_Y = (0.0, 0.0, 1.0), (0.6, 0.0, 0.8), (0.0, 0.6, 0.8)  # tangent space


@pytest.fixture(scope="module")
def renderers(gl_context):
    """{True: normal maps on, False: the feature off}, sharing the session context."""
    gl_context.make_current()
    made = {flag: Renderer(samples=4, normal_maps=flag) for flag in (True, False)}
    yield made
    gl_context.make_current()
    for renderer in made.values():
        renderer.release()


def _draw(renderer: Renderer, model: VrmModel, light=RIGHT, frame=None,
          camera: Camera = FRONT, size: int = SIZE) -> np.ndarray:
    renderer.lighting = Lighting(direction=np.array(light, F32))
    renderer.load(model)
    renderer.draw(frame if frame is not None else rest_frame(model), camera, size, size)
    return renderer.read_rgba()


def _map(normal) -> Texture:
    """A 4x4 tangent-space normal map holding one unit normal everywhere."""
    n = np.asarray(normal, np.float64)
    rgb = np.round((n / np.linalg.norm(n) * 0.5 + 0.5) * 255.0)
    pixels = np.empty((4, 4, 4), np.uint8)
    pixels[..., :3], pixels[..., 3] = rgb.astype(np.uint8), 255
    return Texture("normal", pixels, Sampler())


def _material(shading: str, normal_map: bool) -> Material:
    material = Material(base_color=np.array([0.5, 0.5, 0.5, 1], F32),
                        normal_texture=TextureRef(0) if normal_map else None)
    if shading == "mtoon":
        material.mtoon = MToon(shade_color=np.full(3, 0.05, F32), shading_toony=0.0)
    return material


def _quad(shading="lit", normal=None, uv=None, **prim) -> VrmModel:
    """The unit quad facing the camera; ``normal`` None: no normal map at all."""
    quad = scenes.quad(1.0)
    if uv is not None:
        quad.uv0 = np.asarray(uv, F32)
    for key, value in prim.items():
        setattr(quad, key, value)
    textures = [] if normal is None else [_map(normal)]
    return scenes.single_mesh([quad], [_material(shading, normal is not None)], textures)


def _centre(rgba: np.ndarray) -> float:
    """Mean RGB of the middle of the picture (0..255); the quad covers it opaquely."""
    c = SIZE // 2
    patch = rgba[c - 6: c + 6, c - 6: c + 6].astype(np.float64)
    assert (patch[..., 3] == 255).all()
    return float(patch[..., :3].mean())


@pytest.mark.parametrize("shading", ["lit", "mtoon"])
def test_a_map_tilted_towards_plus_u_brightens_the_side_it_faces(renderers, shading):
    on = renderers[True]
    for light, brighter in ((RIGHT, True), (LEFT, False)):
        flat = _centre(_draw(on, _quad(shading, FLAT), light))
        tilted = _centre(_draw(on, _quad(shading, TILT_X), light))
        assert (tilted > flat + 8) if brighter else (tilted < flat - 8), (light, flat, tilted)


@pytest.mark.parametrize("shading", ["lit", "mtoon"])
def test_a_flat_map_draws_like_no_map_within_one_level(renderers, shading):
    for light in (RIGHT, LEFT, ABOVE):
        plain = _draw(renderers[True], _quad(shading, None), light).astype(int)
        flat = _draw(renderers[True], _quad(shading, FLAT), light).astype(int)
        assert np.abs(plain - flat).max() <= 1
        off = _draw(renderers[False], _quad(shading, TILT_X), light).astype(int)
        assert np.array_equal(off, plain), "with the feature off a normal map changes nothing"


def test_mirrored_uvs_flip_the_tangent_but_keep_up_up(renderers):
    on = renderers[True]
    mirrored = [[1, 1], [0, 1], [0, 0], [1, 0]]  # U grows towards -X, V unchanged
    flat = _centre(_draw(on, _quad("lit", FLAT, uv=mirrored), RIGHT))
    assert _centre(_draw(on, _quad("lit", TILT_X, uv=mirrored), RIGHT)) < flat - 8
    flat_up = _centre(_draw(on, _quad("lit", FLAT, uv=mirrored), ABOVE))
    for uv in (None, mirrored):  # w = -1 keeps the map's +Y on the image's "up"
        assert _centre(_draw(on, _quad("lit", TILT_Y, uv=uv), ABOVE)) > flat_up + 8


def test_file_tangents_are_used_instead_of_generated_ones(renderers):
    on = renderers[True]
    backwards = np.tile(np.array([-1, 0, 0, 1], F32), (4, 1))
    flat = _centre(_draw(on, _quad("lit", FLAT), RIGHT))
    assert _centre(_draw(on, _quad("lit", TILT_X, tangents=backwards), RIGHT)) < flat - 8


def test_normal_scale_is_applied_and_bounded(renderers):
    on = renderers[True]
    flat = _draw(on, _quad("lit", FLAT), RIGHT).astype(int)
    tilted = _centre(_draw(on, _quad("lit", TILT_X), RIGHT))
    for scale, expect in ((0.0, "flat"), (float("nan"), "tilted"), ("bad", "tilted")):
        model = _quad("lit", TILT_X)
        model.materials[0].normal_scale = scale  # what the loader may provide
        rgba = _draw(on, model, RIGHT)
        if expect == "flat":
            assert np.abs(rgba.astype(int) - flat).max() <= 1
        else:
            assert abs(_centre(rgba) - tilted) < 0.5


def test_without_uv0_there_is_no_normal_mapping(renderers):
    plain = scenes.single_mesh([scenes.prim(*_quad_arrays())], [_material("lit", False)])
    mapped = scenes.single_mesh([scenes.prim(*_quad_arrays())], [_material("lit", True)],
                                [_map(TILT_X)])
    assert plain.meshes[0].primitives[0].uv0 is None
    assert np.array_equal(_draw(renderers[True], mapped), _draw(renderers[True], plain))


def _quad_arrays():
    q = scenes.quad(1.0)
    return q.positions, q.normals, q.indices, None, 0


def test_a_rotated_node_turns_the_tangent(renderers):
    on = renderers[True]
    turn = np.array([0, 0, math.sin(math.pi / 4), math.cos(math.pi / 4)], F32)  # 90 deg about Z
    models = {}
    for name, normal in (("flat", FLAT), ("tilt", TILT_X)):
        models[name] = _quad("lit", normal)
        models[name].nodes[0].rotation = turn
    flat = _centre(_draw(on, models["flat"], ABOVE))
    assert _centre(_draw(on, models["tilt"], ABOVE)) > flat + 8  # +U now points up


def _skinned_quad(normal) -> VrmModel:
    quad = scenes.quad(1.0)
    quad.joints = np.zeros((4, 4), np.uint16)
    quad.weights = np.tile(np.array([1, 0, 0, 0], F32), (4, 1))
    nodes = [Node("mesh", mesh=0, skin=0), Node("bone")]
    return VrmModel(version="gltf", nodes=nodes, scene_roots=[0, 1],
                    meshes=[Mesh("quad", [quad])], skins=[Skin([1], np.eye(4, dtype=F32)[None])],
                    materials=[_material("lit", True)], textures=[_map(normal)])


def test_skinning_turns_the_tangent(renderers):
    on = renderers[True]
    flat_model, tilt_model = _skinned_quad(FLAT), _skinned_quad(TILT_X)
    frames = [scenes.posed(m, {1: scenes.quat_z(math.pi / 2)}) for m in (flat_model, tilt_model)]
    flat = _centre(_draw(on, flat_model, ABOVE, frames[0]))
    assert _centre(_draw(on, tilt_model, ABOVE, frames[1])) > flat + 8
    unposed_flat = _centre(_draw(on, flat_model, RIGHT))
    assert _centre(_draw(on, tilt_model, RIGHT)) > unposed_flat + 8


def _shared_models() -> list:
    return sorted(p for folder in ("vrm0", "vrm1", "gltf") if (SHARED_ASSETS / folder).is_dir()
                  for p in (SHARED_ASSETS / folder).iterdir()
                  if p.suffix.lower() in (".vrm", ".glb", ".gltf"))


def _upper(renderer: Renderer, model: VrmModel) -> np.ndarray:
    frame = rest_frame(model)
    return _draw(renderer, model, Lighting().direction, frame,
                 frame_camera(model, frame, "upper", 1.0), size=96)


@pytest.mark.skipif(not _shared_models(), reason=f"no shared models under {SHARED_ASSETS}")
def test_shared_models_without_normal_maps_draw_exactly_as_with_the_feature_off(renderers):
    from companion_desktop.avatar.vrm.loader import load_model

    for path in _shared_models():
        model = load_model(path)
        if any(m.normal_texture is not None for m in model.materials):
            continue
        assert np.array_equal(_upper(renderers[True], model), _upper(renderers[False], model)), \
            path.name
    doll = scenes.doll(outline=0.004)
    assert np.array_equal(_upper(renderers[True], doll), _upper(renderers[False], doll))


@pytest.mark.skipif(not _shared_models(), reason=f"no shared models under {SHARED_ASSETS}")
def test_shared_models_given_a_normal_map_still_draw(renderers):
    from companion_desktop.avatar.vrm.loader import load_model

    changed = []
    for path in _shared_models():
        model = load_model(path)
        before = _upper(renderers[True], model)
        model.textures.append(_map((0.5, 0.5, 0.7)))
        for material in model.materials:
            material.normal_texture = TextureRef(len(model.textures) - 1)
        after = _upper(renderers[True], model)
        assert np.array_equal(after[..., 3] > 0, before[..., 3] > 0), path.name  # silhouette
        changed.append(not np.array_equal(after, before))
    assert any(changed), "the normal map should change the shading of UV-mapped models"
