"""glTF accessors as numpy arrays, every read bounds-checked against its buffer.

``AccessorReader.read(i)`` returns a ``(count, components)`` array: float32 for float and
normalized integer accessors (ubyte / 255, byte / 127 floored at -1, and so on), the raw
integer type otherwise. Each accessor is decoded once and cached, so primitives that
share accessors share arrays. Sparse accessors are applied on top of their base data (or
zeros when the accessor has no bufferView). Sizes are checked before anything is
allocated; a read past the end of a bufferView or buffer is a load error naming the
accessor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import AvatarLoadError
from .fields import as_bool, as_int, get, require_count, require_index
from .gltf import Document

COMPONENT_DTYPES: dict[int, np.dtype] = {
    5120: np.dtype("<i1"), 5121: np.dtype("<u1"), 5122: np.dtype("<i2"),
    5123: np.dtype("<u2"), 5125: np.dtype("<u4"), 5126: np.dtype("<f4"),
}  # fmt: skip
#: Normalized integer divisors (glTF 2.0 section 3.11).
NORMALIZE_DIVISORS = {5120: 127.0, 5121: 255.0, 5122: 32767.0, 5123: 65535.0, 5125: 4294967295.0}
TYPE_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT2": 4, "MAT3": 9, "MAT4": 16}
MATRIX_ROWS = {"MAT2": 2, "MAT3": 3, "MAT4": 4}
SPARSE_INDEX_TYPES = (5121, 5123, 5125)


class AccessorReader:
    """Decodes accessors of one document, once each."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self._accessors = list(doc.gltf.accessors or [])
        self._views = list(doc.gltf.bufferViews or [])
        self._cache: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self._accessors)

    def _fail(self, message: str) -> AvatarLoadError:
        return AvatarLoadError(f"{self.doc.source}: {message}")

    def _accessor(self, index: Any, what: str) -> tuple[int, Any]:
        i = require_index(index, len(self._accessors), what, self.doc.source)
        return i, self._accessors[i]

    def count(self, index: Any, what: str) -> int:
        """The element count of an accessor, checked, without decoding it."""
        i, accessor = self._accessor(index, what)
        return require_count(
            get(accessor, "count"), f"accessor {i} count", self.doc.source, 1,
            self.doc.limits.max_accessor_count,
        )  # fmt: skip

    def component_type(self, index: Any, what: str) -> int:
        i, accessor = self._accessor(index, what)
        return as_int(get(accessor, "componentType"), -1)

    def read(self, index: Any, what: str) -> np.ndarray:
        """The accessor ``index`` (used as ``what``) as a ``(count, components)`` array."""
        i, accessor = self._accessor(index, what)
        cached = self._cache.get(i)
        if cached is None:
            cached = self._decode(i, accessor)
            self._cache[i] = cached
        return cached

    def _decode(self, i: int, accessor: Any) -> np.ndarray:
        name = f"accessor {i}"
        component = as_int(get(accessor, "componentType"), -1)
        dtype = COMPONENT_DTYPES.get(component)
        kind = get(accessor, "type")
        components = TYPE_COMPONENTS.get(kind) if isinstance(kind, str) else None
        if dtype is None or components is None:
            raise self._fail(
                f"{name} has an unknown component type or type ({component}, {kind!r})"
            )
        count = self.count(i, name)
        normalized = as_bool(get(accessor, "normalized")) and component != 5126
        self.doc.budget.take(count * components * (dtype.itemsize + 4), name)
        view = get(accessor, "bufferView")
        if view is None:
            data = np.zeros((count, components), dtype)
        else:
            offset = as_int(get(accessor, "byteOffset", 0), -1)
            data = self._strided(name, view, offset, count, dtype, kind, packed=False)
        sparse = get(accessor, "sparse")
        if sparse is not None:
            data = self._apply_sparse(name, sparse, data, dtype, kind)
        if component == 5126:
            return data
        if normalized:
            floats = data.astype(np.float32) / np.float32(NORMALIZE_DIVISORS[component])
            return np.maximum(floats, -1.0) if component in (5120, 5122) else floats
        return data

    def _strided(
        self, name: str, view_index: Any, offset: int, count: int, dtype: np.dtype, kind: str,
        *, packed: bool,
    ) -> np.ndarray:  # fmt: skip
        """``count`` elements from a bufferView (copied), after checking every byte is inside."""
        source = self.doc.source
        v = require_index(view_index, len(self._views), f"{name} bufferView", source)
        view = self._views[v]
        b = require_index(get(view, "buffer"), len(self.doc.buffers), f"bufferView {v}", source)
        buffer = self.doc.buffers[b]
        view_offset = as_int(get(view, "byteOffset", 0), -1)
        view_length = as_int(get(view, "byteLength"), -1)
        if view_offset < 0 or view_length < 1 or view_offset + view_length > len(buffer):
            raise self._fail(
                f"bufferView {v} (offset {view_offset}, length {view_length}) lies outside "
                f"buffer {b} ({len(buffer)} bytes)"
            )
        if offset < 0:
            raise self._fail(f"{name} has a negative byteOffset")
        rows = MATRIX_ROWS.get(kind)
        item = dtype.itemsize
        shape: tuple[int, ...]
        strides: tuple[int, ...]
        if rows is None:
            components = TYPE_COMPONENTS[kind]
            element, shape, strides = components * item, (components,), (item,)
        else:  # matrix columns start on 4-byte boundaries
            column = (rows * item + 3) & ~3
            element, shape, strides = column * rows, (rows, rows), (column, item)
        stride = element if packed else as_int(get(view, "byteStride"), 0) or element
        if stride < element:
            raise self._fail(
                f"bufferView {v} has a byteStride ({stride}) smaller than an element of {name}"
            )
        needed = offset + stride * (count - 1) + element
        if needed > view_length:
            raise self._fail(
                f"{name} reads past the end of bufferView {v} "
                f"(needs {needed} bytes, the view has {view_length})"
            )
        array = np.ndarray(
            (count, *shape), dtype, buffer=buffer, offset=view_offset + offset,
            strides=(stride, *strides),
        )  # fmt: skip
        return np.array(array, dtype=dtype.newbyteorder("=")).reshape(count, -1)

    def _apply_sparse(
        self, name: str, sparse: Any, data: np.ndarray, dtype: np.dtype, kind: str
    ) -> np.ndarray:
        count = require_count(
            get(sparse, "count"), f"{name} sparse count", self.doc.source, 1, len(data)
        )
        indices = get(sparse, "indices")
        values = get(sparse, "values")
        index_type = as_int(get(indices, "componentType"), -1)
        if indices is None or values is None or index_type not in SPARSE_INDEX_TYPES:
            raise self._fail(f"{name} has malformed sparse data")
        where = self._strided(
            f"{name} sparse indices", get(indices, "bufferView"),
            as_int(get(indices, "byteOffset", 0), -1), count, COMPONENT_DTYPES[index_type],
            "SCALAR", packed=True,
        ).reshape(-1)  # fmt: skip
        if int(where.max()) >= len(data):
            raise self._fail(f"{name} has a sparse index past its {len(data)} elements")
        replacement = self._strided(
            f"{name} sparse values", get(values, "bufferView"),
            as_int(get(values, "byteOffset", 0), -1), count, dtype, kind, packed=True,
        )  # fmt: skip
        data = data if data.flags.writeable else data.copy()
        data[where.astype(np.intp)] = replacement
        return data
