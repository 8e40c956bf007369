"""Sample-rate conversion for speech, whole or in pieces.

Linear interpolation, with a moving average over ``round(rate / target)`` samples first
when going down (a cheap low-pass; speech is fine with it). :class:`StreamResampler`
takes a long recording a piece at a time, keeping only the few samples the next output
needs, so a file is converted without holding it whole at its own rate; the pieces it
gives, joined, are what :func:`resample` gives for the whole (up to float rounding).
"""

from __future__ import annotations

import numpy as np


class StreamResampler:
    """``rate`` Hz in, ``target`` Hz out (both positive): :meth:`feed` pieces of float32
    mono samples in order, then call :meth:`end` once for the last outputs."""

    def __init__(self, rate: int, target: int) -> None:
        if rate <= 0 or target <= 0:
            raise ValueError(f"sample rates must be positive, not {rate} and {target}")
        self.same = rate == target  # then what comes in goes out as it is
        self.step = rate / target  # input samples per output sample
        self.ratio = target / rate
        width = max(1, round(rate / target)) if rate > target else 1
        self._kernel = np.full(width, 1.0 / width, np.float32) if width > 1 else None
        # a filtered sample averages this many input samples before it and after it
        self._before, self._after = width // 2, (width - 1) // 2
        self._raw = np.zeros(0, np.float32)  # the input from index self._base on
        self._base = 0
        self._total = 0  # input samples fed
        self._given = 0  # output samples given

    def feed(self, samples: np.ndarray) -> np.ndarray:
        """The output samples that ``samples`` (after all fed before) complete."""
        samples = np.asarray(samples, np.float32).reshape(-1)
        if self.same or samples.size == 0:
            return samples
        self._raw = np.concatenate([self._raw, samples])
        self._total += samples.size
        # an output needs the filtered sample at its position and the one after it, and no
        # more outputs than the whole would have (its count rounds down)
        ready = self._total - self._after - 1  # the last filtered index computable now
        count = min(round(self._total * self.ratio), int(max(0, ready) / self.step) + 2)
        positions = np.arange(self._given, max(self._given, count), dtype=np.float64) * self.step
        return self._give(positions[positions < ready])

    def end(self) -> np.ndarray:
        """The last output samples (the input ends here; beyond it, its last value)."""
        if self.same or self._total == 0:
            return np.zeros(0, np.float32)
        count = max(1, round(self._total * self.ratio))
        return self._give(np.arange(self._given, count, dtype=np.float64) * self.step)

    def _give(self, positions: np.ndarray) -> np.ndarray:
        if positions.size == 0:
            return np.zeros(0, np.float32)
        low = int(positions[0])
        high = min(int(positions[-1]) + 1, self._total - 1)
        filtered = self._filtered(low, high)
        out = np.interp(positions - low, np.arange(filtered.size), filtered)
        self._given += positions.size
        keep = max(self._base, int(self._given * self.step) - self._before)
        self._raw, self._base = self._raw[keep - self._base:], keep
        return out.astype(np.float32)

    def _filtered(self, low: int, high: int) -> np.ndarray:
        """The low-passed input at indices ``low..high`` (zeros outside the input)."""
        start, stop = low - self._before, high + self._after + 1
        piece = self._raw[max(0, start) - self._base: min(stop, self._total) - self._base]
        if self._kernel is None:
            return piece
        piece = np.concatenate([np.zeros(max(0, -start), np.float32), piece,
                                np.zeros(max(0, stop - self._total), np.float32)])
        return np.convolve(piece, self._kernel, "valid")


def resample(samples: np.ndarray, rate: int, target: int) -> np.ndarray:
    """``samples`` (float32 mono at ``rate`` Hz) at ``target`` Hz."""
    samples = np.asarray(samples, dtype=np.float32)
    if rate == target or samples.size == 0:
        return samples
    stream = StreamResampler(rate, target)
    return np.concatenate([stream.feed(samples), stream.end()])
