"""Property tests: a damaged small GLB/VRM either loads or is refused with AvatarLoadError.

``internal`` must stay False: every refusal comes from a check, not from the loader's
safety net around unexpected exceptions.
"""

from __future__ import annotations

import copy
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from tests.avatar.loader.gltf_builder import (
    SKELETON,
    GltfBuilder,
    make_glb,
    minimal_avatar,
    png_bytes,
    vrm0_extension,
)  # fmt: skip

FUZZ = settings(max_examples=250, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])


def _sample() -> GltfBuilder:
    """A VRM 1.0 with a skinned, morphing, textured mesh, expressions and spring bones."""
    b = minimal_avatar("1.0")
    nodes = {n["name"]: i for i, n in enumerate(b.json["nodes"])}
    texture = b.add("textures", {"source": b.image(png_bytes(size=2)), "sampler": 0})
    b.add("samplers", {"magFilter": 9729, "wrapS": 33071})
    material = b.add("materials", {"name": "m",
                                   "pbrMetallicRoughness": {"baseColorTexture": {"index": texture}},
                                   "extensions": {"VRMC_materials_mtoon": {
                                       "shadingToonyFactor": 0.5}}})
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    primitive = {
        "attributes": {
            "POSITION": b.accessor(positions),
            "TEXCOORD_0": b.accessor(positions[:, :2].copy()),
            "JOINTS_0": b.accessor(np.array([[0, 1, 0, 0]] * 4, np.uint8)),
            "WEIGHTS_0": b.accessor(np.array([[0.5, 0.5, 0, 0]] * 4, np.float32)),
        },
        "indices": b.accessor(np.array([0, 1, 2, 0, 2, 3], np.uint16)),
        "targets": [{"POSITION": b.accessor(positions * 0.1)}],
        "material": material,
    }
    mesh = b.add("meshes", {"primitives": [primitive], "weights": [0.0]})
    skin = b.add("skins", {"joints": [nodes["hips"], nodes["head"]],
                           "inverseBindMatrices": b.accessor(np.tile(np.eye(4, dtype=np.float32)
                                                                     .reshape(1, 16), (2, 1)))})
    body = b.node(name="body", mesh=mesh, skin=skin)
    ext = b.json["extensions"]["VRMC_vrm"]
    ext["expressions"] = {"preset": {"happy": {"morphTargetBinds": [
        {"node": body, "index": 0, "weight": 1}], "overrideBlink": "block"}}}
    ext["lookAt"] = {"type": "bone", "offsetFromHeadBone": [0, 0.06, 0]}
    b.json["extensions"]["VRMC_springBone"] = {
        "colliders": [{"node": nodes["head"], "shape": {"sphere": {"radius": 0.1}}}],
        "colliderGroups": [{"colliders": [0]}],
        "springs": [{"joints": [{"node": nodes["leftUpperArm"]}, {"node": nodes["leftLowerArm"]}],
                     "colliderGroups": [0]}],
    }
    return b


def _sample0() -> GltfBuilder:
    """A VRM 0.x with blend shapes, spring bones, MToon properties and first person."""
    b = _sample()
    nodes = {n["name"]: i for i, n in enumerate(b.json["nodes"])}
    ext = vrm0_extension({k: v for k, v in nodes.items() if k in SKELETON})
    ext["blendShapeMaster"] = {"blendShapeGroups": [
        {"name": "Joy", "presetName": "joy", "binds": [{"mesh": 1, "index": 0, "weight": 100}],
         "materialValues": [{"materialName": "m", "propertyName": "_Color",
                             "targetValue": [1, 0, 0, 1]}]},
        {"name": "Mine", "presetName": "unknown", "isBinary": True},
    ]}  # fmt: skip
    ext["secondaryAnimation"] = {
        "boneGroups": [{"stiffiness": 1, "gravityDir": {"x": 0, "y": -1, "z": 0},
                        "bones": [nodes["leftUpperArm"]], "colliderGroups": [0], "center": -1}],
        "colliderGroups": [{"node": nodes["head"], "colliders": [
            {"offset": {"x": 0, "y": 0, "z": 0.1}, "radius": 0.1}]}],
    }  # fmt: skip
    ext["firstPerson"] = {"firstPersonBoneOffset": {"x": 0, "y": 0.1, "z": 0},
                          "lookAtTypeName": "BlendShape",
                          "lookAtHorizontalOuter": {"curve": [0, 0, 0, 1], "xRange": 90,
                                                    "yRange": 1},
                          "meshAnnotations": [{"mesh": 1, "firstPersonFlag": "Both"}]}
    ext["materialProperties"] = [{"name": "m", "shader": "VRM/MToon", "renderQueue": 3000,
                                  "floatProperties": {"_BlendMode": 3, "_OutlineWidthMode": 1},
                                  "vectorProperties": {"_MainTex": [0, 0, 1, 1],
                                                       "_ShadeColor": [1, 0, 0, 1]},
                                  "textureProperties": {"_MainTex": 0, "_ShadeTexture": 0},
                                  "keywordMap": {"_ALPHABLEND_ON": True}}]
    b.json["extensions"] = {"VRM": ext}
    return b


