"""A deterministic PNG writer (own deflate encoder) so the avatar's bytes never depend on
the zlib build of the machine that runs the generator.

Each scanline gets the PNG filter with the smallest sum of absolute values (as libpng
does); the deflate stream is one fixed-Huffman block whose LZ77 matches use a few fixed
distances (1-4 bytes back and one row back), which suits filtered flat and gradient art.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

_LEN_BASE = [
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    10,
    11,
    13,
    15,
    17,
    19,
    23,
    27,
    31,
    35,
    43,
    51,
    59,
    67,
    83,
    99,
    115,
    131,
    163,
    195,
    227,
    258,
]
_LEN_EXTRA = [0] * 8 + [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4 + [5] * 4 + [0]
_DIST_BASE = [
    1,
    2,
    3,
    4,
    5,
    7,
    9,
    13,
    17,
    25,
    33,
    49,
    65,
    97,
    129,
    193,
    257,
    385,
    513,
    769,
    1025,
    1537,
    2049,
    3073,
    4097,
    6145,
    8193,
    12289,
    16385,
    24577,
]
_DIST_EXTRA = [0, 0, 0, 0] + [i // 2 for i in range(2, 28)]


def _rev(code: int, bits: int) -> int:
    out = 0
    for _ in range(bits):
        out = (out << 1) | (code & 1)
        code >>= 1
    return out


def _fixed_code(sym: int) -> tuple[int, int]:
    if sym < 144:
        return _rev(0x30 + sym, 8), 8
    if sym < 256:
        return _rev(0x190 + sym - 144, 9), 9
    if sym < 280:
        return _rev(sym - 256, 7), 7
    return _rev(0xC0 + sym - 280, 8), 8


_LIT = [_fixed_code(s) for s in range(288)]
_LEN_SYM = {}
for _code, (_base, _extra) in enumerate(zip(_LEN_BASE, _LEN_EXTRA, strict=True)):
    for _l in range(_base, _base + (1 << _extra)):
        _LEN_SYM.setdefault(_l, (257 + _code, _l - _base, _extra))
_LEN_SYM[258] = (285, 0, 0)


def _dist_sym(d: int) -> tuple[int, int, int]:
    code = max(i for i, b in enumerate(_DIST_BASE) if b <= d)
    return _rev(code, 5), d - _DIST_BASE[code], _DIST_EXTRA[code]


def _run_lengths(data: np.ndarray, d: int) -> np.ndarray:
    """For each position, how many bytes from there on equal the bytes d positions back."""
    n = len(data)
    eq = np.zeros(n, bool)
    if d < n:
        eq[d:] = data[d:] == data[:-d]
    idx = np.where(eq, n, np.arange(n))
    next_false = np.minimum.accumulate(idx[::-1])[::-1]
    return next_false - np.arange(n)


def deflate(raw: bytes, row: int) -> bytes:
    """zlib stream (fixed Huffman, fixed-distance LZ77) of ``raw``."""
    data = np.frombuffer(raw, np.uint8)
    dists = sorted({1, 2, 3, 4, row} - {0})
    dists = [d for d in dists if d <= 32768]
    runs = np.stack([np.minimum(_run_lengths(data, d), 258) for d in dists])
    best = runs.argmax(axis=0)
    best_len = runs.max(axis=0)
    out = bytearray()
    acc, nbits = 0, 0

    def put(value: int, bits: int) -> None:
        nonlocal acc, nbits
        acc |= value << nbits
        nbits += bits
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    put(1, 1)  # BFINAL
    put(1, 2)  # fixed Huffman
    dist_codes = {d: _dist_sym(d) for d in dists}
    i, n = 0, len(data)
    best_len_l, best_l, data_l = best_len.tolist(), best.tolist(), data.tolist()
    while i < n:
        length = best_len_l[i]
        if length >= 3:
            sym, extra_val, extra_bits = _LEN_SYM[length]
            put(*_LIT[sym])
            if extra_bits:
                put(extra_val, extra_bits)
            dcode, dextra, dbits = dist_codes[dists[best_l[i]]]
            put(dcode, 5)
            if dbits:
                put(dextra, dbits)
            i += length
        else:
            put(*_LIT[data_l[i]])
            i += 1
    put(*_LIT[256])
    if nbits:
        out.append(acc & 0xFF)
    return b"\x78\x01" + bytes(out) + struct.pack(">I", zlib.adler32(raw) & 0xFFFFFFFF)


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _filtered(img: np.ndarray) -> bytes:
    h, w, ch = img.shape
    rows = img.reshape(h, w * ch).astype(np.int32)
    out = bytearray()
    prev = np.zeros(w * ch, np.int32)
    for y in range(h):
        cur = rows[y]
        left = np.concatenate([np.zeros(ch, np.int32), cur[:-ch]])
        upleft = np.concatenate([np.zeros(ch, np.int32), prev[:-ch]])
        cands = [
            cur,
            cur - left,
            cur - prev,
            cur - (left + prev) // 2,
            cur - _paeth(left, prev, upleft),
        ]
        cands = [(c & 0xFF).astype(np.uint8) for c in cands]
        cost = [int(np.abs(c.astype(np.int8).astype(np.int32)).sum()) for c in cands]
        k = int(np.argmin(cost))
        out.append(k)
        out.extend(cands[k].tobytes())
        prev = cur
    return bytes(out)


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (
        struct.pack(">I", len(body))
        + kind
        + body
        + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    )


def encode_png(img: np.ndarray) -> bytes:
    """PNG bytes of an (h, w, 3|4) uint8 image (top row first)."""
    img = np.ascontiguousarray(img, np.uint8)
    h, w, ch = img.shape
    colour = {3: 2, 4: 6}[ch]
    header = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    data = deflate(_filtered(img), w * ch + 1)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )
