"""Procedural textures drawn with numpy (anti-aliased shapes from distance fields).

Images are (h, w, 3|4) uint8, top row first; u runs right, v runs down (glTF).
"""

from __future__ import annotations

import numpy as np

from .face import brow_half, lower_half, stroke_strip_half
from .head import FACE_UV_SIZE, FACE_UV_TOP
from .mathutil import hex_rgb, smoothstep


def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel-centre coordinates u, v in 0..1."""
    v, u = np.mgrid[0:h, 0:w].astype(np.float64)
    return (u + 0.5) / w, (v + 0.5) / h


def _rgb(code: str) -> np.ndarray:
    return np.array(hex_rgb(code))


def _over(base: np.ndarray, colour: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    a = np.clip(alpha, 0, 1)[..., None]
    return base * (1 - a) + colour * a


def _ellipse(u, v, cu, cv, ru, rv, soft):
    d = np.sqrt(((u - cu) / ru) ** 2 + ((v - cv) / rv) ** 2)
    return 1.0 - smoothstep(1.0 - soft, 1.0 + soft, d)


def _segment(u, v, a, b, width, px):
    """Coverage of a thick segment from a to b (uv units), anti-aliased over ``px``."""
    a, b = np.asarray(a), np.asarray(b)
    pu, pv = u - a[0], v - a[1]
    d = b - a
    t = np.clip((pu * d[0] + pv * d[1]) / (d @ d), 0, 1)
    dist = np.hypot(pu - t * d[0], pv - t * d[1])
    return 1.0 - smoothstep(width / 2 - px, width / 2 + px, dist)


def _to_u8(img: np.ndarray) -> np.ndarray:
    return np.clip(np.round(img * 255.0), 0, 255).astype(np.uint8)


SKIN = "#FFEAE0"


def face_texture(size: int = 256) -> np.ndarray:
    """Skin with soft blush on both cheeks (three little strokes each) and a tiny nose mark."""
    u, v = _grid(size, size)
    img = np.broadcast_to(_rgb(SKIN), (size, size, 3)).copy()
    px = 1.0 / size
    blush, stroke = _rgb("#FF9DAE"), _rgb("#F27A93")
    for sign in (1.0, -1.0):
        cu = 0.5 + sign * 0.069 / FACE_UV_SIZE
        cv = (FACE_UV_TOP - 1.2935) / FACE_UV_SIZE
        a = _ellipse(u, v, cu, cv, 0.062, 0.030, 0.9) * 0.62
        img = _over(img, blush, a)
        for k in (-1, 0, 1):
            off = k * 0.022
            p0 = (cu + off + 0.006 * sign, cv - 0.010)
            p1 = (cu + off - 0.006 * sign, cv + 0.010)
            img = _over(img, stroke, _segment(u, v, p0, p1, 2.2 * px, 0.8 * px) * 0.55)
    nose = _ellipse(u, v, 0.5 + 0.002, (FACE_UV_TOP - 1.2865) / FACE_UV_SIZE, 0.0075, 0.0055, 0.6)
    img = _over(img, _rgb("#F2B6AE"), nose * 0.75)
    return _to_u8(img)


def stroke_texture(half, width: int = 128, height: int = 64) -> np.ndarray:
    """A thin stroke on its strip (``face.stroke_strip_half``; u along the stroke, v
    across it), ``half(u)`` its half-thickness: white, opaque where the stroke is, clear in
    the strip's margins, its edge smoothed over a texel."""
    u, v = _grid(height, width)
    stroke = half(u)
    share = stroke / stroke_strip_half(stroke)  # the stroke's part of the strip's half
    across = np.abs(2.0 * v - 1.0)  # 0 on the stroke's middle line, 1 at the strip's edges
    texel = 2.0 / height
    alpha = 1.0 - smoothstep(share - texel / 2, share + texel / 2, across)
    img = np.ones((height, width, 4))
    img[..., 3] = alpha * (stroke > 0)
    return _to_u8(img)


def brow_texture() -> np.ndarray:
    return stroke_texture(brow_half)


def lower_lash_texture() -> np.ndarray:
    return stroke_texture(lower_half)


