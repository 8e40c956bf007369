"""Reading a glTF 2.0 container: GLB (.glb/.vrm/.vrma) or JSON (.gltf), plus its buffers.

The GLB header and chunks are checked against the file size before anything is sliced;
the JSON is parsed once and decoded into pygltflib's objects (as ``GLTF2.from_dict``
decodes them, planned once per class: ``gltf_decode``). Buffers and images given as
``data:`` URIs are decoded; relative URIs resolve only to files inside the model's folder.
"""

from __future__ import annotations

import binascii
import json
import struct
import urllib.parse
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pygltflib import GLTF2

from .errors import AvatarLoadError
from .fields import as_dict, as_list, get, require_count
from .gltf_decode import to_gltf2
from .limits import MIB, Budget, Limits

GLB_MAGIC = b"glTF"
CHUNK_JSON = 0x4E4F534A
CHUNK_BIN = 0x004E4942

#: Top-level arrays and the limit that caps each one's length.
_ARRAY_CAPS = {
    "nodes": "max_nodes", "meshes": "max_meshes", "accessors": "max_accessors",
    "bufferViews": "max_accessors", "buffers": "max_accessors", "materials": "max_materials",
    "textures": "max_textures", "images": "max_textures", "samplers": "max_textures",
    "skins": "max_meshes", "scenes": "max_nodes", "animations": "max_accessors",
    "cameras": "max_nodes",
}  # fmt: skip


@dataclass
class Document:
    """A parsed glTF file: the pygltflib object, its buffers and where it came from."""

    path: Path
    source: str  # the file name, for messages
    gltf: GLTF2
    buffers: list[memoryview]
    container: str  # "glb" or "json"
    limits: Limits
    budget: Budget

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def extensions(self) -> dict[str, Any]:
        return as_dict(self.gltf.extensions)

    def load_uri(self, uri: str, what: str) -> bytes:
        """The bytes behind a ``data:`` URI or a relative file inside the model's folder."""
        if uri.startswith("data:"):
            return _decode_data_uri(uri, what, self.source, self.budget)
        return _read_sibling(self.folder, uri, what, self.source, self.limits, self.budget)


def read_document(path: str | Path, limits: Limits) -> Document:
    """Read and check a GLB or .gltf file; raises ``AvatarLoadError`` on anything unusable."""
    path = Path(path)
    source = path.name or str(path)
    data = _read_file(path, limits.max_file_bytes, source)
    budget = Budget(limits.max_decoded_bytes, source)
    if data[:4] == GLB_MAGIC:
        json_bytes, bin_chunk, container = *_split_glb(data, source, limits), "glb"
        obj = _parse_json(json_bytes, source)
    else:
        obj, bin_chunk, container = _parse_gltf_text(data, source), None, "json"
    _check_arrays(obj, source, limits)
    objects = object_count(obj)
    if objects > limits.max_gltf_objects:
        raise AvatarLoadError(
            f"{source} describes {objects} glTF objects; at most {limits.max_gltf_objects} "
            "can be read (the file would take too long to open)"
        )
    gltf = _to_gltf2(obj, source)
    doc = Document(path, source, gltf, [], container, limits, budget)
    doc.buffers = _resolve_buffers(doc, bin_chunk)
    return doc


def object_count(doc: dict) -> int:
    """How many objects pygltflib would build: top-level array items plus animation
    channels (with their targets) and samplers, and mesh primitives."""
    total = sum(len(v) for v in doc.values() if isinstance(v, list))
    for animation in _dicts(doc.get("animations")):
        total += 2 * len(_dicts(animation.get("channels"))) + len(_dicts(animation.get("samplers")))
    for mesh in _dicts(doc.get("meshes")):
        total += len(_dicts(mesh.get("primitives")))
    return total


