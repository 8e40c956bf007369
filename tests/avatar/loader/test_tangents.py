"""Tangents: the file's TANGENT read and sanitised, and ``vertex_tangents`` generated from
UV0 (+U direction, Gram-Schmidt against the normal, handedness w = +-1)."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.avatar.vrm.loader import load_model
from companion_desktop.avatar.vrm.meshes import vertex_tangents
from tests.avatar.loader.gltf_builder import QUAD_POSITIONS, GltfBuilder

F32 = np.float32
QUAD_NORMALS = np.tile([0, 0, 1], (4, 1)).astype(F32)
QUAD_INDICES = np.array([0, 1, 2, 0, 2, 3], np.uint32)
#: glTF UVs of the quad (0,0)-(1,1) in XY: U grows with +X, V grows downwards (-Y).
QUAD_UV = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], F32)


def _bitangent(normals: np.ndarray, tangents: np.ndarray) -> np.ndarray:
    return np.cross(normals, tangents[:, :3]) * tangents[:, 3:]


def test_generated_tangents_on_a_quad_point_along_plus_u():
    tangents = vertex_tangents(QUAD_POSITIONS, QUAD_NORMALS, QUAD_UV, QUAD_INDICES)
    assert tangents.shape == (4, 4) and tangents.dtype == F32
    np.testing.assert_allclose(tangents, np.tile([1, 0, 0, 1], (4, 1)), atol=1e-6)
    # glTF: the bitangent points to the image's "up", i.e. -V, here +Y
    np.testing.assert_allclose(_bitangent(QUAD_NORMALS, tangents), np.tile([0, 1, 0], (4, 1)),
                               atol=1e-6)


@pytest.mark.parametrize("axis", [0, 1], ids=["mirror-u", "mirror-v"])
def test_mirrored_uvs_give_negative_handedness(axis):
    uv = QUAD_UV.copy()
    uv[:, axis] = 1.0 - uv[:, axis]
    tangents = vertex_tangents(QUAD_POSITIONS, QUAD_NORMALS, uv, QUAD_INDICES)
    np.testing.assert_array_equal(tangents[:, 3], [-1, -1, -1, -1])
    np.testing.assert_allclose(tangents[:, 0], [-1.0 if axis == 0 else 1.0] * 4, atol=1e-6)
    # the bitangent still points towards decreasing V
    expected_up = 1.0 if axis == 0 else -1.0
    np.testing.assert_allclose(_bitangent(QUAD_NORMALS, tangents)[:, 1], [expected_up] * 4,
                               atol=1e-6)


def test_rotated_uvs_turn_the_tangent():
    uv = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], F32)  # U grows with +Y, V with +X
    tangents = vertex_tangents(QUAD_POSITIONS, QUAD_NORMALS, uv, QUAD_INDICES)
    np.testing.assert_allclose(tangents, np.tile([0, 1, 0, 1], (4, 1)), atol=1e-6)


def test_tangents_are_unit_and_orthogonal_to_tilted_normals():
    normals = np.array([[0.3, 0, 1], [0, 0.4, 1], [-0.5, 0.2, 1], [0.1, -0.1, 1]], F32)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    tangents = vertex_tangents(QUAD_POSITIONS, normals, QUAD_UV, QUAD_INDICES)
    np.testing.assert_allclose(np.linalg.norm(tangents[:, :3], axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.einsum("ij,ij->i", normals, tangents[:, :3]), 0.0, atol=1e-6)
    assert (tangents[:, 0] > 0.8).all()  # still mostly +U


def test_degenerate_uvs_still_give_a_usable_frame():
    for uv in (np.zeros((4, 2), F32), np.full((4, 2), np.nan, F32)):
        tangents = vertex_tangents(QUAD_POSITIONS, QUAD_NORMALS, uv, QUAD_INDICES)
        assert np.isfinite(tangents).all()
        np.testing.assert_allclose(np.linalg.norm(tangents[:, :3], axis=1), 1.0, atol=1e-6)
        np.testing.assert_allclose(tangents[:, 2], 0.0, atol=1e-6)
        assert set(tangents[:, 3].tolist()) <= {-1.0, 1.0}


def _quad_file(write, tangent: np.ndarray | None, name: str = "t.glb"):
    b = GltfBuilder()
    attributes = {"POSITION": b.accessor(QUAD_POSITIONS), "NORMAL": b.accessor(QUAD_NORMALS),
                  "TEXCOORD_0": b.accessor(QUAD_UV)}
    if tangent is not None:
        attributes["TANGENT"] = b.accessor(np.asarray(tangent, F32))
    mesh = b.add("meshes", {"primitives": [{"attributes": attributes,
                                            "indices": b.accessor(QUAD_INDICES)}]})
    b.node(mesh=mesh)
    return load_model(write(name, b.glb()))


def test_file_tangents_are_read_and_sanitised(write):
    raw = np.array([[2, 0, 0, 1], [0, 3, 0, -1], [np.nan, 0, 0, 0.5], [0, 0, 0, -7]], F32)
    model = _quad_file(write, raw)
    tangents = model.meshes[0].primitives[0].tangents
    assert tangents is not None and tangents.shape == (4, 4) and tangents.dtype == F32
    np.testing.assert_allclose(tangents, [[1, 0, 0, 1], [0, 1, 0, -1], [0, 0, 0, 1],
                                          [0, 0, 0, -1]])
    assert not model.problems


def test_a_tangent_that_is_not_vec4_is_ignored_with_a_warning(write):
    model = _quad_file(write, np.tile([1, 0, 0], (4, 1)))
    assert model.meshes[0].primitives[0].tangents is None
    assert any("TANGENT" in p.message and "generated" in p.action for p in model.problems)


def test_no_tangent_attribute_leaves_none(write):
    model = _quad_file(write, None)
    assert model.meshes[0].primitives[0].tangents is None
    assert not model.problems


def test_shared_assets_load_with_valid_tangents(assets):
    paths = [p for folder in ("vrm0", "vrm1", "gltf") if (assets / folder).is_dir()
             for p in sorted((assets / folder).iterdir())
             if p.suffix.lower() in (".vrm", ".glb", ".gltf")]
    assert paths
    for path in paths:
        model = load_model(path)
        for mesh in model.meshes:
            for prim in mesh.primitives:
                if prim.tangents is not None:
                    assert prim.tangents.shape == (len(prim.positions), 4)
                    assert np.isin(prim.tangents[:, 3], (-1.0, 1.0)).all()
                if prim.uv0 is not None and len(prim.indices):
                    made = vertex_tangents(prim.positions, prim.normals, prim.uv0, prim.indices)
                    assert np.isfinite(made).all(), path.name
