"""Character card files: read (PNG, JSON, CHARX) and write (PNG), every size bounded.

A card file is untrusted. Reading never holds more than the limits below: the file's
size is checked first; a PNG is read chunk by chunk (length-checked, CRC-checked where
read, other chunks skipped unread) and only its ``chara`` (V1/V2) and ``ccv3`` (V3)
text chunks are decoded (V3 wins when both are there); a CHARX zip gives its
``card.json`` and its icon, read with a cap whatever its header claims; JSON is UTF-8,
at most ``MAX_JSON_BYTES`` and ``MAX_JSON_DEPTH`` deep. A problem is a
:class:`engine.card.CardError` with a one-line message.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import io
import json
import struct
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..engine.card import (
    CardError,
    CharacterCard,
    card_from_json,
    is_world_info,
    lorebook_from_json,
)
from ..engine.lorebook import Lorebook

MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_JSON_BYTES = 8 * 1024 * 1024
#: Longest text chunk read (base64 of a card); a longer one is refused unread.
MAX_TEXT_CHUNK = 12 * 1024 * 1024
MAX_CHUNKS = 10_000
MAX_JSON_DEPTH = 64
MAX_ZIP_MEMBERS = 2000
MAX_ICON_BYTES = 16 * 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = (b"ccv3", b"chara")
_TEXT_TYPES = (b"tEXt", b"iTXt", b"zTXt")
#: Chunks kept when the image alone is wanted (its text chunks dropped).
_IMAGE_TYPES = (b"IHDR", b"PLTE", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"IDAT", b"IEND")
SUFFIXES = (".png", ".json", ".charx")


@dataclass(frozen=True)
class CardFile:
    """What a file held: a card (with the PNG or CHARX icon it came with) or a lorebook."""

    card: CharacterCard | None
    lorebook: Lorebook | None
    image: bytes | None
    kind: str  # "png", "json", "charx"
    unused_assets: int = 0  # a CHARX's other pictures and files (backgrounds, expressions)


def _chunks(handle: IO[bytes]) -> Any:
    """(type, data or None, ) of each chunk after the signature: data only for card text
    chunks and the image's chunks (``_IMAGE_TYPES``), others skipped."""
    for _count in range(MAX_CHUNKS):
        head = handle.read(8)
        if len(head) < 8:
            raise CardError("The PNG ends before its last chunk (the file is cut short).")
        length, kind = struct.unpack(">I4s", head)
        if length > 2**31 - 1:
            raise CardError("The PNG has a chunk of an impossible length.")
        wanted = kind in _TEXT_TYPES or kind in _IMAGE_TYPES
        if kind in _TEXT_TYPES and length > MAX_TEXT_CHUNK:
            raise CardError(f"The PNG holds a text chunk of {length / 1048576:.0f} MB; at most "
                            f"{MAX_TEXT_CHUNK // 1048576} MB are read.")
        if not wanted:
            handle.seek(length + 4, io.SEEK_CUR)
            yield kind, None
            continue
        data = handle.read(length)
        crc = handle.read(4)
        if len(data) < length or len(crc) < 4:
            raise CardError("The PNG ends inside a chunk (the file is cut short).")
        if zlib.crc32(kind + data) != struct.unpack(">I", crc)[0]:
            raise CardError(f"The PNG's {kind.decode('latin-1')} chunk is damaged (bad CRC).")
        yield kind, data
        if kind == b"IEND":
            return
    raise CardError(f"The PNG has more than {MAX_CHUNKS:,} chunks.")


def _inflate(data: bytes) -> bytes:
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, MAX_TEXT_CHUNK + 1)
    except zlib.error:
        raise CardError("A compressed text chunk of the PNG is damaged.") from None
    if len(out) > MAX_TEXT_CHUNK or inflater.unconsumed_tail:
        raise CardError("A compressed text chunk of the PNG unpacks past "
                        f"{MAX_TEXT_CHUNK // 1048576} MB.")
    return out


def _text_chunk(kind: bytes, data: bytes) -> tuple[bytes, bytes] | None:
    """(keyword, text) of a card text chunk, None for other keywords."""
    keyword, _, rest = data.partition(b"\0")
    if keyword not in CARD_KEYWORDS:
        return None
    if kind == b"zTXt":
        return keyword, _inflate(rest[1:])
    if kind == b"iTXt":
        flag, rest = rest[:1], rest[2:]
        _lang, _, rest = rest.partition(b"\0")
        _translated, _, text = rest.partition(b"\0")
        return keyword, _inflate(text) if flag == b"\x01" else text
    return keyword, rest


def read_png(handle: IO[bytes]) -> tuple[dict[bytes, bytes], bytes]:
    """(card text chunks by keyword, the image as a PNG without text chunks)."""
    if handle.read(8) != PNG_SIGNATURE:
        raise CardError("This is not a PNG file.")
    texts: dict[bytes, bytes] = {}
    image = [PNG_SIGNATURE]
    for kind, data in _chunks(handle):
        if data is None:
            continue
        if kind in _TEXT_TYPES:
            found = _text_chunk(kind, data)
            if found is not None:
                texts.setdefault(*found)
        else:
            image.append(chunk(kind, data))
    return texts, b"".join(image)


def chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, type, data, CRC."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _depth_ok(value: Any) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            raise CardError(f"The card's JSON is nested more than {MAX_JSON_DEPTH} deep.")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def load_json(data: bytes) -> Any:
    """Parsed JSON of at most ``MAX_JSON_BYTES`` UTF-8 bytes and ``MAX_JSON_DEPTH`` deep."""
    if len(data) > MAX_JSON_BYTES:
        raise CardError(f"The card's JSON is {len(data) / 1048576:.1f} MB; at most "
                        f"{MAX_JSON_BYTES // 1048576} MB are read.")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise CardError("The card's text is not UTF-8.") from None
    try:
        value = json.loads(text)
    except RecursionError:
        raise CardError(f"The card's JSON is nested more than {MAX_JSON_DEPTH} deep.") from None
    except ValueError as error:
        raise CardError(f"The card's JSON cannot be read ({str(error)[:80]}).") from None
    _depth_ok(value)
    return value


def _b64_json(text: bytes) -> Any:
    try:
        data = base64.b64decode(b"".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise CardError("The card's PNG text is not valid base64.") from None
    return load_json(data)


def _from_json(value: Any, image: bytes | None, kind: str) -> CardFile:
    if is_world_info(value):
        return CardFile(None, lorebook_from_json(value, world_info=True), None, kind)
    return CardFile(card_from_json(value), None, image, kind)


def _read_charx(handle: IO[bytes]) -> CardFile:
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError):
        raise CardError("This CHARX file is not a readable zip archive.") from None
    with archive:
        names = archive.namelist()
        if len(names) > MAX_ZIP_MEMBERS:
            raise CardError(f"The CHARX archive has more than {MAX_ZIP_MEMBERS:,} files.")
        if "card.json" not in names:
            raise CardError("The CHARX archive has no card.json.")
        value = load_json(_member(archive, "card.json", MAX_JSON_BYTES))
        icon = next((n for n in names if n.startswith("assets/icon/") and not n.endswith("/")),
                    None)
        image = _member(archive, icon, MAX_ICON_BYTES) if icon else None
        unused = sum(1 for n in names if n.startswith("assets/") and not n.endswith("/")
                     and n != icon)
    found = _from_json(value, image, "charx")
    return dataclasses.replace(found, unused_assets=unused) if unused else found


def _member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member's bytes, read with a cap whatever its header says (a zip bomb stops)."""
    try:
        with archive.open(name) as member:
            data = member.read(limit + 1)
    except (zipfile.BadZipFile, OSError, NotImplementedError, RuntimeError, zlib.error):
        raise CardError(f"The CHARX archive's {name} cannot be read.") from None
    if len(data) > limit:
        raise CardError(f"The CHARX archive's {name} is larger than {limit // 1048576} MB.")
    return data


def read_card(handle: IO[bytes], size: int) -> CardFile:
    """The card (or World Info lorebook) in an open file of ``size`` bytes."""
    if size > MAX_FILE_BYTES:
        raise CardError(f"The file is {size / 1048576:.0f} MB; a card is at most "
                        f"{MAX_FILE_BYTES // 1048576} MB.")
    start = handle.read(8)
    handle.seek(0)
    if start == PNG_SIGNATURE:
        texts, image = read_png(handle)
        for keyword in CARD_KEYWORDS:  # ccv3 first: V3 wins
            if keyword in texts:
                return _from_json(_b64_json(texts[keyword]), image, "png")
        raise CardError("This PNG holds no character card (no chara or ccv3 chunk).")
    if start.startswith(b"PK\x03\x04"):
        return _read_charx(handle)
    return _from_json(load_json(handle.read(MAX_JSON_BYTES + 1)), None, "json")


def read_card_file(path: Path | str) -> CardFile:
    """:func:`read_card` of a file; CardError when it cannot be opened."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            return read_card(handle, path.stat().st_size)
    except OSError as error:
        raise CardError(f"{path.name} cannot be read ({error.strerror or error}).") from None


def is_card_file(path: Path | str) -> bool:
    """Whether ``path`` is a card file, told apart by content (a PNG with a card chunk, a
    CHARX archive, a card or lorebook JSON): what a drop decides on. Never raises."""
    path = Path(path)
    if path.suffix.lower() not in SUFFIXES:
        return False
    try:
        with path.open("rb") as handle:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                return False
            start = handle.read(8)
            handle.seek(0)
            if start == PNG_SIGNATURE:
                return bool(read_png(handle)[0])
            if path.suffix.lower() == ".charx":
                return start.startswith(b"PK\x03\x04")
            value = load_json(handle.read(MAX_JSON_BYTES + 1))
            return is_world_info(value) or card_from_json(value) is not None
    except (OSError, CardError, ValueError):
        return False


def png_with_card(image: bytes, texts: dict[bytes, str]) -> bytes:
    """``image`` (a PNG) with each ``texts`` keyword as a tEXt chunk of its base64 UTF-8
    text before IEND; the image's own card chunks are dropped."""
    _old, plain_image = read_png(io.BytesIO(image))
    end = plain_image.rindex(b"IEND") - 4
    extra = b"".join(chunk(b"tEXt", keyword + b"\0" + base64.b64encode(text.encode("utf-8")))
                     for keyword, text in texts.items())
    return plain_image[:end] + extra + plain_image[end:]