def _dicts(value: object) -> list[dict]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _read_file(path: Path, max_bytes: int, source: str) -> bytes:
    try:
        if path.is_dir():
            raise AvatarLoadError(f"{source} is a folder, not a model file")
        if not path.is_file():
            raise AvatarLoadError(f"{source}: no such file")
        size = path.stat().st_size
        if size > max_bytes:
            raise AvatarLoadError(
                f"{source} is {size / MIB:.0f} MiB; models over {max_bytes / MIB:.0f} MiB "
                "are refused"
            )
        if size == 0:
            raise AvatarLoadError(f"{source} is empty")
        with path.open("rb") as handle:
            data = handle.read(size + 1)  # never more than the cap (checked above) + 1
    except OSError as exc:
        raise AvatarLoadError(f"{source} could not be read: {exc.strerror or exc}") from exc
    if len(data) > max_bytes:
        raise AvatarLoadError(f"{source} grew past {max_bytes / MIB:.0f} MiB while being read")
    if not data:
        raise AvatarLoadError(f"{source} is empty")
    return data


def _split_glb(data: bytes, source: str, limits: Limits) -> tuple[bytes, memoryview | None]:
    """The JSON chunk and the BIN chunk (or None) of a GLB, every length checked."""
    if len(data) < 20:
        raise AvatarLoadError(f"{source} is truncated: it is shorter than a GLB header")
    _, version, length = struct.unpack_from("<4sII", data)
    if version != 2:
        raise AvatarLoadError(f"{source} is GLB version {version}; only version 2 is supported")
    if length > len(data):
        raise AvatarLoadError(
            f"{source} is truncated: its header says {length} bytes, the file has {len(data)}"
        )
    if length < 20:
        raise AvatarLoadError(f"{source}: its GLB header gives an impossible length ({length})")
    chunk_length, chunk_type = struct.unpack_from("<II", data, 12)
    if chunk_type != CHUNK_JSON:
        raise AvatarLoadError(f"{source}: the first GLB chunk is not JSON")
    if chunk_length > limits.max_json_bytes:
        raise AvatarLoadError(
            f"{source}: its JSON chunk is {chunk_length / MIB:.0f} MiB; the limit is "
            f"{limits.max_json_bytes / MIB:.0f} MiB"
        )
    if 20 + chunk_length > length:
        raise AvatarLoadError(f"{source} is truncated: the JSON chunk runs past the end")
    json_bytes = data[20 : 20 + chunk_length]
    offset = 20 + ((chunk_length + 3) & ~3)
    bin_chunk: memoryview | None = None
    while offset + 8 <= length:
        chunk_length, chunk_type = struct.unpack_from("<II", data, offset)
        start, end = offset + 8, offset + 8 + chunk_length
        if end > length:
            raise AvatarLoadError(f"{source} is truncated: a binary chunk runs past the end")
        if chunk_type == CHUNK_BIN and bin_chunk is None:
            bin_chunk = memoryview(data)[start:end]
        offset = start + ((chunk_length + 3) & ~3)
    return json_bytes, bin_chunk


