"""Every shared asset loads with the counts INVENTORY.md gives, plus per-file specifics."""

from __future__ import annotations

import math
import re
import time
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from companion_desktop.avatar.vrm.model import PRESET_EXPRESSIONS, REQUIRED_BONES, VrmModel
from companion_desktop.avatar.vrm.report import format_report, inspect
from tests.conftest import SHARED_ASSETS

# file: (version, meshes, primitives, vertices, triangles, morph targets, skins, joints,
#        materials, MToon materials, expressions (None: VRMA), spring groups (None: VRMA))
EXPECTED = {
    "vrm0/EmissionMigration_v0.106.0.vrm": ("0.x", 6, 6, 3090, 4608, 0, 0, 0, 6, 2, 17, 0),
    "vrm0/Godette_vrm_v4.vrm": ("0.x", 2, 4, 3109, 3439, 15, 1, 68, 4, 2, 17, 3),
    "vrm0/sphere.vrm": ("0.x", 1, 1, 1984, 960, 0, 1, 22, 1, 0, 0, 0),
    "vrm1/VRMC_materials_mtoon_UV_Animation_Test.vrm": ("1.0", 3, 3, 4, 6, 0, 0, 0, 3, 3, 0, 0),
    "vrm1/VRMC_vrm_expressions_isBinary_Overrides.vrm": ("1.0", 4, 4, 4, 8, 0, 0, 0, 4, 0, 2, 0),
    "vrm1/debug_robot.vrm": ("1.0", 1, 3, 72, 36, 0, 0, 0, 3, 0, 18, 0),
    "vrma/hips_spine_twisting.vrma": ("gltf", 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None),
    "vrma/idle_loop.vrma": ("gltf", 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None),
    "vrma/nop.vrma": ("gltf", 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None),
    "vrma/test.vrma": ("gltf", 0, 0, 0, 0, 0, 0, 0, 0, 0, None, None),
    "gltf/AnimatedMorphCube.glb": ("gltf", 1, 1, 24, 12, 2, 0, 0, 1, 0, 0, 0),
    "gltf/Fox.glb": ("gltf", 1, 1, 1728, 576, 0, 1, 24, 1, 0, 0, 0),
    "gltf/MorphStressTest.gltf": ("gltf", 1, 2, 1528, 2412, 8, 0, 0, 2, 0, 0, 0),
    "gltf/RiggedSimple.glb": ("gltf", 1, 1, 160, 188, 0, 1, 2, 1, 0, 0, 0),
    "gltf/SimpleSkin.gltf": ("gltf", 1, 1, 10, 8, 0, 1, 2, 0, 0, 0, 0),
}
GODETTE = "vrm0/Godette_vrm_v4.vrm"


def _load(assets: Path, name: str) -> VrmModel:
    path = assets / name
    if not path.is_file():
        pytest.skip(f"{name} is not among the shared assets")
    return load_model(path)


def _counts(model: VrmModel) -> tuple:
    geometry = inspect(model)["geometry"]
    spring_groups = len({chain.name for chain in model.springs}) if model.version == "0.x" \
        else len(model.springs)
    return (
        model.version, geometry["meshes"], geometry["primitives"], geometry["vertices"],
        geometry["triangles"], geometry["morph_targets"], geometry["skins"], geometry["joints"],
        len(model.materials), sum(m.mtoon is not None for m in model.materials),
        len(model.expressions), spring_groups,
    )  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts_match_the_inventory(assets, name):
    model = _load(assets, name)
    expected = EXPECTED[name]
    counts = _counts(model)
    if expected[-1] is None:  # VRMA: its expression column counts animated expressions
        expected, counts = expected[:-2], counts[:-2]
    assert counts == expected
    if model.version != "gltf":
        assert set(REQUIRED_BONES) <= set(model.humanoid)
    assert model.source == str(assets / name)
    for mesh in model.meshes:
        assert len(mesh.target_names) == len(mesh.default_weights)
        for primitive in mesh.primitives:
            n = len(primitive.positions)
            assert primitive.normals.shape == (n, 3)
            assert primitive.indices.dtype == np.uint32 and len(primitive.indices) % 3 == 0
            assert int(primitive.indices.max(initial=0)) < n
            if primitive.weights is not None:
                np.testing.assert_allclose(primitive.weights.sum(axis=1), 1.0, atol=1e-5)
                assert primitive.joints.dtype == np.uint16
    text = format_report(inspect(model))
    assert name.split("/")[-1] in text


