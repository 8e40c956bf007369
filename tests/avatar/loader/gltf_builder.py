"""Small glTF / GLB / VRM files built in memory for the loader tests (no assets needed)."""

from __future__ import annotations

import copy
import io
import json
import struct
from typing import Any

import numpy as np
from PIL import Image

COMPONENT_TYPES = {
    np.dtype(np.int8): 5120, np.dtype(np.uint8): 5121, np.dtype(np.int16): 5122,
    np.dtype(np.uint16): 5123, np.dtype(np.uint32): 5125, np.dtype(np.float32): 5126,
}  # fmt: skip
TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}

QUAD_POSITIONS = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
QUAD_INDICES = np.array([0, 1, 2, 0, 2, 3], np.uint16)


class GltfBuilder:
    """Appends binary data, bufferViews and accessors; writes GLB or .gltf JSON."""

    def __init__(self) -> None:
        self.json: dict[str, Any] = {"asset": {"version": "2.0"}, "scene": 0,
                                     "scenes": [{"nodes": []}]}
        self.bin = bytearray()

    def add(self, key: str, obj: dict) -> int:
        self.json.setdefault(key, []).append(obj)
        return len(self.json[key]) - 1

    def view(self, data: bytes, stride: int | None = None) -> int:
        while len(self.bin) % 4:
            self.bin.append(0)
        view = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if stride:
            view["byteStride"] = stride
        self.bin += data
        return self.add("bufferViews", view)

    def accessor(self, array: np.ndarray, *, normalized: bool = False, **extra: Any) -> int:
        array = np.ascontiguousarray(array)
        columns = 1 if array.ndim == 1 else array.shape[1]
        accessor = {
            "bufferView": self.view(array.tobytes()),
            "componentType": COMPONENT_TYPES[array.dtype],
            "count": len(array),
            "type": TYPES[columns],
        }
        if normalized:
            accessor["normalized"] = True
        if array.dtype == np.float32 and columns == 3:
            accessor["min"] = array.min(axis=0).tolist()
            accessor["max"] = array.max(axis=0).tolist()
        accessor.update(extra)
        return self.add("accessors", accessor)

    def node(self, root: bool = True, **fields: Any) -> int:
        index = self.add("nodes", dict(fields))
        if root:
            self.json["scenes"][0]["nodes"].append(index)
        return index

    def quad_mesh(self, *, normals: bool = True, material: int | None = None) -> int:
        attributes = {"POSITION": self.accessor(QUAD_POSITIONS)}
        if normals:
            attributes["NORMAL"] = self.accessor(np.tile([0, 0, 1], (4, 1)).astype(np.float32))
        primitive: dict[str, Any] = {"attributes": attributes,
                                     "indices": self.accessor(QUAD_INDICES)}
        if material is not None:
            primitive["material"] = material
        return self.add("meshes", {"name": "quad", "primitives": [primitive]})

    def image(self, data: bytes, mime: str = "image/png") -> int:
        return self.add("images", {"bufferView": self.view(data), "mimeType": mime})

    def finish_json(self) -> dict[str, Any]:
        doc = copy.deepcopy(self.json)
        if self.bin:
            doc["buffers"] = [{"byteLength": len(self.bin)}]
        return doc

    def glb(self) -> bytes:
        return make_glb(self.finish_json(), bytes(self.bin))


def make_glb(doc: dict[str, Any], binary: bytes = b"") -> bytes:
    """A GLB 2.0 container with a JSON chunk and (when given) a BIN chunk."""
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    chunks = struct.pack("<II", len(text), 0x4E4F534A) + text
    if binary:
        binary = binary + b"\0" * (-len(binary) % 4)
        chunks += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def split_glb(data: bytes) -> tuple[dict[str, Any], bytes]:
    """The JSON and BIN chunk of a GLB (for editing a real file)."""
    length = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20 : 20 + length])
    offset = 20 + length
    binary = b""
    if offset + 8 <= len(data):
        bin_length = struct.unpack_from("<I", data, offset)[0]
        binary = data[offset + 8 : offset + 8 + bin_length]
    return doc, binary


