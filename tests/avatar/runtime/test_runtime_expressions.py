"""Expression manager: morph binds, is_binary, block/blend overrides, material binds."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.vrm.expressions import ExpressionManager
from companion_desktop.avatar.vrm.model import (
    Expression,
    Material,
    MaterialColorBind,
    Mesh,
    MorphBind,
    MorphTarget,
    MToon,
    Node,
    Primitive,
    TextureRef,
    TextureTransformBind,
    VrmModel,
)

TARGETS = ["smile", "blink", "mouth_a", "look_l", "wink", "extra", "unbound"]


def face_model() -> VrmModel:
    n = 3
    prim = Primitive(np.zeros((n, 3), np.float32), np.tile(np.float32([0, 0, 1]), (n, 1)),
                     np.array([0, 1, 2], np.uint32),
                     targets=[MorphTarget(np.zeros((n, 3), np.float32)) for _ in TARGETS])
    defaults = np.zeros(len(TARGETS), np.float32)
    defaults[TARGETS.index("unbound")] = 0.25
    defaults[TARGETS.index("smile")] = 0.7  # bound: the default gives way to expressions
    mesh = Mesh("Face", [prim], TARGETS, defaults)

    def morph(name, target, weight=1.0, **kw):
        return Expression(name, True, [MorphBind(0, TARGETS.index(target), weight)], **kw)

    expressions = [
        morph("happy", "smile"),
        morph("blink", "blink"),
        morph("aa", "mouth_a"),
        morph("lookLeft", "look_l"),
        Expression("wink", False, [MorphBind(0, TARGETS.index("wink"), 1.0)], is_binary=True),
        Expression("smirk", False, [MorphBind(0, 0, 0.8), MorphBind(0, 5, 0.5)]),
        Expression("eyesShut", False, override_blink="block"),
        Expression("binaryBlock", False, is_binary=True, override_blink="block"),
        Expression("talkBlend", False, override_mouth="blend"),
        Expression("gazeBlock", False, override_look_at="block"),
        Expression("blinkLeft", True, [MorphBind(0, 1, 0.5)], override_blink="block"),
        Expression("angry", True, material_color_binds=[
            MaterialColorBind(0, "color", np.float32([1, 0, 0, 1])),
            MaterialColorBind(1, "shadeColor", np.float32([0, 0, 1, 1])),
        ]),
        Expression("sad", True, material_color_binds=[
            MaterialColorBind(0, "color", np.float32([0, 0, 1, 0.5]))]),
        Expression("surprised", True, texture_transform_binds=[
            TextureTransformBind(1, scale=(2.0, 1.0), offset=(0.5, -0.25))]),
        Expression("relaxed", True, texture_transform_binds=[  # next tile of an atlas
            TextureTransformBind(2, scale=(0.125, 0.125), offset=(0.875, 0.0))]),
    ]
    materials = [Material("skin", base_color=np.float32([1, 1, 1, 1])),
                 Material("eyes", mtoon=MToon(shade_color=np.float32([0.5, 0.5, 0.5]))),
                 Material("atlas", base_color_texture=TextureRef(0, scale=(0.125, 0.125)))]
    return VrmModel("1.0", [Node("face", mesh=0)], [0], meshes=[mesh], materials=materials,
                    expressions={e.name: e for e in expressions})


def weights(manager: ExpressionManager) -> dict[str, float]:
    out = manager.evaluate().morph_weights[0]
    return {name: float(w) for name, w in zip(TARGETS, out, strict=True)}


def test_preset_and_custom_weights_drive_their_targets():
    m = ExpressionManager(face_model())
    assert m.set("happy", 0.4) and m.set("smirk", 0.5)
    assert not m.set("nope", 1.0)
    w = weights(m)
    assert w["smile"] == pytest.approx(0.4 + 0.8 * 0.5)
    assert w["extra"] == pytest.approx(0.25)
    assert w["unbound"] == pytest.approx(0.25)  # the mesh default stays
    m.set("happy", 1.0)
    m.set("smirk", 1.0)
    assert weights(m)["smile"] == 1.0  # clamped to 0..1
    m.set("happy", 5.0)
    assert m.get("happy") == 1.0
    m.reset()
    assert weights(m)["smile"] == 0.0


@pytest.mark.parametrize(("weight", "applied"), [(0.0, 0.0), (0.5, 0.0), (0.51, 1.0), (1.0, 1.0)])
def test_is_binary_rounds(weight, applied):
    m = ExpressionManager(face_model())
    m.set("wink", weight)
    assert weights(m)["wink"] == applied


@pytest.mark.parametrize(("blocker", "weight", "blink"), [
    ("eyesShut", 0.0, 1.0),
    ("eyesShut", 0.01, 0.0),
    ("eyesShut", 1.0, 0.0),
    ("binaryBlock", 0.4, 1.0),  # rounds to 0: blocks nothing
    ("binaryBlock", 0.6, 0.0),
])
def test_block_override_zeroes_blink(blocker, weight, blink):
    m = ExpressionManager(face_model())
    m.set("blink", 1.0)
    m.set(blocker, weight)
    assert weights(m)["blink"] == pytest.approx(blink)


@pytest.mark.parametrize(("weight", "mouth"), [(0.0, 0.8), (0.25, 0.6), (1.0, 0.0)])
def test_blend_override_scales_mouth(weight, mouth):
    m = ExpressionManager(face_model())
    m.set("aa", 0.8)
    m.set("talkBlend", weight)
    assert weights(m)["mouth_a"] == pytest.approx(mouth)


def test_look_at_block_and_categories_stay_separate():
    m = ExpressionManager(face_model())
    for name in ("lookLeft", "blink", "aa"):
        m.set(name, 1.0)
    m.set("gazeBlock", 1.0)
    w = weights(m)
    assert (w["look_l"], w["blink"], w["mouth_a"]) == (0.0, 1.0, 1.0)


def test_an_expression_never_overrides_its_own_category():
    m = ExpressionManager(face_model())
    m.set("blinkLeft", 1.0)  # blocks blink, but is a blink expression itself
    assert weights(m)["blink"] == pytest.approx(0.5)
    m.set("blink", 1.0)
    assert weights(m)["blink"] == pytest.approx(1.0)  # blink blocked neither


def test_material_color_binds_lerp_from_the_base():
    model = face_model()
    m = ExpressionManager(model)
    out = m.evaluate()
    np.testing.assert_allclose(out.material_colors[(0, "color")], [1, 1, 1, 1])
    np.testing.assert_allclose(out.material_colors[(1, "shadeColor")], [0.5, 0.5, 0.5, 1])
    m.set("angry", 0.5)
    out = m.evaluate()
    np.testing.assert_allclose(out.material_colors[(0, "color")], [1, 0.5, 0.5, 1])
    np.testing.assert_allclose(out.material_colors[(1, "shadeColor")], [0.25, 0.25, 0.75, 1])
    m.set("angry", 1.0)
    m.set("sad", 1.0)  # both: base + both deltas, never below 0
    np.testing.assert_allclose(m.evaluate().material_colors[(0, "color")], [0, 0, 0, 0.5])


@pytest.mark.parametrize(("weight", "scale", "offset"), [
    (0.0, (1.0, 1.0), (0.0, 0.0)),
    (0.5, (1.5, 1.0), (0.25, -0.125)),
    (1.0, (2.0, 1.0), (0.5, -0.25)),
])
def test_texture_transform_binds(weight, scale, offset):
    m = ExpressionManager(face_model())
    m.set("surprised", weight)
    got_scale, got_offset = m.evaluate().texture_transforms[1]
    assert got_scale == pytest.approx(scale) and got_offset == pytest.approx(offset)


@pytest.mark.parametrize(("weight", "offset"), [(0.0, 0.0), (0.5, 0.4375), (1.0, 0.875)])
def test_texture_transform_binds_start_from_the_material_transform(weight, offset):
    m = ExpressionManager(face_model())
    m.set("relaxed", weight)
    scale, got = m.evaluate().texture_transforms[2]
    assert scale == pytest.approx((0.125, 0.125)) and got == pytest.approx((offset, 0.0))
