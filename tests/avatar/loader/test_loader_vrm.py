"""VRM 1.0 and VRM 0.x extensions on hand-built avatars, both into the one 1.0 model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.vrm0 import bone_name
from companion_desktop.avatar.vrm.vrm0_mtoon import srgb_to_linear
from tests.avatar.loader.gltf_builder import QUAD_POSITIONS, GltfBuilder, minimal_avatar


def _morph_face(b: GltfBuilder) -> tuple[int, int]:
    """A mesh with two morph targets on a node; returns (mesh, node)."""
    delta = b.accessor(np.full((4, 3), 0.1, np.float32))
    mesh = b.add("meshes", {
        "name": "face",
        "primitives": [{"attributes": {"POSITION": b.accessor(QUAD_POSITIONS)},
                        "targets": [{"POSITION": delta}, {"POSITION": delta}]}],
        "extras": {"targetNames": ["smile", "wink"]},
    })  # fmt: skip
    return mesh, b.node(name="face_node", mesh=mesh)


def _hair(b: GltfBuilder, parent: int) -> dict[str, int]:
    """root -> (a -> a1, b) below ``parent``."""
    names = {}
    for name, translation in (("root", [0, 0.1, 0]), ("a", [0, -0.1, 0]), ("a1", [0, -0.1, 0]),
                              ("b", [0.05, -0.1, 0])):
        names[name] = b.node(root=False, name=name, translation=translation)
    nodes = b.json["nodes"]
    nodes[parent].setdefault("children", []).append(names["root"])
    nodes[names["root"]]["children"] = [names["a"], names["b"]]
    nodes[names["a"]]["children"] = [names["a1"]]
    return names


def test_vrm1_expressions_look_at_first_person_and_constraints(write):
    b = minimal_avatar("1.0")
    mesh, node = _morph_face(b)
    b.add("materials", {"name": "skin"})
    b.json["meshes"][mesh]["primitives"][0]["material"] = 0
    ext = b.json["extensions"]["VRMC_vrm"]
    ext["expressions"] = {
        "preset": {"happy": {
            "morphTargetBinds": [{"node": node, "index": 1, "weight": 0.5},
                                 {"node": node, "index": 9, "weight": 1}],
            "materialColorBinds": [{"material": 0, "type": "rimColor",
                                    "targetValue": [1, 0, 0, 1]}],
            "textureTransformBinds": [{"material": 0, "scale": [0.5, 0.5], "offset": [0.25, 0]}],
            "isBinary": True, "overrideMouth": "block", "overrideLookAt": "weird",
        }},
        "custom": {"wink": {"morphTargetBinds": [{"node": node, "index": 1, "weight": 1}]},
                   "happy": {}},
    }  # fmt: skip
    ext["lookAt"] = {"type": "expression", "offsetFromHeadBone": [0, 0.1, 0.02],
                     "rangeMapVerticalUp": {"inputMaxValue": 45, "outputScale": 0.8}}
    ext["firstPerson"] = {"meshAnnotations": [{"node": node, "type": "thirdPersonOnly"}]}
    b.json["nodes"][1]["extensions"] = {"VRMC_node_constraint": {
        "specVersion": "1.0", "constraint": {"roll": {"source": 0, "rollAxis": "Y"}}}}
    model = load_model(write("avatar.vrm", b.glb()))
    assert model.version == "1.0" and model.root_rotation_y == 0.0
    happy = model.expressions["happy"]
    assert happy.preset and happy.is_binary
    assert (happy.override_mouth, happy.override_look_at, happy.override_blink) == \
        ("block", "none", "none")
    assert [(x.mesh, x.target, x.weight) for x in happy.morph_binds] == [(mesh, 1, 0.5)]
    assert happy.material_color_binds[0].kind == "rimColor"
    assert happy.texture_transform_binds[0].offset == (0.25, 0.0)
    assert not model.expressions["wink"].preset
    look_at = model.look_at
    assert look_at.type == "expression" and look_at.vertical_up.input_max == 45
    assert look_at.vertical_up.output_scale == pytest.approx(0.8)
    assert look_at.horizontal_inner.output_scale == 1.0  # expression default
    assert model.first_person == {mesh: "thirdPersonOnly"}
    assert model.meta.name == "Test" and model.meta.authors == ["tester"]
    messages = " | ".join(p.message for p in model.problems)
    assert "node constraint" not in messages  # a valid constraint is applied, not reported
    assert [(c.kind, c.destination, c.source, c.axis) for c in model.constraints] == \
        [("roll", 1, 0, "Y")]
    assert "binds a morph target that does not exist" in messages
    assert "name of a preset" in messages


def test_vrm1_spring_bones(write):
    b = minimal_avatar("1.0")
    bones = {n["name"]: i for i, n in enumerate(b.json["nodes"])}
    hair = _hair(b, bones["head"])
    b.json["extensions"]["VRMC_springBone"] = {
        "specVersion": "1.0",
        "colliders": [
            {"node": bones["head"], "shape": {"sphere": {"offset": [0, 0.1, 0], "radius": 0.1}}},
            {"node": bones["chest"], "shape": {"capsule": {"offset": [0, 0, 0], "radius": 0.05,
                                                           "tail": [0, 0.2, 0]}}},
            {"node": 999, "shape": {"sphere": {"radius": 1}}},
        ],
        "colliderGroups": [{"name": "head", "colliders": [0, 2]}, {"colliders": [1]}],
        "springs": [{"name": "hair", "center": bones["hips"], "colliderGroups": [0, 1],
                     "joints": [{"node": hair["root"], "stiffness": 2, "gravityPower": 0.5,
                                 "gravityDir": [1, 0, 0], "dragForce": 0.7, "hitRadius": 0.03},
                                {"node": hair["a"]}, {"node": hair["a1"]}]}],
    }  # fmt: skip
    model = load_model(write("springs.vrm", b.glb()))
    assert [c.shape for c in model.colliders] == ["sphere", "capsule"]
    np.testing.assert_allclose(model.colliders[1].tail, [0, 0.2, 0])
    assert [g.colliders for g in model.collider_groups] == [[0], [1]]
    (chain,) = model.springs
    assert chain.name == "hair" and chain.center == bones["hips"]
    assert chain.collider_groups == [0, 1]
    assert [j.node for j in chain.joints] == [hair["root"], hair["a"], hair["a1"]]
    first = chain.joints[0]
    assert (first.stiffness, first.gravity_power, first.drag_force) == (2, 0.5, pytest.approx(0.7))
    np.testing.assert_allclose(first.gravity_dir, [1, 0, 0])
    assert chain.joints[1].stiffness == 1.0 and chain.joints[1].drag_force == 0.5  # defaults
    assert any("collider 2" in p.message for p in model.problems)


def test_vrm0_humanoid_names_and_root_rotation(write):
    assert bone_name("leftThumbProximal") == "leftThumbMetacarpal"
    assert bone_name("rightThumbIntermediate") == "rightThumbProximal"
    assert bone_name("leftThumbDistal") == "leftThumbDistal"
    assert bone_name("leftIndexProximal") == "leftIndexProximal"
    b = minimal_avatar("0.x")
    model = load_model(write("old.vrm", b.glb()))
    assert model.version == "0.x" and model.root_rotation_y == pytest.approx(math.pi)
    assert model.humanoid["leftThumbMetacarpal"] == len(b.json["nodes"]) - 2
    assert model.meta.name == "Old" and model.meta.authors == ["someone"]
    assert model.meta.license == "CC0"


def test_vrm0_blend_shapes(write):
    b = minimal_avatar("0.x")
    mesh, _ = _morph_face(b)
    b.add("materials", {"name": "skin"})
    b.json["extensions"]["VRM"]["blendShapeMaster"] = {"blendShapeGroups": [
        {"name": "Joy", "presetName": "joy", "binds": [{"mesh": mesh, "index": 0, "weight": 50}],
         "materialValues": [
             {"materialName": "skin", "propertyName": "_Color", "targetValue": [0.5, 1, 0, 0.5]},
             {"materialName": "skin", "propertyName": "_MainTex_ST",
              "targetValue": [0.5, 0.25, 0.1, 0.2]},
             {"materialName": "skin", "propertyName": "_Glossiness", "targetValue": [1]},
         ]},
        {"name": "Sorrow", "presetName": "SORROW", "binds": [{"mesh": mesh, "index": 1,
                                                               "weight": 150}]},
        {"name": "MyFace", "presetName": "unknown", "isBinary": True},
        {"name": "Blink_L", "presetName": "blink_l"},
        {"name": "Joy again", "presetName": "joy"},
        {"name": "", "presetName": ""},
    ]}  # fmt: skip
    model = load_model(write("faces.vrm", b.glb()))
    assert set(model.expressions) == {"happy", "sad", "MyFace", "blinkLeft", "expression5"}
    happy = model.expressions["happy"]
    assert [(x.mesh, x.target, x.weight) for x in happy.morph_binds] == [(mesh, 0, 0.5)]
    (color,) = happy.material_color_binds
    assert color.kind == "color" and color.material == 0
    np.testing.assert_allclose(color.target, [srgb_to_linear(0.5), 1, 0, 0.5], atol=1e-6)
    (transform,) = happy.texture_transform_binds
    assert transform.scale == (0.5, 0.25)
    assert transform.offset == pytest.approx((0.1, 1 - 0.25 - 0.2))
    assert model.expressions["sad"].morph_binds[0].weight == 1.0  # clamped
    custom = model.expressions["MyFace"]
    assert not custom.preset and custom.is_binary and custom.override_blink == "none"
    messages = " | ".join(p.message for p in model.problems)
    assert "repeats an expression" in messages and "_Glossiness" in messages


def test_vrm0_spring_bones_become_chains_with_tails(write):
    b = minimal_avatar("0.x")
    bones = {n["name"]: i for i, n in enumerate(b.json["nodes"])}
    hair = _hair(b, bones["head"])
    b.json["extensions"]["VRM"]["secondaryAnimation"] = {
        "boneGroups": [{"comment": "hair", "stiffiness": 3, "gravityPower": 0.2,
                        "gravityDir": {"x": 1, "y": 0, "z": 1}, "dragForce": 0.6,
                        "center": -1, "hitRadius": 0.05, "bones": [hair["root"], hair["a"]],
                        "colliderGroups": [0]}],
        "colliderGroups": [{"node": bones["head"], "colliders": [
            {"offset": {"x": 0.1, "y": 0.2, "z": 0.3}, "radius": 0.15}]}],
    }  # fmt: skip
    node_count = len(b.json["nodes"])
    model = load_model(write("hair.vrm", b.glb()))
    names = [[model.nodes[j.node].name for j in chain.joints] for chain in model.springs]
    assert names == [["root", "a", "a1", "a1_springTail"], ["b", "b_springTail"]]
    assert len(model.nodes) == node_count + 2
    for chain in model.springs:
        assert chain.name == "hair" and chain.center is None and chain.collider_groups == [0]
        joint = chain.joints[0]
        assert joint.stiffness == 3 and joint.drag_force == pytest.approx(0.6)
        assert joint.hit_radius == pytest.approx(0.05)
        np.testing.assert_allclose(joint.gravity_dir, [-1, 0, 1])
    tail = model.nodes[model.springs[0].joints[-1].node]
    assert tail.parent == hair["a1"] and tail.children == []
    np.testing.assert_allclose(tail.translation, [0, -0.07, 0], atol=1e-6)
    (collider,) = model.colliders
    assert collider.node == bones["head"] and collider.radius == pytest.approx(0.15)
    np.testing.assert_allclose(collider.offset, [0.1, 0.2, -0.3], atol=1e-6)
    assert any("twice" in p.message for p in model.problems)  # "a" is below "root"


def test_vrm0_look_at_and_first_person(write):
    b = minimal_avatar("0.x")
    b.json["extensions"]["VRM"]["firstPerson"] = {
        "firstPersonBone": 4, "firstPersonBoneOffset": {"x": 0, "y": 0.06, "z": 0.02},
        "lookAtTypeName": "Bone",
        "lookAtHorizontalInner": {"curve": [0, 0, 0, 1, 1, 1, 1, 0], "xRange": 60, "yRange": 8},
        "lookAtVerticalUp": {"xRange": 0.1, "yRange": 5},
        "meshAnnotations": [{"mesh": 0, "firstPersonFlag": "FirstPersonOnly"}],
    }  # fmt: skip
    model = load_model(write("eyes.vrm", b.glb()))
    look_at = model.look_at
    assert look_at.type == "bone"
    np.testing.assert_allclose(look_at.offset_from_head, [0, 0.06, -0.02], atol=1e-6)
    assert (look_at.horizontal_inner.input_max, look_at.horizontal_inner.output_scale) == (60, 8)
    assert look_at.vertical_up.input_max == 0.5  # three-vrm's minimum
    assert look_at.horizontal_outer.output_scale == 10.0  # bone default
    assert model.first_person == {0: "firstPersonOnly"}


def test_vrm0_mtoon_properties(write):
    b = minimal_avatar("0.x")
    texture = b.add("textures", {"source": b.add("images", {"uri": "data:image/png;base64,"})})
    for name in ("cloth", "veil", "cut", "plain"):
        b.add("materials", {"name": name})
    common = {"shader": "VRM/MToon", "textureProperties": {"_MainTex": texture, "_SphereAdd": 7}}
    veil = {
        **common, "name": "veil", "renderQueue": 3001,
        "floatProperties": {"_BlendMode": 2, "_CullMode": 0, "_UvAnimScrollY": 0.5,
                            "_UvAnimRotation": 0.25, "_OutlineWidthMode": 1, "_OutlineWidth": 0.5,
                            "_ShadeShift": 0.0, "_ShadeToony": 0.5, "_OutlineColorMode": 0},
        "vectorProperties": {"_MainTex": [0.1, 0.2, 2, 3], "_Color": [1, 0.5, 0, 0.25]},
    }  # fmt: skip
    cloth = {**common, "name": "cloth", "renderQueue": 3000,
             "floatProperties": {"_BlendMode": 2}, "vectorProperties": {}}
    b.json["extensions"]["VRM"]["materialProperties"] = [
        cloth, veil, {"name": "cut", "shader": "VRM/UnlitCutout"},
        {"name": "plain", "shader": "VRM_USE_GLTFSHADER"},
    ]
    model = load_model(write("toon.vrm", b.glb()))
    cloth_m, veil_m, cut_m, plain_m = model.materials
    mtoon = veil_m.mtoon
    assert veil_m.alpha_mode == "BLEND" and veil_m.double_sided
    np.testing.assert_allclose(veil_m.base_color, [1, srgb_to_linear(0.5), 0, 0.25], atol=1e-6)
    ref = veil_m.base_color_texture
    assert ref.index == texture and ref.scale == (2, 3) and ref.offset == pytest.approx((0.1, -2.2))
    assert mtoon.uv_animation_scroll_y == -0.5
    assert mtoon.uv_animation_rotation == pytest.approx(math.pi / 2)
    assert mtoon.outline_width_mode == "worldCoordinates"
    assert mtoon.outline_width == pytest.approx(0.005) and mtoon.outline_lighting_mix == 0.0
    assert mtoon.shading_toony == pytest.approx(0.75)
    assert mtoon.shading_shift == pytest.approx(-0.25)
    assert mtoon.matcap_texture is None  # texture 7 does not exist (warning)
    assert (cloth_m.mtoon.render_queue_offset, mtoon.render_queue_offset) == (-1, 0)
    assert cut_m.unlit and cut_m.alpha_mode == "MASK" and cut_m.mtoon is None
    assert plain_m.mtoon is None and not plain_m.unlit
    assert model.textures[texture].placeholder  # an empty data: URI is unreadable
