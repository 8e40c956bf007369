"""Small numeric helpers: interpolation, smoothstep, frames, quantisation (numpy only)."""

from __future__ import annotations

import numpy as np


def smoothstep(e0: float, e1: float, x: np.ndarray | float) -> np.ndarray:
    """Hermite step: 0 below e0, 1 above e1, smooth in between."""
    t = np.clip((np.asarray(x, np.float64) - e0) / (e1 - e0), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def pchip(
    xs: list[float] | np.ndarray, ys: list[float] | np.ndarray, x: np.ndarray | float
) -> np.ndarray:
    """Monotone cubic (PCHIP) interpolation of control points; no overshoot between knots.

    ``ys`` may be (k,) or (k, d); values outside the knots are clamped to the ends.
    """
    xs = np.asarray(xs, np.float64)
    ys = np.asarray(ys, np.float64)
    flat = ys.ndim == 1
    if flat:
        ys = ys[:, None]
    x = np.clip(np.asarray(x, np.float64), xs[0], xs[-1])
    h = np.diff(xs)
    delta = np.diff(ys, axis=0) / h[:, None]
    k = len(xs)
    m = np.zeros_like(ys)
    for i in range(1, k - 1):
        d0, d1 = delta[i - 1], delta[i]
        w1, w2 = 2 * h[i] + h[i - 1], h[i] + 2 * h[i - 1]
        same = (d0 * d1) > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            harm = (w1 + w2) / (w1 / np.where(same, d0, 1) + w2 / np.where(same, d1, 1))
        m[i] = np.where(same, harm, 0.0)
    m[0] = delta[0]
    m[-1] = delta[-1]
    idx = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, k - 2)
    t = ((x - xs[idx]) / h[idx])[..., None]
    hh = h[idx][..., None]
    y0, y1, m0, m1 = ys[idx], ys[idx + 1], m[idx], m[idx + 1]
    t2, t3 = t * t, t * t * t
    out = (
        (2 * t3 - 3 * t2 + 1) * y0
        + (t3 - 2 * t2 + t) * hh * m0
        + (-2 * t3 + 3 * t2) * y1
        + (t3 - t2) * hh * m1
    )
    return out[..., 0] if flat else out


def normalize(v: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n < 1e-12, 1.0, n)


def arc_length(path: np.ndarray) -> np.ndarray:
    """Cumulative length along a polyline (k, 3), starting at 0."""
    seg = np.linalg.norm(np.diff(path, axis=0), axis=1)
    return np.concatenate([[0.0], np.cumsum(seg)])


def resample(path: np.ndarray, count: int) -> np.ndarray:
    """``count`` points evenly spaced by arc length along a polyline."""
    s = arc_length(path)
    target = np.linspace(0.0, s[-1], count)
    return np.stack([np.interp(target, s, path[:, i]) for i in range(path.shape[1])], axis=1)


def bezier(points: np.ndarray, count: int) -> np.ndarray:
    """Points along a Bezier curve of any degree (control points (k, 3))."""
    pts = np.asarray(points, np.float64)
    t = np.linspace(0.0, 1.0, count)[:, None]
    work = np.repeat(pts[None], count, axis=0)
    while work.shape[1] > 1:
        work = work[:, :-1] * (1 - t[..., None]) + work[:, 1:] * t[..., None]
    return work[:, 0]


def tangents(path: np.ndarray) -> np.ndarray:
    return normalize(np.gradient(path, axis=0))


def quantize(a: np.ndarray, step: float) -> np.ndarray:
    """Snap to a grid so tiny last-bit differences between machines vanish."""
    return np.round(np.asarray(a, np.float64) / step) * step


def srgb_to_linear(c: tuple[float, ...] | np.ndarray) -> list[float]:
    """sRGB (0-1) to linear, the space of glTF colour factors."""
    c = np.asarray(c, np.float64)
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return [round(float(v), 5) for v in lin]


def hex_rgb(code: str) -> tuple[float, float, float]:
    code = code.lstrip("#")
    return tuple(int(code[i : i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]
