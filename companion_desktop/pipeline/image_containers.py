"""Nothing but pixels: a strict walk over an encoded picture's container.

``pipeline.images`` sends what :func:`bare_copy` returns: a PNG or JPEG rebuilt with
only the chunks or segments that carry pixels, colour and density (C2PA's ``caBX``
and APP11, ``eXIf``/APP1, text chunks, comments, XMP, unknown ancillary chunks and
any bytes after IEND or EOI are dropped; the pixels are not re-encoded). A GIF or
WebP is kept only when it already is bare. None means "re-encode from the pixels".
Pillow ignores unknown chunks and trailing bytes, so its ``info`` cannot tell.
"""

from __future__ import annotations

import struct

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: Critical chunks plus colour, transparency and density: nothing a person wrote or a camera
#: recorded.
_PNG_KEPT = frozenset({b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB",
                       b"iCCP", b"sBIT", b"pHYs", b"bKGD"})
_JPEG_SOF = frozenset({0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE,
                       0xCF})
_JPEG_TABLES = frozenset({0xC4, 0xCC, 0xDB, 0xDD})  # DHT, DAC, DQT, DRI
_JPEG_DROPPED = frozenset(range(0xE0, 0xF0)) | {0xFE}  # APPn (unless plain colour info), COM
_WEBP_KEPT = frozenset({b"VP8 ", b"VP8L", b"VP8X", b"ALPH", b"ICCP"})
_WEBP_METADATA_FLAGS = 0x08 | 0x04 | 0x02  # EXIF, XMP, animation


def bare_copy(data: bytes, fmt: str) -> bytes | None:
    """``data`` (Pillow format name ``fmt``) with only pixel, colour and density
    information and nothing after its end marker; None when it cannot be rebuilt so."""
    try:
        if fmt == "PNG":
            return _png(data)
        if fmt == "JPEG":
            return _jpeg(data)
        walk = {"GIF": _gif, "WEBP": _webp}.get(fmt)
        return data if walk is not None and walk(memoryview(data)) else None
    except (IndexError, struct.error, ValueError):
        return None


def is_bare(data: bytes, fmt: str) -> bool:
    """True when ``data`` already is its own bare copy."""
    return bare_copy(data, fmt) == data


def _png(data: bytes) -> bytes | None:
    if data[:8] != PNG_SIGNATURE:
        return None
    kept = [data[:8]]
    at = 8
    while True:
        length, kind = struct.unpack_from(">I4s", data, at)
        end = at + 12 + length
        if end > len(data):
            return None
        if kind in _PNG_KEPT:
            kept.append(data[at:end])
        elif not kind[0] & 0x20:  # an unknown critical chunk: cannot be left out
            return None
        at = end
        if kind == b"IEND":
            return b"".join(kept)


def _jpeg(data: bytes) -> bytes | None:
    if data[:2] != b"\xff\xd8":
        return None
    kept = [data[:2]]
    at = 2
    while True:
        if data[at] != 0xFF:
            return None
        while data[at] == 0xFF:  # fill bytes
            at += 1
        marker = data[at]
        at += 1
        if marker == 0xD9:  # EOI
            kept.append(b"\xff\xd9")
            return b"".join(kept)
        length = struct.unpack_from(">H", data, at)[0]
        end = at + length
        if length < 2 or end > len(data):
            return None
        payload = data[at + 2 : end]
        if (marker in _JPEG_SOF or marker in _JPEG_TABLES or marker == 0xDA
                or _plain_app(marker, payload)):
            if marker == 0xDA:  # the entropy-coded scan runs to the next real marker
                end = _scan_end(data, end)
            kept.append(bytes([0xFF, marker]) + data[at:end])
        elif marker not in _JPEG_DROPPED:
            return None
        at = end


def _plain_app(marker: int, payload: bytes) -> bool:
    """JFIF, an ICC profile or Adobe colour information; any other APPn or COM is not."""
    return (
        (marker == 0xE0 and payload[:5] in (b"JFIF\x00", b"JFXX\x00"))
        or (marker == 0xE2 and payload.startswith(b"ICC_PROFILE\x00"))
        or (marker == 0xEE and payload.startswith(b"Adobe"))
    )


def _scan_end(data: bytes, at: int) -> int:
    while True:
        at = data.index(b"\xff", at)
        following = data[at + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            at += 1 if following == 0xFF else 2
            continue
        return at


def _gif(data: memoryview) -> bool:
    if bytes(data[:6]) not in (b"GIF87a", b"GIF89a"):
        return False
    flags = data[10]
    at = 13 + (3 * 2 ** ((flags & 7) + 1) if flags & 0x80 else 0)
    frames = 0
    while True:
        block = data[at]
        if block == 0x3B:  # trailer
            return at + 1 == len(data) and frames == 1
        if block == 0x21:
            if data[at + 1] != 0xF9:  # only graphic control: no comment, text or application data
                return False
            at = _sub_blocks(data, at + 2)
        elif block == 0x2C:
            frames += 1
            local = data[at + 9]
            at += 10 + (3 * 2 ** ((local & 7) + 1) if local & 0x80 else 0)
            at = _sub_blocks(data, at + 1)  # after the LZW minimum code size
        else:
            return False


def _sub_blocks(data: memoryview, at: int) -> int:
    while True:
        size = data[at]
        at += 1 + size
        if size == 0:
            return at


def _webp(data: memoryview) -> bool:
    if bytes(data[:4]) != b"RIFF" or bytes(data[8:12]) != b"WEBP":
        return False
    if struct.unpack_from("<I", data, 4)[0] + 8 != len(data):
        return False
    at = 12
    while at < len(data):
        kind, size = struct.unpack_from("<4sI", data, at)
        if kind not in _WEBP_KEPT:
            return False
        if kind == b"VP8X" and data[at + 8] & _WEBP_METADATA_FLAGS:
            return False
        at += 8 + size + (size & 1)
    return at == len(data)