def _inventory_rows() -> dict[str, list[str]]:
    text = (SHARED_ASSETS / "INVENTORY.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 10 and "/" in cells[0] and "." in cells[0]:
            rows[cells[0]] = cells
    return rows


def test_the_expected_table_is_the_inventory_table(assets):
    """EXPECTED restates INVENTORY.md's summary table; fail when the inventory changes."""
    if not (assets / "INVENTORY.md").is_file():
        pytest.skip("no INVENTORY.md")
    rows = _inventory_rows()
    assert set(rows) == set(EXPECTED)
    for name, cells in rows.items():
        version, meshes, prims, verts, tris, morphs, skins, joints, mats, mtoon, expr, springs = \
            EXPECTED[name]
        assert cells[1] == {"gltf": "-", "0.x": "0.x", "1.0": "1.0"}[version] or cells[1] == "VRMA"
        assert cells[2] == f"{meshes}/{prims}"
        assert (cells[3], cells[4], cells[5]) == (str(verts), str(tris), str(morphs))
        assert cells[6] == f"{skins}/{joints}"
        assert cells[7] == f"{mats} ({mtoon})"
        if expr is not None and version != "gltf":
            assert cells[8] == str(expr) and cells[9] == str(springs)
            assert cells[10] == "complete"


def test_godette_converts_to_the_1_0_model(assets):
    started = time.perf_counter()
    model = _load(assets, GODETTE)
    assert model.version == "0.x"
    assert model.root_rotation_y == pytest.approx(math.pi)
    assert set(model.expressions) == {
        "neutral", "aa", "ih", "ou", "ee", "oh", "blink", "happy", "angry", "sad", "relaxed",
        "lookUp", "lookDown", "lookLeft", "lookRight", "blinkLeft", "blinkRight",
    }
    assert all(e.preset and e.name in PRESET_EXPRESSIONS for e in model.expressions.values())
    happy = model.expressions["happy"]
    assert [(b.mesh, b.target, b.weight) for b in happy.morph_binds] == [(0, 9, 0.5), (0, 10, 0.25)]
    assert model.expressions["blinkLeft"].is_binary and not model.expressions["blink"].is_binary
    assert all(e.override_blink == "none" for e in model.expressions.values())
    face = model.meshes[0]
    assert face.target_names[:3] == ["HideHairBalls", "HdieEarRings", "HideBlush"]
    assert len(face.target_names) == 15
    body = next(m for m in model.meshes if len(m.primitives) == 3)
    assert len({id(p.positions) for p in body.primitives}) == 1  # shared vertex data
    assert model.look_at is not None and model.look_at.type == "expression"
    np.testing.assert_allclose(model.look_at.offset_from_head, [0, 0.146, -0.122], atol=1e-6)
    assert model.look_at.horizontal_outer.output_scale == pytest.approx(7.1)
    assert model.first_person == {0: "auto", 1: "auto"}
    assert model.meta.name == "Low-Poly Godette" and model.meta.authors == ["SirRichard94"]
    assert model.meta.license == "CC_BY"
    assert time.perf_counter() - started < 1.0


def test_godette_spring_bones(assets):
    model = _load(assets, GODETTE)
    assert len(model.springs) == 8  # one chain per root bone
    assert len(model.colliders) == 4 and {c.shape for c in model.colliders} == {"sphere"}
    assert len(model.collider_groups) == 2
    assert any(chain.collider_groups for chain in model.springs)
    first = model.springs[0]
    names = [model.nodes[j.node].name for j in first.joints]
    assert names == ["FrontHair_Center_L", "FrontHair_Center_L_End",
                     "FrontHair_Center_L_End_springTail"]
    assert first.joints[0].stiffness == pytest.approx(2.5)  # 0.x "stiffiness"
    assert first.joints[0].drag_force == pytest.approx(0.4)
    assert first.collider_groups == [1]
    tail = model.nodes[first.joints[-1].node]
    assert tail.parent == first.joints[1].node and not tail.children
    assert np.linalg.norm(tail.translation) == pytest.approx(0.07, rel=1e-3)
    collider = model.colliders[0]
    np.testing.assert_allclose(collider.offset, [0, 0.06, 0.04], atol=1e-6)  # z flipped


def test_godette_mtoon_migration(assets):
    model = _load(assets, GODETTE)
    face = model.materials[0]
    assert face.name == "Face" and face.mtoon is not None
    toony = 0.8 + 0.2 * (0.5 + 0.5 * -0.45)
    assert face.mtoon.shading_toony == pytest.approx(toony, abs=1e-5)
    assert face.mtoon.shading_shift == pytest.approx(0.45 - (1 - toony), abs=1e-5)
    assert face.mtoon.outline_width_mode == "screenCoordinates"
    assert face.mtoon.outline_width == pytest.approx(0.0025)
    assert face.mtoon.outline_lighting_mix == pytest.approx(0.925)
    assert face.mtoon.gi_equalization == pytest.approx(0.75)
    shade_srgb = np.array([0.827, 0.7359541, 0.85])
    assert np.all(face.mtoon.shade_color < shade_srgb)  # converted to linear
    assert face.mtoon.shade_color[0] == pytest.approx(((0.827 + 0.055) / 1.055) ** 2.4, abs=1e-5)
    assert face.base_color_texture is not None and face.base_color_texture.index == 0
    assert not face.double_sided and face.alpha_mode == "OPAQUE"
    assert model.materials[2].mtoon is None and model.materials[2].alpha_mode == "BLEND"


def test_is_binary_and_override_sample(assets):
    model = _load(assets, "vrm1/VRMC_vrm_expressions_isBinary_Overrides.vrm")
    happy, blink = model.expressions["happy"], model.expressions["blink"]
    assert happy.is_binary and happy.override_blink == "blend"
    assert happy.override_look_at == "none" and happy.override_mouth == "none"
    assert not blink.is_binary and blink.override_blink == "none"
    binds = [(b.material, b.scale, b.offset) for b in happy.texture_transform_binds]
    assert binds == [
        (0, (0.125, 0.125), (0.875, 0.0)),
        (2, (0.498046875, 0.0), (0.0009765625, 0.0)),
    ]
    assert len(blink.texture_transform_binds) == 2
    assert model.look_at.type == "expression"
    assert model.first_person == {model.nodes[22].mesh: "thirdPersonOnly"}
    assert model.materials[0].base_color_texture.scale == (0.125, 0.125)
    assert model.root_rotation_y == 0.0


def test_debug_robot(assets):
    model = _load(assets, "vrm1/debug_robot.vrm")
    assert sorted(model.expressions) == sorted(PRESET_EXPRESSIONS)
    assert len(model.expressions) == 18
    assert model.look_at.type == "bone"
    np.testing.assert_allclose(model.look_at.offset_from_head, [0.03, 0.0354167, 0], atol=1e-5)
    assert model.meta.authors == ["@saturday06"]
    assert sum(1 for n in model.nodes if n.mesh == 0) == 22


def test_mtoon_uv_animation(assets):
    model = _load(assets, "vrm1/VRMC_materials_mtoon_UV_Animation_Test.vrm")
    by_name = {m.name: m.mtoon for m in model.materials}
    assert by_name["ScrollX"].uv_animation_scroll_x == 1.0
    assert by_name["ScrollY"].uv_animation_scroll_y == 1.0
    assert by_name["ScrollRot"].uv_animation_rotation == 1.0
    assert all(m.unlit and m.double_sided for m in model.materials)
    assert by_name["ScrollX"].shade_multiply_texture.index == 0


def test_fox_gets_normals_from_faces(assets):
    model = _load(assets, "gltf/Fox.glb")
    normals = model.meshes[0].primitives[0].normals
    np.testing.assert_allclose(np.linalg.norm(normals, axis=1), 1.0, atol=1e-5)
    assert model.textures[0].pixels.dtype == np.uint8 and model.textures[0].pixels.shape[2] == 4


def test_data_uri_gltf_files(assets):
    skin = _load(assets, "gltf/SimpleSkin.gltf")
    assert skin.skins[0].inverse_bind.shape == (2, 4, 4)
    stress = _load(assets, "gltf/MorphStressTest.gltf")
    assert stress.meshes[0].target_names == [f"Key {k}" for k in range(1, 9)]
    assert all(len(p.targets) == 8 for p in stress.meshes[0].primitives)


def test_emission_migration_strength(assets):
    model = _load(assets, "vrm0/EmissionMigration_v0.106.0.vrm")
    assert any(np.any(m.emissive > 1.0) for m in model.materials)  # strength > 1 kept


def test_vrma_loads_as_a_scene(assets):
    for name in ("vrma/test.vrma", "vrma/nop.vrma", "vrma/idle_loop.vrma"):
        model = _load(assets, name)
        assert model.version == "gltf" and model.nodes and not model.humanoid


def test_truncated_real_file_is_refused_quickly(assets, write):
    data = (assets / GODETTE).read_bytes()
    path = write("half.vrm", data[: len(data) // 2])
    started = time.perf_counter()
    with pytest.raises(AvatarLoadError, match="truncated"):
        load_model(path)
    assert time.perf_counter() - started < 1.0


def test_real_file_with_humanoid_bones_removed_is_refused(assets, write):
    from tests.avatar.loader.gltf_builder import make_glb, split_glb

    doc, binary = split_glb((assets / "vrm1/debug_robot.vrm").read_bytes())
    bones = doc["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"]
    del bones["leftFoot"], bones["head"]
    path = write("no_head.vrm", make_glb(doc, binary))
    message = re.escape("missing the humanoid bones: head, leftFoot")
    with pytest.raises(AvatarLoadError, match=message):
        load_model(path)
