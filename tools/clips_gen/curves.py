"""Keyframed scalar channels with smooth, overshoot-free interpolation.

A ``Curve`` holds (time, value) keys and evaluates a monotone cubic (Fritsch-Carlson, as
PCHIP): the curve eases in and out of every key that is a local extreme or a hold (equal
neighbours) and flows through keys on the way, so key poses read as natural motion with
no overshoot. A looping curve wraps: the slope at the first key sees the last ones, so
the loop joins without a kink. ``delay`` samples the curve later (overlapping action:
the head follows the body a little after).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence


class Curve:
    def __init__(self, keys: Sequence[tuple[float, float]], period: float | None = None,
                 delay: float = 0.0) -> None:
        keys = sorted((float(t), float(v)) for t, v in keys)
        if not keys:
            raise ValueError("a curve needs keys")
        self.period = period
        self.delay = float(delay)
        if period is not None:
            # the key at t == period duplicates t == 0
            if keys[-1][0] >= period - 1e-9:
                keys = keys[:-1]
            if keys[0][0] > 1e-9:
                raise ValueError("a looping curve needs a key at 0")
            n = len(keys)
            ext = ([(t - period, v) for t, v in keys[-2:]] if n >= 2 else []) + keys + \
                  [(t + period, v) for t, v in keys[: min(n, 2)]]
            if n == 1:
                ext = [(-period, keys[0][1])] + keys + [(period, keys[0][1])]
            self._times = [t for t, _ in ext]
            self._values = [v for _, v in ext]
        else:
            self._times = [t for t, _ in keys]
            self._values = [v for _, v in keys]
        self._slopes = _pchip_slopes(self._times, self._values, clamp_ends=period is None)

    def __call__(self, t: float) -> float:
        t = float(t) - self.delay
        times, values, slopes = self._times, self._values, self._slopes
        if self.period is not None:
            t = math.fmod(t, self.period)
            if t < 0.0:
                t += self.period
        if t <= times[0]:
            return values[0]
        if t >= times[-1]:
            return values[-1]
        i = bisect.bisect_right(times, t) - 1
        t0, t1 = times[i], times[i + 1]
        h = t1 - t0
        s = (t - t0) / h
        s2, s3 = s * s, s * s * s
        return ((2 * s3 - 3 * s2 + 1) * values[i] + (s3 - 2 * s2 + s) * h * slopes[i]
                + (-2 * s3 + 3 * s2) * values[i + 1] + (s3 - s2) * h * slopes[i + 1])


def _pchip_slopes(times: list[float], values: list[float], clamp_ends: bool) -> list[float]:
    n = len(times)
    if n == 1:
        return [0.0]
    h = [times[i + 1] - times[i] for i in range(n - 1)]
    d = [(values[i + 1] - values[i]) / h[i] for i in range(n - 1)]
    m = [0.0] * n
    for i in range(1, n - 1):
        if d[i - 1] * d[i] <= 0.0:
            m[i] = 0.0
        else:  # weighted harmonic mean (Fritsch-Butland), monotone
            w1 = 2 * h[i] + h[i - 1]
            w2 = h[i] + 2 * h[i - 1]
            m[i] = (w1 + w2) / (w1 / d[i - 1] + w2 / d[i])
    # ends: an emote starts and ends at rest, so its end keys are holds
    m[0] = 0.0 if clamp_ends else d[0]
    m[-1] = 0.0 if clamp_ends else d[-1]
    return m


def smoothstep(x: float) -> float:
    """0..1 ease in-out (quintic smootherstep), clamped."""
    x = min(1.0, max(0.0, x))
    return x * x * x * (x * (x * 6 - 15) + 10)


def envelope(t: float, start: float, attack: float, release_at: float, release: float) -> float:
    """0 before ``start``, eases to 1 over ``attack``, holds, eases back to 0 from
    ``release_at`` over ``release``."""
    return smoothstep((t - start) / attack) * (1.0 - smoothstep((t - release_at) / release))
