"""Small statistics for the bench figures."""

from __future__ import annotations


def percentile(values: list[float], pct: float) -> float:
    """The ``pct`` (0-100) percentile of ``values``, nearest rank (no interpolation)."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]
