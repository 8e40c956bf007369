"""Blinking: the curve, seeded determinism, intervals, double blinks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from companion_desktop.avatar.vrm.blink import (
    BLINK_S,
    CLOSE_S,
    DOUBLE_GAP_S,
    HOLD_S,
    INTERVAL_S,
    OPEN_S,
    Blinker,
    blink_curve,
)


def test_curve_shape():
    assert (CLOSE_S, HOLD_S, OPEN_S) == (0.06, 0.04, 0.12)
    closing = [blink_curve(t) for t in np.linspace(0, CLOSE_S, 20)]
    opening = [blink_curve(t) for t in np.linspace(CLOSE_S + HOLD_S, BLINK_S, 30)]
    assert closing[0] == 0.0 and all(b > a for a, b in zip(closing, closing[1:], strict=False))
    assert all(blink_curve(t) == 1.0 for t in np.linspace(CLOSE_S, CLOSE_S + HOLD_S, 5))
    assert opening[0] == 1.0 and opening[-1] == 0.0
    assert all(b < a for a, b in zip(opening, opening[1:], strict=False))
    assert blink_curve(-0.1) == blink_curve(BLINK_S + 0.01) == 0.0
    # a quick close, a slower open
    assert blink_curve(CLOSE_S / 2) < 0.5 < blink_curve(CLOSE_S + HOLD_S + OPEN_S / 2 - 0.01)


def _run(seed: int, dt: float, seconds: float) -> list[float]:
    blinker = Blinker(random.Random(seed))
    return [blinker.update(dt) for _ in range(int(seconds / dt))]


def test_seeded_random_is_deterministic():
    assert _run(42, 1 / 60, 30) == _run(42, 1 / 60, 30)
    assert _run(42, 1 / 60, 30) != _run(43, 1 / 60, 30)


def _starts(seed: int, count: int) -> tuple[list[float], int]:
    blinker = Blinker(random.Random(seed))
    starts = [blinker.next_start]
    while len(starts) < count:
        blinker.update(0.05)
        if blinker.next_start != starts[-1]:
            starts.append(blinker.next_start)
    return starts, blinker.doubles


def test_intervals_and_double_blinks():
    starts, doubles = _starts(7, 600)
    gaps = np.diff(starts)
    double_gap = BLINK_S + DOUBLE_GAP_S
    singles = gaps[np.abs(gaps - double_gap) > 1e-9]
    assert INTERVAL_S[0] + BLINK_S <= singles.min() and singles.max() <= INTERVAL_S[1] + BLINK_S
    n_doubles = int(np.sum(np.abs(gaps - double_gap) < 1e-9))
    assert 0.08 * len(gaps) < n_doubles < 0.25 * len(gaps)
    # never a triple: a double is followed by a normal interval
    is_double = np.abs(gaps - double_gap) < 1e-9
    assert not np.any(is_double[1:] & is_double[:-1])
    assert doubles >= n_doubles


def test_double_blink_weight_closes_twice():
    seed = next(s for s in range(200) if _starts(s, 3)[0][1] - _starts(s, 3)[0][0] < 1.0)
    blinker = Blinker(random.Random(seed))
    start = blinker.next_start
    dt = 0.005
    weights = [blinker.update(dt) for _ in range(int((start + 2 * BLINK_S + 0.2) / dt))]
    closed = np.array(weights) > 0.99
    runs = int(np.sum(closed[1:] & ~closed[:-1]))
    assert runs == 2


@pytest.mark.parametrize("fps", [30, 60, 144])
def test_blink_times_do_not_depend_on_frame_rate(fps):
    reference = _starts(5, 10)[0]
    blinker = Blinker(random.Random(5))
    starts = [blinker.next_start]
    peak = 0.0
    for _ in range(int(reference[-1] * fps)):
        peak = max(peak, blinker.update(1 / fps))
        if blinker.next_start != starts[-1]:
            starts.append(blinker.next_start)
    assert starts == reference[: len(starts)] and len(starts) >= 9
    if fps >= 60:  # the hold lasts longer than a frame
        assert peak == 1.0


def test_disabled_blinker_stays_open_and_keeps_time():
    blinker = Blinker(random.Random(1), enabled=False)
    assert max(blinker.update(1 / 60) for _ in range(600)) == 0.0
    assert not blinker.active()
