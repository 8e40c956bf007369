"""glTF reading on small hand-built files: accessors, meshes, nodes, skins, textures, materials."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from companion_desktop.avatar.vrm.meshes import face_normals, triangles_from
from companion_desktop.avatar.vrm.nodes import decompose
from tests.avatar.loader.gltf_builder import QUAD_POSITIONS, GltfBuilder, png_bytes


def _one_mesh(builder: GltfBuilder, primitive: dict) -> None:
    mesh = builder.add("meshes", {"primitives": [primitive]})
    builder.node(mesh=mesh)


def test_sparse_accessor_on_a_buffer_view(write):
    b = GltfBuilder()
    base = b.accessor(QUAD_POSITIONS)
    sparse_indices = b.view(np.array([1, 3], np.uint16).tobytes())
    sparse_values = b.view(np.array([[5, 5, 5], [7, 7, 7]], np.float32).tobytes())
    b.json["accessors"][base]["sparse"] = {
        "count": 2,
        "indices": {"bufferView": sparse_indices, "componentType": 5123},
        "values": {"bufferView": sparse_values},
    }
    _one_mesh(b, {"attributes": {"POSITION": base}})
    positions = load_model(write("sparse.glb", b.glb())).meshes[0].primitives[0].positions
    np.testing.assert_array_equal(positions[[0, 2]], QUAD_POSITIONS[[0, 2]])
    np.testing.assert_array_equal(positions[1], [5, 5, 5])
    np.testing.assert_array_equal(positions[3], [7, 7, 7])


def test_sparse_accessor_without_buffer_view_starts_from_zeros(write):
    b = GltfBuilder()
    position = b.accessor(QUAD_POSITIONS)
    indices = b.view(np.array([2], np.uint8).tobytes())
    values = b.view(np.array([[0.5, 0, 0]], np.float32).tobytes())
    target = b.add("accessors", {
        "componentType": 5126, "count": 4, "type": "VEC3",
        "sparse": {"count": 1, "indices": {"bufferView": indices, "componentType": 5121},
                   "values": {"bufferView": values}},
    })  # fmt: skip
    _one_mesh(b, {"attributes": {"POSITION": position}, "targets": [{"POSITION": target}]})
    b.json["meshes"][0]["extras"] = {"targetNames": ["smile"]}
    mesh = load_model(write("morph.glb", b.glb())).meshes[0]
    deltas = mesh.primitives[0].targets[0].positions
    np.testing.assert_array_equal(deltas, [[0, 0, 0], [0, 0, 0], [0.5, 0, 0], [0, 0, 0]])
    assert mesh.target_names == ["smile"] and mesh.default_weights.tolist() == [0.0]


def test_missing_normals_are_area_weighted_face_normals(write):
    # Two triangles sharing the edge 0-1: a big one in the XY plane, a small one in XZ.
    positions = np.array([[0, 0, 0], [1, 0, 0], [0, 4, 0], [0, 0, 1]], np.float32)
    b = GltfBuilder()
    _one_mesh(b, {"attributes": {"POSITION": b.accessor(positions)},
                  "indices": b.accessor(np.array([0, 1, 2, 1, 0, 3], np.uint8))})
    normals = load_model(write("n.glb", b.glb())).meshes[0].primitives[0].normals
    np.testing.assert_allclose(normals[2], [0, 0, 1], atol=1e-6)
    np.testing.assert_allclose(normals[3], [0, 1, 0], atol=1e-6)
    expected = np.array([0, 1, 4]) / math.sqrt(17)  # areas 2 and 0.5
    np.testing.assert_allclose(normals[0], expected, atol=1e-6)


def test_primitives_sharing_positions_share_arrays_and_generated_normals(write):
    b = GltfBuilder()
    position = b.accessor(QUAD_POSITIONS)
    first = b.accessor(np.array([0, 1, 2], np.uint16))
    second = b.accessor(np.array([0, 2, 3], np.uint16))
    mesh = b.add("meshes", {"primitives": [
        {"attributes": {"POSITION": position}, "indices": first},
        {"attributes": {"POSITION": position}, "indices": second},
    ]})  # fmt: skip
    b.node(mesh=mesh)
    p0, p1 = load_model(write("shared.glb", b.glb())).meshes[0].primitives
    assert p0.positions is p1.positions and p0.normals is p1.normals
    np.testing.assert_allclose(p0.normals, np.tile([0, 0, 1], (4, 1)), atol=1e-6)


def test_normalized_integers_interleaving_and_colors(write):
    b = GltfBuilder()
    vertex = np.zeros(4, dtype=[("uv", "<u2", 2), ("color", "u1", 4)])
    vertex["uv"] = [[0, 0], [65535, 0], [65535, 65535], [0, 32768]]
    vertex["color"] = [[255, 0, 0, 255]] * 4
    view = b.view(vertex.tobytes(), stride=8)
    uv = b.add("accessors", {"bufferView": view, "componentType": 5123, "normalized": True,
                             "count": 4, "type": "VEC2"})
    color = b.add("accessors", {"bufferView": view, "byteOffset": 4, "componentType": 5121,
                                "normalized": True, "count": 4, "type": "VEC4"})
    _one_mesh(b, {"attributes": {"POSITION": b.accessor(QUAD_POSITIONS), "TEXCOORD_0": uv,
                                 "COLOR_0": color}})
    primitive = load_model(write("uv.glb", b.glb())).meshes[0].primitives[0]
    np.testing.assert_allclose(primitive.uv0[3], [0, 32768 / 65535])
    np.testing.assert_allclose(primitive.uv0[2], [1, 1])
    np.testing.assert_allclose(primitive.colors, np.tile([1, 0, 0, 1], (4, 1)))


def test_strips_and_fans_become_triangles_and_points_are_skipped(write):
    strip = np.array([0, 1, 2, 3], np.uint32)
    assert triangles_from(strip, 5).tolist() == [0, 1, 2, 1, 3, 2]
    assert triangles_from(strip, 6).tolist() == [1, 2, 0, 2, 3, 0]
    b = GltfBuilder()
    position = b.accessor(QUAD_POSITIONS)
    mesh = b.add("meshes", {"primitives": [
        {"attributes": {"POSITION": position}, "mode": 5},
        {"attributes": {"POSITION": position}, "mode": 0},
        {"attributes": {"POSITION": position}, "mode": 1},
    ]})  # fmt: skip
    b.node(mesh=mesh)
    model = load_model(write("modes.glb", b.glb()))
    assert len(model.meshes[0].primitives) == 1
    assert model.meshes[0].primitives[0].indices.tolist() == [0, 1, 2, 1, 3, 2]
    messages = [p.message for p in model.problems]
    assert any("points" in m for m in messages) and any("lines" in m for m in messages)


def test_matrix_nodes_are_decomposed_and_hierarchy_is_kept(write):
    angle = math.radians(90)
    matrix = np.eye(4)
    matrix[:3, :3] = np.array([[math.cos(angle), -math.sin(angle), 0],
                               [math.sin(angle), math.cos(angle), 0], [0, 0, 1]]) * 2.0
    matrix[:3, 3] = [1, 2, 3]
    b = GltfBuilder()
    child = b.node(root=False, name="child")
    b.node(name="parent", matrix=matrix.T.reshape(-1).tolist(), children=[child])
    model = load_model(write("matrix.glb", b.glb()))
    parent = model.nodes[1]
    np.testing.assert_allclose(parent.translation, [1, 2, 3], atol=1e-6)
    np.testing.assert_allclose(parent.scale, [2, 2, 2], atol=1e-6)
    np.testing.assert_allclose(np.abs(parent.rotation), [0, 0, math.sqrt(0.5), math.sqrt(0.5)],
                               atol=1e-6)
    assert model.nodes[0].parent == 1 and parent.children == [0] and model.scene_roots == [1]
    t, r, s = decompose(np.diag([-1.0, 1.0, 1.0, 1.0]))
    assert s.tolist() == [-1, 1, 1] and np.allclose(np.abs(r), [0, 0, 0, 1])


def test_skin_weights_are_renormalized_and_ibm_defaults_to_identity(write):
    b = GltfBuilder()
    joints = np.array([[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [1, 0, 0, 0]], np.uint8)
    weights = np.array([[1, 1, 0, 0], [0.5, 0, 0, 0], [0, 0, 0, 0], [0.2, 0.2, 0.2, 0.2]],
                       np.float32)
    bone_a = b.node(root=False, name="a")
    bone_b = b.node(root=False, name="b")
    skin = b.add("skins", {"joints": [bone_a, bone_b]})
    mesh = b.add("meshes", {"primitives": [{"attributes": {
        "POSITION": b.accessor(QUAD_POSITIONS), "JOINTS_0": b.accessor(joints),
        "WEIGHTS_0": b.accessor(weights)}}]})  # fmt: skip
    b.node(name="body", mesh=mesh, skin=skin, children=[bone_a, bone_b])
    model = load_model(write("skin.glb", b.glb()))
    primitive = model.meshes[0].primitives[0]
    np.testing.assert_allclose(primitive.weights.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(primitive.weights[0], [0.5, 0.5, 0, 0])
    assert primitive.joints[2].tolist() == [0, 0, 0, 0]
    assert primitive.weights[2].tolist() == [1, 0, 0, 0]
    assert primitive.joints.dtype == np.uint16
    np.testing.assert_array_equal(model.skins[0].inverse_bind, np.tile(np.eye(4), (2, 1, 1)))


def test_gltf_with_sibling_files_inside_the_folder(write, tmp_path):
    b = GltfBuilder()
    texture = b.add("textures", {"source": b.add("images", {"uri": "tex%20ture.png"})})
    material = b.add("materials",
                     {"pbrMetallicRoughness": {"baseColorTexture": {"index": texture}}})
    mesh = b.quad_mesh(material=material)
    b.node(mesh=mesh)
    doc = b.finish_json()
    doc["buffers"] = [{"uri": "data.bin", "byteLength": len(b.bin)}]
    write("model/data.bin", bytes(b.bin))
    write("model/tex ture.png", png_bytes((200, 100, 50, 255)))
    model = load_model(write("model/scene.gltf", json.dumps(doc).encode()))
    assert model.textures[0].pixels[0, 0].tolist() == [200, 100, 50, 255]
    assert not model.textures[0].placeholder
    doc["buffers"][0]["uri"] = "../secret.bin"
    write("secret.bin", bytes(b.bin))
    with pytest.raises(AvatarLoadError, match="outside the model's folder"):
        load_model(write("model/escape.gltf", json.dumps(doc).encode()))
    doc["buffers"][0]["uri"] = str(tmp_path / "secret.bin")
    with pytest.raises(AvatarLoadError, match="outside the model's folder"):
        load_model(write("model/absolute.gltf", json.dumps(doc).encode()))


def test_corrupt_png_becomes_a_placeholder_with_a_warning(write):
    b = GltfBuilder()
    good = b.add("textures", {"source": b.image(png_bytes())})
    bad_bytes = bytearray(png_bytes(size=16))
    bad_bytes[40:] = b"\x00garbage" * 20
    bad = b.add("textures", {"source": b.image(bytes(bad_bytes))})
    material = b.add("materials", {"pbrMetallicRoughness": {"baseColorTexture": {"index": bad}}})
    b.node(mesh=b.quad_mesh(material=material))
    model = load_model(write("bad_png.glb", b.glb()))
    assert not model.textures[good].placeholder
    texture = model.textures[bad]
    assert texture.placeholder and texture.pixels.shape == (2, 2, 4)
    assert texture.pixels.dtype == np.uint8
    problem = next(p for p in model.problems if "texture 1" in p.message)
    assert problem.severity == "warning" and "could not be read" in problem.message
    assert "placeholder" in problem.message and "placeholder" in problem.action


def test_material_extensions(write):
    b = GltfBuilder()
    texture = b.add("textures", {"source": b.image(png_bytes())})
    b.add("materials", {
        "name": "glow",
        "pbrMetallicRoughness": {
            "baseColorFactor": [0.5, 0.25, 1, 0.5],
            "baseColorTexture": {"index": texture, "texCoord": 0, "extensions": {
                "KHR_texture_transform": {"offset": [0.1, 0.2], "scale": [2, 3],
                                          "rotation": 0.5, "texCoord": 1}}},
        },
        "normalTexture": {"index": texture, "scale": 0.5},
        "emissiveFactor": [1, 0.5, 0],
        "alphaMode": "MASK", "alphaCutoff": 0.3, "doubleSided": True,
        "extensions": {"KHR_materials_unlit": {},
                       "KHR_materials_emissive_strength": {"emissiveStrength": 4}},
    })  # fmt: skip
    b.node(mesh=b.quad_mesh(material=0))
    material = load_model(write("mat.glb", b.glb())).materials[0]
    np.testing.assert_allclose(material.base_color, [0.5, 0.25, 1, 0.5])
    np.testing.assert_allclose(material.emissive, [4, 2, 0])
    ref = material.base_color_texture
    assert (ref.offset, ref.scale, ref.rotation, ref.texcoord) == ((0.1, 0.2), (2.0, 3.0), 0.5, 1)
    assert material.alpha_mode == "MASK" and material.alpha_cutoff == pytest.approx(0.3)
    assert material.double_sided and material.unlit and material.mtoon is None
    assert material.normal_texture.index == texture and material.normal_scale == 0.5


def test_face_normals_of_degenerate_triangles_point_up():
    positions = np.zeros((3, 3), np.float32)
    normals = face_normals(positions, np.array([0, 1, 2], np.uint32))
    np.testing.assert_array_equal(normals, np.tile([0, 1, 0], (3, 1)))


def test_joint_indices_past_the_skin_lose_their_weight(write):
    b = GltfBuilder()
    bone = b.node(root=False, name="bone")
    skin = b.add("skins", {"joints": [bone]})
    joints = np.array([[0, 5, 0, 0]] * 4, np.uint8)
    weights = np.array([[0.25, 0.75, 0, 0]] * 4, np.float32)
    mesh = b.add("meshes", {"primitives": [{"attributes": {
        "POSITION": b.accessor(QUAD_POSITIONS), "JOINTS_0": b.accessor(joints),
        "WEIGHTS_0": b.accessor(weights)}}]})  # fmt: skip
    b.node(name="body", mesh=mesh, skin=skin, children=[bone])
    model = load_model(write("joints.glb", b.glb()))
    primitive = model.meshes[0].primitives[0]
    assert int(primitive.joints.max()) == 0
    np.testing.assert_allclose(primitive.weights, np.tile([1, 0, 0, 0], (4, 1)))
    assert any("joints past" in p.message for p in model.problems)


def test_compressed_meshes_are_refused_and_unknown_required_extensions_warned(write):
    b = GltfBuilder()
    b.node(mesh=b.quad_mesh())
    b.json["extensionsUsed"] = ["KHR_draco_mesh_compression"]
    with pytest.raises(AvatarLoadError, match="KHR_draco_mesh_compression"):
        load_model(write("draco.glb", b.glb()))
    b.json["extensionsUsed"] = b.json["extensionsRequired"] = ["KHR_materials_volume"]
    model = load_model(write("volume.glb", b.glb()))
    assert "KHR_materials_volume" in model.problems[0].message
