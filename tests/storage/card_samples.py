"""Character cards made by hand for the tests: PNG chunks written here with struct and
zlib.crc32 (never with the code under test), JSON cards of each version, CHARX zips."""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib
from typing import Any

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_chunk(kind: bytes, data: bytes, crc: int | None = None) -> bytes:
    if crc is None:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


def ihdr(width: int, height: int) -> bytes:
    return png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))


def tiny_png(width: int = 8, height: int = 8, middle: tuple[bytes, ...] = (),
             rgba: tuple[int, int, int, int] = (200, 120, 180, 255)) -> bytes:
    """An RGBA PNG of one colour with ``middle`` chunks before IDAT."""
    row = b"\0" + bytes(rgba) * width
    idat = png_chunk(b"IDAT", zlib.compress(row * height))
    return SIGNATURE + ihdr(width, height) + b"".join(middle) + idat + png_chunk(b"IEND", b"")


def text_chunk(keyword: bytes, value: Any) -> bytes:
    """A tEXt chunk of base64 JSON (``value`` a dict) or of raw bytes."""
    raw = value if isinstance(value, bytes) else json.dumps(value).encode("utf-8")
    return png_chunk(b"tEXt", keyword + b"\0" + base64.b64encode(raw))


def card_png(**cards: Any) -> bytes:
    """A PNG with a chunk per keyword (``chara=..., ccv3=...``)."""
    return tiny_png(middle=tuple(text_chunk(k.encode(), v) for k, v in cards.items()))


def read_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The (type, data) of every chunk, read here (CRCs checked)."""
    assert data[:8] == SIGNATURE
    pos, found = 8, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        found.append((kind, body))
        pos += 12 + length
    return found


def chunk_json(data: bytes, keyword: bytes) -> dict:
    for kind, body in read_chunks(data):
        if kind == b"tEXt" and body.startswith(keyword + b"\0"):
            return json.loads(base64.b64decode(body[len(keyword) + 1:]))
    raise AssertionError(f"no {keyword!r} chunk")


BOOK = {
    "name": "Harbor lore", "scan_depth": 4, "token_budget": 500, "recursive_scanning": False,
    "extensions": {},
    "entries": [
        {"keys": ["lighthouse"], "secondary_keys": [], "content": "The lighthouse keeper is "
         "{{char}}'s grandmother, Old Maren.", "enabled": True, "insertion_order": 10,
         "case_sensitive": False, "selective": False, "constant": False, "priority": 0,
         "position": "before_char", "extensions": {}, "name": "lighthouse", "comment": "",
         "id": 0},
        {"keys": ["kraken"], "secondary_keys": [], "content": "A kraken sleeps under the "
         "northern reef.", "enabled": True, "insertion_order": 20, "case_sensitive": False,
         "selective": False, "constant": False, "priority": 0, "position": "after_char",
         "extensions": {}, "name": "kraken", "comment": "", "id": 1},
    ],
}


def v2_card(**changes: Any) -> dict:
    data = {
        "name": "Mira", "description": "{{char}} is a lighthouse painter who lives by the sea.",
        "personality": "calm, teasing, loyal", "scenario": "{{user}} visits her studio.",
        "first_mes": "Oh! <USER>, you came. Mind the wet paint.",
        "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hello, sailor.",
        "creator_notes": "<b>Made for rainy days.</b>", "system_prompt": "Write as Mira.",
        "post_history_instructions": "Stay gentle.", "alternate_greetings": [
            "The tide is high today.", "You smell like rain."],
        "character_book": BOOK, "tags": ["sea", "painter"], "creator": "tests",
        "character_version": "1.0", "extensions": {},
    }
    data.update(changes)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def v3_card(**changes: Any) -> dict:
    card = v2_card(**changes)
    card["data"].update(nickname="Mimi", assets=[], group_only_greetings=[],
                        creation_date=0, modification_date=0, source=[])
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": card["data"]}


def v1_card(**changes: Any) -> dict:
    card = {"name": "Old Tom", "description": "<BOT> is a grumpy fisherman.",
            "personality": "gruff", "scenario": "", "first_mes": "What do you want?",
            "mes_example": ""}
    card.update(changes)
    return card


def world_info() -> dict:
    return {"entries": {
        "0": {"uid": 0, "key": ["storm"], "keysecondary": ["night"], "content": "Storms at "
              "night flood the harbor road.", "constant": False, "selective": True,
              "selectiveLogic": 0, "order": 50, "disable": False, "caseSensitive": None,
              "scanDepth": None, "comment": "storm"},
        "1": {"uid": 1, "key": ["gull"], "keysecondary": [], "content": "Gulls steal bread.",
              "constant": False, "selective": False, "selectiveLogic": 0, "order": 60,
              "disable": True, "comment": "gulls"},
    }}


def charx(card: dict, icon: bytes | None = None, extra: dict[str, bytes] | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", json.dumps(card))
        if icon is not None:
            archive.writestr("assets/icon/images/main.png", icon)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def portrait_png(width: int = 96, height: int = 144, middle: tuple[bytes, ...] = ()) -> bytes:
    """A sea-and-sky gradient with a sun, written row by row here (for the screenshots)."""
    rows = []
    for y in range(height):
        row = bytearray(b"\0")
        for x in range(width):
            sun = (x - width * 0.7) ** 2 + (y - height * 0.25) ** 2 < (width * 0.12) ** 2
            sea = y > height * 0.6
            colour = ((250, 210, 90) if sun else (40, 90 + y % 40, 160) if sea
                      else (150 + y // 3, 190, 235))
            row += bytes(colour) + b"\xff"
        rows.append(bytes(row))
    idat = png_chunk(b"IDAT", zlib.compress(b"".join(rows)))
    return SIGNATURE + ihdr(width, height) + b"".join(middle) + idat + png_chunk(b"IEND", b"")
