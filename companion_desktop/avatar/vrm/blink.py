"""Natural blinking: random intervals, a quick close/hold/open curve, occasional doubles.

Times in seconds, the weight 0..1 (1 = eyes shut). The random source is passed in
(``random.Random``), so a seed gives the same blinks every run. Overrides (an expression
blocking blink) are applied by the ``ExpressionManager``, not here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

CLOSE_S = 0.06
HOLD_S = 0.04
OPEN_S = 0.12
BLINK_S = CLOSE_S + HOLD_S + OPEN_S
INTERVAL_S = (2.0, 6.0)
DOUBLE_CHANCE = 0.15
DOUBLE_GAP_S = 0.08  # eyes open between the two blinks of a double


def blink_curve(phase: float) -> float:
    """Weight at ``phase`` seconds into one blink: ease-in close, hold, ease-out open."""
    if phase <= 0.0 or phase >= BLINK_S:
        return 0.0
    if phase < CLOSE_S:
        x = phase / CLOSE_S
        return x * x
    if phase <= CLOSE_S + HOLD_S:
        return 1.0
    x = (phase - CLOSE_S - HOLD_S) / OPEN_S
    return 1.0 - x * x * (3.0 - 2.0 * x)


@dataclass
class Blinker:
    """Call :meth:`update` each frame; it returns the blink weight for the frame."""

    rng: random.Random
    enabled: bool = True
    time: float = 0.0
    next_start: float = 0.0
    blinks: int = 0
    doubles: int = 0
    _in_double: bool = False

    def __post_init__(self) -> None:
        self.next_start = self.rng.uniform(*INTERVAL_S)

    def _schedule_after(self, end: float) -> None:
        if not self._in_double and self.rng.random() < DOUBLE_CHANCE:
            self._in_double = True
            self.doubles += 1
            self.next_start = end + DOUBLE_GAP_S
        else:
            self._in_double = False
            self.next_start = end + self.rng.uniform(*INTERVAL_S)

    def update(self, dt: float) -> float:
        """Advance ``dt`` seconds (>= 0) and return the weight now (0 when disabled)."""
        self.time += max(0.0, dt)
        while self.time >= self.next_start + BLINK_S:  # blinks finished (also skipped ones)
            self.blinks += 1
            self._schedule_after(self.next_start + BLINK_S)
        if not self.enabled:
            return 0.0
        return blink_curve(self.time - self.next_start)

    def active(self) -> bool:
        """Whether a blink is in progress (the weight is moving)."""
        return self.enabled and 0.0 < self.time - self.next_start < BLINK_S