def png_bytes(rgba: tuple[int, int, int, int] = (10, 20, 30, 255), size: int = 4) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", (size, size), rgba).save(out, format="PNG")
    return out.getvalue()


#: A humanoid skeleton: bone -> (parent bone, translation).
SKELETON = {
    "hips": (None, [0, 1, 0]), "spine": ("hips", [0, 0.1, 0]), "chest": ("spine", [0, 0.1, 0]),
    "neck": ("chest", [0, 0.2, 0]), "head": ("neck", [0, 0.1, 0]),
    "leftUpperLeg": ("hips", [0.1, -0.05, 0]), "leftLowerLeg": ("leftUpperLeg", [0, -0.45, 0]),
    "leftFoot": ("leftLowerLeg", [0, -0.45, 0]),
    "rightUpperLeg": ("hips", [-0.1, -0.05, 0]), "rightLowerLeg": ("rightUpperLeg", [0, -0.45, 0]),
    "rightFoot": ("rightLowerLeg", [0, -0.45, 0]),
    "leftUpperArm": ("chest", [0.2, 0.15, 0]), "leftLowerArm": ("leftUpperArm", [0.25, 0, 0]),
    "leftHand": ("leftLowerArm", [0.25, 0, 0]),
    "rightUpperArm": ("chest", [-0.2, 0.15, 0]), "rightLowerArm": ("rightUpperArm", [-0.25, 0, 0]),
    "rightHand": ("rightLowerArm", [-0.25, 0, 0]),
    "leftThumbMetacarpal": ("leftHand", [0.02, 0, 0.02]),
}  # fmt: skip


def add_skeleton(builder: GltfBuilder, bones: list[str] | None = None) -> dict[str, int]:
    """Nodes for ``bones`` (default: all of ``SKELETON``), returning bone -> node."""
    wanted = bones if bones is not None else list(SKELETON)
    nodes: dict[str, int] = {}
    for bone in wanted:
        parent, translation = SKELETON[bone]
        index = builder.node(root=parent not in nodes, name=bone, translation=translation)
        nodes[bone] = index
        if parent in nodes:
            builder.json["nodes"][nodes[parent]].setdefault("children", []).append(index)
    return nodes


def vrm1_extension(bones: dict[str, int], **extra: Any) -> dict[str, Any]:
    ext = {
        "specVersion": "1.0",
        "meta": {"name": "Test", "version": "1", "authors": ["tester"],
                 "licenseUrl": "https://vrm.dev/licenses/1.0/"},
        "humanoid": {"humanBones": {bone: {"node": node} for bone, node in bones.items()}},
    }
    ext.update(extra)
    return ext


def vrm0_bone_names() -> dict[str, str]:
    """1.0 bone -> 0.x bone name (only the thumbs differ)."""
    return {bone: bone.replace("ThumbMetacarpal", "ThumbProximal") for bone in SKELETON}


def vrm0_extension(bones: dict[str, int], **extra: Any) -> dict[str, Any]:
    names = vrm0_bone_names()
    ext = {
        "specVersion": "0.0",
        "meta": {"title": "Old", "version": "0.1", "author": "someone", "licenseName": "CC0"},
        "humanoid": {"humanBones": [{"bone": names[b], "node": n} for b, n in bones.items()]},
    }
    ext.update(extra)
    return ext


def minimal_avatar(version: str = "1.0", bones: list[str] | None = None) -> GltfBuilder:
    """A skinless humanoid with one quad mesh on the head, as a VRM of ``version``."""
    builder = GltfBuilder()
    nodes = add_skeleton(builder, bones)
    mesh = builder.quad_mesh()
    builder.node(root=True, name="face", mesh=mesh)
    ext = vrm1_extension(nodes) if version == "1.0" else vrm0_extension(nodes)
    builder.json["extensions"] = {"VRMC_vrm" if version == "1.0" else "VRM": ext}
    builder.json["extensionsUsed"] = ["VRMC_vrm" if version == "1.0" else "VRM"]
    return builder

