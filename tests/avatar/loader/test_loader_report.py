"""``report.inspect`` / ``format_report`` on built models (JSON-ready, readable)."""

from __future__ import annotations

import json

from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.report import format_report, inspect
from tests.avatar.loader.gltf_builder import GltfBuilder, minimal_avatar, png_bytes


def test_report_of_a_vrm(write):
    b = minimal_avatar("1.0", bones=None)
    bones = {n["name"]: i for i, n in enumerate(b.json["nodes"])}
    bad = bytearray(png_bytes())
    bad[20:40] = bytes(20)
    b.add("textures", {"source": b.image(bytes(bad))})
    b.add("materials", {"alphaMode": "BLEND", "extensions": {"VRMC_materials_mtoon": {}}})
    ext = b.json["extensions"]["VRMC_vrm"]
    ext["expressions"] = {"preset": {"happy": {}, "blink": {}}, "custom": {"smug": {}}}
    b.json["extensions"]["VRMC_springBone"] = {
        "colliders": [{"node": bones["head"], "shape": {"capsule": {"radius": 0.1}}},
                      {"node": bones["head"], "shape": {"sphere": {"radius": 0.1}}}],
        "springs": [{"joints": [{"node": bones["leftUpperArm"]}, {"node": bones["leftLowerArm"]},
                                {"node": bones["leftHand"]}]}],
    }  # fmt: skip
    report = inspect(load_model(write("me.vrm", b.glb())))
    json.dumps(report)  # JSON-ready
    assert report["version"] == "1.0"
    assert report["expressions"] == {"count": 3, "presets": ["happy", "blink"], "custom": ["smug"]}
    assert report["humanoid"]["count"] == 18
    assert report["humanoid"]["missing_optional"] == ["leftEye", "rightEye"]
    assert report["springs"] == {"chains": 1, "joints": 3, "colliders": 2, "spheres": 1,
                                 "capsules": 1, "collider_groups": 0}
    assert report["materials"] == {"count": 1, "mtoon": 1, "unlit": 0,
                                   "alpha_modes": {"BLEND": 1}}
    assert report["textures"] == {"count": 1, "placeholders": 1}
    assert report["geometry"]["vertices"] == 4 and report["geometry"]["triangles"] == 2
    (problem,) = report["problems"]
    assert problem["severity"] == "warning" and "texture 0" in problem["message"]
    text = format_report(report)
    for expected in ("Kind: VRM 1.0", "Expressions: 3", "smug", "Spring bones: 1 chains",
                     "1 capsules", "1 placeholders", "[warning] texture 0 could not be read",
                     "missing optional: leftEye, rightEye"):
        assert expected in text


def test_report_of_a_plain_scene(write):
    b = GltfBuilder()
    b.node(mesh=b.quad_mesh(normals=False))
    report = inspect(load_model(write("scene.glb", b.glb())))
    assert report["version"] == "gltf" and report["humanoid"]["missing_optional"] == []
    text = format_report(report)
    assert "Kind: glTF scene" in text and "Problems: none" in text
    assert "Humanoid" not in text
