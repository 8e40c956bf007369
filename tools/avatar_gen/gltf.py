"""A small, deterministic GLB writer: one binary buffer, one bufferView per accessor.

Every bufferView starts on a 4-byte boundary; POSITION accessors carry min/max; the
JSON is written with a fixed key order and compact separators.
"""

from __future__ import annotations

import json
import struct

import numpy as np

FLOAT, USHORT, UINT, UBYTE = 5126, 5123, 5125, 5121
ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER = 34962, 34963
_TYPES = {1: "SCALAR", 2: "VEC2", 3: "VEC3", 4: "VEC4", 16: "MAT4"}
_DTYPES = {FLOAT: "<f4", USHORT: "<u2", UINT: "<u4", UBYTE: "u1"}


class GlbBuilder:
    def __init__(self) -> None:
        self.bin = bytearray()
        self.views: list[dict] = []
        self.accessors: list[dict] = []

    def view(self, data: bytes, target: int | None = None) -> int:
        while len(self.bin) % 4:
            self.bin.append(0)
        entry = {"buffer": 0, "byteOffset": len(self.bin), "byteLength": len(data)}
        if target is not None:
            entry["target"] = target
        self.bin.extend(data)
        self.views.append(entry)
        return len(self.views) - 1

    def accessor(
        self,
        array: np.ndarray,
        component: int,
        target: int | None = ARRAY_BUFFER,
        minmax: bool = False,
        normalized: bool = False,
    ) -> int:
        arr = np.ascontiguousarray(np.asarray(array).astype(_DTYPES[component]))
        width = 1 if arr.ndim == 1 else int(np.prod(arr.shape[1:]))
        flat = arr.reshape(len(arr), width)
        entry: dict = {
            "bufferView": self.view(flat.tobytes(), target),
            "componentType": component,
            "count": len(flat),
            "type": _TYPES[width],
        }
        if normalized:
            entry["normalized"] = True
        if minmax:  # float32 values written exactly, so the box is exact
            entry["min"] = [v.item() for v in flat.min(axis=0)]
            entry["max"] = [v.item() for v in flat.max(axis=0)]
        self.accessors.append(entry)
        return len(self.accessors) - 1

    def indices(self, tri: np.ndarray, vertex_count: int) -> int:
        comp = USHORT if vertex_count < 65535 else UINT
        return self.accessor(np.asarray(tri).reshape(-1), comp, ELEMENT_ARRAY_BUFFER)

    def to_glb(self, doc: dict) -> bytes:
        while len(self.bin) % 4:
            self.bin.append(0)
        doc = dict(doc)
        doc["buffers"] = [{"byteLength": len(self.bin)}]
        doc["bufferViews"] = self.views
        doc["accessors"] = self.accessors
        text = json.dumps(doc, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(
            "ascii"
        )
        text += b" " * (-len(text) % 4)
        total = 12 + 8 + len(text) + 8 + len(self.bin)
        out = bytearray(struct.pack("<4sII", b"glTF", 2, total))
        out += struct.pack("<I4s", len(text), b"JSON") + text
        out += struct.pack("<I4s", len(self.bin), b"BIN\x00") + bytes(self.bin)
        return bytes(out)
