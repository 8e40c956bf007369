"""Files the loader refuses: each with a clear message, quickly, without a big allocation."""

from __future__ import annotations

import json
import os
import struct
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
import pytest

from companion_desktop.avatar.vrm.limits import Limits
from companion_desktop.avatar.vrm.loader import AvatarLoadError, load_model
from tests.avatar.loader.gltf_builder import (
    QUAD_POSITIONS,
    GltfBuilder,
    make_glb,
    minimal_avatar,
)  # fmt: skip

PEAK_BYTES = 64 * 1024 * 1024


def _quad() -> GltfBuilder:
    b = GltfBuilder()
    b.node(mesh=b.quad_mesh())
    return b


def _edited(edit: Callable[[dict], None], builder: Callable[[], GltfBuilder] = _quad) -> bytes:
    b = builder()
    doc = b.finish_json()
    edit(doc)
    return make_glb(doc, bytes(b.bin))


def _set(path: str, value) -> Callable[[dict], None]:
    def edit(doc: dict) -> None:
        *keys, last = path.split(".")
        target = doc
        for key in keys:
            target = target[int(key)] if key.isdigit() else target[key]
        target[int(last) if last.isdigit() else last] = value

    return edit


def _glb_header(magic: bytes = b"glTF", version: int = 2, extra_length: int = 0) -> bytes:
    data = _quad().glb()
    length = struct.unpack_from("<I", data, 8)[0] + extra_length
    return struct.pack("<4sII", magic, version, length) + data[12:]


def _truncated() -> bytes:
    data = _quad().glb()
    return data[: len(data) // 2]


def _no_bin_chunk() -> bytes:
    b = _quad()
    return make_glb(b.finish_json())


def _cycle(doc: dict) -> None:
    doc["nodes"] = [{"children": [1]}, {"children": [0]}]
    doc["scenes"] = [{"nodes": []}]


def _two_parents(doc: dict) -> None:
    doc["nodes"] = [{"children": [2]}, {"children": [2]}, {}]


def _missing_bones() -> bytes:
    return minimal_avatar("1.0", bones=["hips", "spine", "head", "leftUpperLeg"]).glb()


def _missing_bones_0x() -> bytes:
    return minimal_avatar("0.x", bones=["hips", "spine", "chest", "neck", "head"]).glb()


def _random_bytes() -> bytes:
    return np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8).tobytes()


def _chunk_too_long() -> bytes:
    data = bytearray(_quad().glb())
    struct.pack_into("<I", data, 12, 2**31)
    return bytes(data)


def _big_zeros(doc: dict) -> None:
    doc["accessors"].append({"componentType": 5126, "count": 9_000_000, "type": "VEC4"})
    doc["meshes"][0]["primitives"][0]["attributes"]["TEXCOORD_1"] = len(doc["accessors"]) - 1


CASES = {
    "empty file": (lambda: b"", "is empty", None),
    "random bytes": (_random_bytes, "not a glTF, GLB or VRM file", None),
    "random bytes after a brace": (lambda: b"{" + _random_bytes(), "not a glTF, GLB or VRM file",
                                   None),
    "wrong magic": (lambda: _glb_header(magic=b"gLTF"), "not a glTF, GLB or VRM file", None),
    "GLB version 1": (lambda: _glb_header(version=1), "GLB version 1", None),
    "length past the end": (lambda: _glb_header(extra_length=1000), "truncated", None),
    "truncated in half": (_truncated, "truncated", None),
    "JSON chunk past the end": (_chunk_too_long, "JSON chunk", None),
    "JSON is a list": (lambda: make_glb([1, 2]), "not an object", None),  # type: ignore[arg-type]
    "JSON is broken": (lambda: b'{"asset": ', "cannot be read", None),
    "glTF 1.0": (lambda: _edited(_set("asset.version", "1.0")), "only glTF 2.0", None),
    "nodes not a list": (lambda: _edited(_set("nodes", 5)), "not a list of objects", None),
    "no BIN chunk": (_no_bin_chunk, "no data", None),
    "missing .bin file": (lambda: _edited(_set("buffers.0.uri", "gone.bin")), "missing", None),
    "buffer shorter than declared": (lambda: _edited(_set("buffers.0.byteLength", 10**6)),
                                     "truncated", None),
    "accessor count 2**31": (lambda: _edited(_set("accessors.0.count", 2**31)), "count", None),
    "accessor past its view": (lambda: _edited(_set("accessors.0.byteOffset", 40)),
                               "reads past the end", None),
    "bufferView index out of range": (lambda: _edited(_set("accessors.0.bufferView", 99)),
                                      "bufferView", None),
    "bufferView outside its buffer": (lambda: _edited(_set("bufferViews.0.byteLength", 10**6)),
                                      "outside", None),
    "buffer index out of range": (lambda: _edited(_set("bufferViews.0.buffer", 3)), "buffer", None),
    "accessor index out of range": (
        lambda: _edited(_set("meshes.0.primitives.0.attributes.POSITION", 42)), "42", None),
    "bad component type": (lambda: _edited(_set("accessors.0.componentType", 5124)),
                           "component type", None),
    "index past the vertices": (lambda: _edited(_set("accessors.2.componentType", 5121)) and None
                                or _index_past(), "include vertex", None),
    "hierarchy cycle": (lambda: _edited(_cycle), "cycle", None),
    "node with two parents": (lambda: _edited(_two_parents), "more than one parent", None),
    "VRM 1.0 without required bones": (_missing_bones, "missing the humanoid bones: ", None),
    "VRM 0.x without required bones": (_missing_bones_0x, "leftUpperArm", None),
    "file over the size cap": (lambda: _quad().glb(), "are refused", Limits(max_file_bytes=100)),
    "too many nodes": (lambda: _quad().glb(), "nodes", Limits(max_nodes=0)),
    "too many vertices": (lambda: _quad().glb(), "vertices", Limits(max_vertices=3)),
    "decoded bytes cap": (lambda: _edited(_big_zeros), "memory",
                          Limits(max_decoded_bytes=32 * 1024 * 1024)),
}