def iris_texture(size: int = 128) -> np.ndarray:
    """Teal iris: dark rim and top, glowing lower half, pupil, two white catchlights."""
    u, v = _grid(size, size)
    x, y = (u - 0.5) * 2, (0.5 - v) * 2  # -1..1, y up
    r = np.hypot(x, y)
    top, bottom = _rgb("#1C4F72"), _rgb("#58D8D8")
    t = smoothstep(0.55, -0.75, y)
    img = top[None, None] * (1 - t[..., None]) + bottom[None, None] * t[..., None]
    ang = np.arctan2(y, x)
    streak = 0.5 + 0.5 * np.sin(ang * 23.0) * np.sin(ang * 7.0 + 1.3)
    img = _over(img, _rgb("#2E8FA6"), streak * smoothstep(0.35, 0.85, r) * 0.25)
    glow = _ellipse(u, v, 0.5, 0.78, 0.30, 0.14, 0.8)
    img = _over(img, _rgb("#A8F4EA"), glow * 0.55)
    pupil = _ellipse(u, v, 0.5, 0.49, 0.17, 0.20, 0.12)
    img = _over(img, _rgb("#0F2C40"), pupil)
    img = _over(img, _rgb("#123A55"), smoothstep(0.84, 0.97, r))  # the ring
    img = _over(img, _rgb("#FFFFFF"), _ellipse(u, v, 0.33, 0.30, 0.14, 0.12, 0.14))
    img = _over(img, _rgb("#FFFFFF"), _ellipse(u, v, 0.68, 0.70, 0.06, 0.055, 0.2) * 0.95)
    alpha = np.ones_like(u)
    return _to_u8(np.concatenate([img, alpha[..., None]], -1))


def eye_white_texture() -> np.ndarray:
    """Eye white with the soft shadow the upper lid casts (v = 0 at the top of the eye)."""
    h, w = 32, 8
    _, v = _grid(h, w)
    t = smoothstep(0.12, 0.45, v)
    img = (
        _rgb("#C9C3E0")[None, None] * (1 - t[..., None])
        + _rgb("#FFFFFF")[None, None] * t[..., None]
    )
    return _to_u8(img)


def mouth_texture() -> np.ndarray:
    """Mouth interior: upper teeth, dark throat, tongue; v = 0 at the upper lip."""
    h, w = 64, 64
    u, v = _grid(h, w)
    img = np.broadcast_to(_rgb("#8A2E3C"), (h, w, 3)).copy()
    img = _over(img, _rgb("#5E1A28"), smoothstep(0.5, 0.15, v) * 0.6)
    teeth = (1 - smoothstep(0.10, 0.16, v)) * smoothstep(0.12, 0.22, u) * smoothstep(0.88, 0.78, u)
    img = _over(img, _rgb("#FFF9F7"), teeth)
    tongue = _ellipse(u, v, 0.5, 1.02, 0.36, 0.42, 0.08)
    img = _over(img, _rgb("#F07F8C"), tongue)
    return _to_u8(img)


def hair_texture() -> np.ndarray:
    """Soft pink hair: strand streaks across u (tiling), darker roots, light tips and the
    glossy 'angel ring' band on the crown (v 0.2-0.3, used by the cap)."""
    h, w = 256, 64
    u, v = _grid(h, w)
    streak = (
        np.sin(2 * np.pi * u * 3 + 0.7) * 0.5
        + np.sin(2 * np.pi * u * 7 + 2.1) * 0.3
        + np.sin(2 * np.pi * u * 13 + 0.3) * 0.2
    )
    root, mid, tip = _rgb("#EE8DB4"), _rgb("#F8AFCB"), _rgb("#FFD3E1")
    t1 = smoothstep(0.0, 0.5, v)[..., None]
    t2 = smoothstep(0.55, 1.0, v)[..., None]
    img = root * (1 - t1) + mid * t1
    img = img * (1 - t2) + tip * t2
    img = img * (1.0 + 0.045 * streak[..., None])
    ring_centre = 0.245 + 0.012 * np.sin(2 * np.pi * u * 6)
    ring = (1 - smoothstep(0.018, 0.034, np.abs(v - ring_centre))) * (
        0.55 + 0.45 * smoothstep(-0.2, 0.6, streak)
    )
    img = _over(img, _rgb("#FFF0F6"), ring * 0.85)
    return _to_u8(np.clip(img, 0, 1))
