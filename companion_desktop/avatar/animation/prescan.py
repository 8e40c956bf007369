"""A quick count of the glTF objects in a file before pygltflib decodes them.

pygltflib turns every JSON object into a dataclass at about half a millisecond each, so a
small hostile file with hundreds of thousands of tiny animation channels would take
minutes inside ``read_document``, where no deadline can be checked. ``object_count`` reads
the JSON (GLB JSON chunk or .gltf text) with the standard library and counts the objects
that become dataclasses: top-level array items plus each animation's channels (and their
targets) and samplers, and mesh primitives. Anything it cannot read returns None and
is left to ``read_document`` to refuse with the proper message.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from ..vrm.gltf import CHUNK_JSON, GLB_MAGIC
from ..vrm.gltf import object_count as _count


def object_count(path: Path, max_bytes: int) -> int | None:
    """How many glTF objects pygltflib would build for ``path``, or None if unreadable."""
    try:
        if path.stat().st_size > max_bytes:
            return None
        with path.open("rb") as handle:
            head = handle.read(20)
            if head[:4] == GLB_MAGIC and len(head) == 20:
                length, kind = struct.unpack_from("<II", head, 12)
                if kind != CHUNK_JSON or length > max_bytes:
                    return None
                text = handle.read(length)
            else:
                text = head + handle.read(max_bytes)
        doc = json.loads(text.decode("utf-8-sig"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, struct.error):
        return None
    if not isinstance(doc, dict):
        return None
    return _count(doc)