SAMPLE = _sample()
SAMPLE_GLB = SAMPLE.glb()
SAMPLE_JSON = SAMPLE.finish_json()
JSON_END = 20 + int.from_bytes(SAMPLE_GLB[12:16], "little")
NASTY = [-1, 0, 1, 3, 2**31, 2**64, 1.5, -0.0, 1e308, "x", "", None, True, [], {}, [0], {"a": 1}]


def _check(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "fuzz.vrm"
        path.write_bytes(data)
        started = time.perf_counter()
        try:
            load_model(path)
        except AvatarLoadError as error:
            assert not error.internal, error.message
            assert error.message
        assert time.perf_counter() - started < 2.0


def test_the_sample_itself_loads():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sample.vrm"
        path.write_bytes(SAMPLE_GLB)
        model = load_model(path)
    assert model.version == "1.0" and model.problems == []
    assert model.expressions["happy"].override_blink == "block"
    assert len(model.springs) == 1 and model.materials[0].mtoon.shading_toony == 0.5


@FUZZ
@given(st.lists(st.tuples(st.integers(0, len(SAMPLE_GLB) - 1), st.integers(0, 255)),
                min_size=1, max_size=8))
def test_byte_mutations(mutations):
    data = bytearray(SAMPLE_GLB)
    for position, value in mutations:
        data[position] = value
    _check(bytes(data))


@FUZZ
@given(st.lists(st.tuples(st.integers(12, JSON_END - 1), st.integers(0x20, 0x7E)),
                min_size=1, max_size=4))
def test_json_text_mutations(mutations):
    data = bytearray(SAMPLE_GLB)
    for position, value in mutations:
        data[position] = value
    _check(bytes(data))


@FUZZ
@given(st.integers(0, len(SAMPLE_GLB)))
def test_truncations(length):
    _check(SAMPLE_GLB[:length])


def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*prefix, index))
    return out


SAMPLE0 = _sample0()
SAMPLES = {"1.0": SAMPLE, "0.x": SAMPLE0}
PATHS = {name: _paths(b.finish_json()) for name, b in SAMPLES.items()}


def test_the_0x_sample_itself_loads():
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sample.vrm"
        path.write_bytes(SAMPLE0.glb())
        model = load_model(path)
    assert model.version == "0.x"
    assert [p.message for p in model.problems] == [
        "the VRM 0.x look-at curves are not straight lines"]
    assert set(model.expressions) == {"happy", "Mine"} and len(model.springs) == 1


@pytest.mark.parametrize("version", sorted(SAMPLES))
@FUZZ
@given(data=st.data())
def test_structured_json_mutations(version, data):
    sample = SAMPLES[version]
    edits = data.draw(st.lists(st.tuples(st.sampled_from(PATHS[version]), st.sampled_from(NASTY)),
                               min_size=1, max_size=3))
    doc = sample.finish_json()
    for path, value in edits:
        target = doc
        try:
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue
    _check(make_glb(doc, bytes(sample.bin)))