def _index_past() -> bytes:
    b = GltfBuilder()
    mesh = b.add("meshes", {"primitives": [{
        "attributes": {"POSITION": b.accessor(QUAD_POSITIONS)},
        "indices": b.accessor(np.array([0, 1, 2, 0, 2, 400], np.uint16)),
    }]})  # fmt: skip
    b.node(mesh=mesh)
    return b.glb()


@pytest.mark.parametrize("case", sorted(CASES))
def test_refusal(case, write):
    make, match, limits = CASES[case]
    data = make()
    if isinstance(data, GltfBuilder):
        data = data.glb()
    name = "model.vrm" if "VRM" in case else "model.glb"
    path = write(name, data)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(AvatarLoadError) as info:
            load_model(path, limits=limits)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    error = info.value
    assert match in error.message
    assert not error.internal, error.message
    assert name in error.message  # the message names the file
    assert elapsed < 1.0
    assert peak < PEAK_BYTES


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(AvatarLoadError, match="no such file"):
        load_model(tmp_path / "nothing.vrm")


def test_folder_is_refused(tmp_path):
    with pytest.raises(AvatarLoadError):
        load_model(tmp_path)


def test_bad_json_in_a_gltf_file(write):
    path = write("scene.gltf", json.dumps({"asset": {"version": "2.0"}, "meshes": [7]}).encode())
    with pytest.raises(AvatarLoadError, match="not a list of objects"):
        load_model(path)


@pytest.mark.skipif(os.name == "nt", reason="symlinks need privileges on Windows")
def test_symlink_out_of_the_folder_is_refused(tmp_path, write):
    b = _quad()
    doc = b.finish_json()
    doc["buffers"] = [{"uri": "link.bin", "byteLength": len(b.bin)}]
    outside = write("outside.bin", bytes(b.bin))
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "link.bin").symlink_to(outside)
    path = write("model/scene.gltf", json.dumps(doc).encode())
    with pytest.raises(AvatarLoadError, match="outside the model's folder"):
        load_model(path)


def test_a_small_file_with_a_huge_object_count_is_refused_fast(tmp_path):
    import json as _json
    import time as _time

    from companion_desktop.avatar.vrm.loader import AvatarLoadError as _Error
    from companion_desktop.avatar.vrm.loader import load_model as _load

    doc = {"asset": {"version": "2.0"}, "nodes": [{} for _ in range(10)],
           "animations": [{"channels": [{"sampler": 0,
                                         "target": {"node": 0, "path": "rotation"}}] * 40000,
                           "samplers": [{"input": 0, "output": 0}]}]}
    path = tmp_path / "many.gltf"
    path.write_text(_json.dumps(doc))
    start = _time.perf_counter()
    with pytest.raises(_Error, match="glTF objects"):
        _load(path)
    assert _time.perf_counter() - start < 2.0