def _parse_gltf_text(data: bytes, source: str) -> dict[str, Any]:
    """A .gltf file's JSON object. Bytes that are not UTF-8 text starting with ``{`` (noise,
    another format) get one message, whatever their first byte; text that starts like JSON
    but cannot be parsed says where it breaks."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = ""
    if not text.lstrip(" \t\r\n").startswith("{"):
        raise AvatarLoadError(
            f"{source} is not a glTF, GLB or VRM file (it is neither a GLB, which starts with "
            "'glTF', nor JSON text)"
        )
    return _parse_json(text, source, f"{source} is not a glTF, GLB or VRM file: its JSON")


def _parse_json(raw: bytes | str, source: str, what: str = "") -> dict[str, Any]:
    """The glTF JSON object in ``raw`` (a GLB's JSON chunk, or a .gltf file's text); ``what``
    names it in the message when it cannot be parsed."""
    try:
        obj = json.loads(raw if isinstance(raw, str) else raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        what = what or f"{source}: its glTF JSON"
        raise AvatarLoadError(f"{what} cannot be read ({exc})") from exc
    if not isinstance(obj, dict):
        raise AvatarLoadError(f"{source}: its glTF JSON is not an object")
    version = _version_text(get(as_dict(obj.get("asset")), "version", "2.0"))
    if not version.startswith("2"):
        raise AvatarLoadError(f"{source} is glTF {version}; only glTF 2.0 is supported")
    return obj


def _version_text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _check_arrays(obj: dict[str, Any], source: str, limits: Limits) -> None:
    """Top-level arrays must be lists of objects, within the caps (checked before decoding)."""
    for key, cap_name in _ARRAY_CAPS.items():
        if key not in obj:
            continue
        items = obj[key]
        cap = getattr(limits, cap_name)
        if not isinstance(items, list) or not all(isinstance(i, dict) for i in items):
            raise AvatarLoadError(f"{source}: glTF '{key}' is not a list of objects")
        if len(items) > cap:
            raise AvatarLoadError(f"{source} has {len(items)} {key}; at most {cap} are allowed")
    primitives = sum(len(as_list(m.get("primitives"))) for m in obj.get("meshes", []))
    if primitives > limits.max_primitives:
        raise AvatarLoadError(
            f"{source} has {primitives} mesh primitives; at most {limits.max_primitives} "
            "are allowed"
        )
    for key in ("extensions", "asset"):
        if key in obj and not isinstance(obj[key], dict):
            raise AvatarLoadError(f"{source}: glTF '{key}' is not an object")


def _to_gltf2(obj: dict[str, Any], source: str) -> GLTF2:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return to_gltf2(obj)
    except (TypeError, ValueError, AttributeError, KeyError, RecursionError,
            OverflowError) as exc:
        raise AvatarLoadError(f"{source}: its glTF JSON is malformed ({exc})") from exc


def _resolve_buffers(doc: Document, bin_chunk: memoryview | None) -> list[memoryview]:
    buffers: list[memoryview] = []
    for i, buffer in enumerate(doc.gltf.buffers or []):
        what = f"buffer {i}"
        declared = require_count(
            get(buffer, "byteLength"), f"{what} byteLength", doc.source, 0,
            doc.limits.max_file_bytes,
        )  # fmt: skip
        uri = get(buffer, "uri")
        if uri is None:
            if bin_chunk is None or i != 0:
                raise AvatarLoadError(
                    f"{doc.source}: {what} has no data (no URI and no GLB binary chunk)"
                )
            data: bytes | memoryview = bin_chunk
        elif isinstance(uri, str):
            data = doc.load_uri(uri, what)
        else:
            raise AvatarLoadError(f"{doc.source}: {what} has a malformed URI")
        if len(data) < declared:
            raise AvatarLoadError(
                f"{doc.source}: {what} is truncated: it declares {declared} bytes and has "
                f"{len(data)}"
            )
        buffers.append(memoryview(data)[:declared])
    return buffers


def _decode_data_uri(uri: str, what: str, source: str, budget: Budget) -> bytes:
    header, comma, payload = uri.partition(",")
    if not comma:
        raise AvatarLoadError(f"{source}: {what} has a malformed data: URI")
    if header.endswith(";base64"):
        budget.take(len(payload) * 3 // 4, what)
        try:
            return binascii.a2b_base64(payload)
        except (binascii.Error, ValueError) as exc:
            raise AvatarLoadError(f"{source}: {what} has bad base64 data ({exc})") from exc
    budget.take(len(payload), what)
    return urllib.parse.unquote_to_bytes(payload)


def _read_sibling(
    folder: Path, uri: str, what: str, source: str, limits: Limits, budget: Budget
) -> bytes:
    """A relative URI read only from inside ``folder`` (no URLs, no absolute paths, no '..')."""
    parts = urllib.parse.urlsplit(uri)
    relative = urllib.parse.unquote(parts.path)
    if (
        parts.scheme or parts.netloc or not relative or "\x00" in relative
        or relative.startswith(("/", "\\")) or Path(relative).is_absolute()
    ):  # fmt: skip
        raise AvatarLoadError(f"{source}: {what} points outside the model's folder ({uri!r})")
    try:
        base = folder.resolve()
        target = (base / relative).resolve()
        if not target.is_relative_to(base):
            raise AvatarLoadError(f"{source}: {what} points outside the model's folder ({uri!r})")
        if not target.is_file():
            raise AvatarLoadError(f"{source}: {what} needs the file {relative!r}, which is missing")
        size = target.stat().st_size
        if size > limits.max_file_bytes:
            raise AvatarLoadError(f"{source}: {what} file {relative!r} is too large")
        budget.take(size, what)
        with target.open("rb") as handle:
            return handle.read(size)
    except OSError as exc:
        raise AvatarLoadError(
            f"{source}: {what} file {relative!r} could not be read ({exc.strerror or exc})"
        ) from exc
