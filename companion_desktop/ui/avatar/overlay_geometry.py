"""Where the overlay sits: remembered per screen arrangement, always reachable.

A screen arrangement is the set of screen geometries (a laptop alone, the laptop
plus a monitor, ...); the overlay keeps one position for each, so plugging a
monitor in and out brings her back where she was on that setup. A position that
would leave her mostly off every screen is pulled back onto the nearest one.

Her picture has device pixels (the widget size times the screen's scale, 1.25 or 1.5 on
many laptops); ``fit_mask`` brings its shape back to widget pixels for click-through.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QRect, QSize
from PySide6.QtGui import QBitmap, QImage, QRegion

MIN_VISIBLE = 0.5  # at least half of her window must be on a screen


def arrangement_key(screens: list[QRect]) -> str:
    """A stable key for a set of screen geometries, e.g. ``0,0,1920x1080|1920,0,2560x1440``."""
    parts = sorted(f"{r.x()},{r.y()},{r.width()}x{r.height()}" for r in screens)
    return "|".join(parts)


def visible_fraction(rect: QRect, screens: list[QRect]) -> float:
    """The share of ``rect`` that lies on some screen (overlaps counted once per screen)."""
    area = rect.width() * rect.height()
    if area <= 0:
        return 0.0
    shown = 0
    for screen in screens:
        part = rect.intersected(screen)
        shown += max(0, part.width()) * max(0, part.height())
    return min(1.0, shown / area)


def bring_back(rect: QRect, screens: list[QRect]) -> QPoint:
    """A top-left for ``rect`` that keeps it on a screen: unchanged when mostly visible."""
    if not screens or visible_fraction(rect, screens) >= MIN_VISIBLE:
        return rect.topLeft()
    centre = rect.center()

    def distance(screen: QRect) -> int:
        dx = max(screen.left() - centre.x(), 0, centre.x() - screen.right())
        dy = max(screen.top() - centre.y(), 0, centre.y() - screen.bottom())
        return dx * dx + dy * dy

    target = min(screens, key=distance)
    x = min(max(rect.x(), target.left()), target.right() - rect.width() + 1)
    y = min(max(rect.y(), target.top()), target.bottom() - rect.height() + 1)
    return QPoint(max(x, target.left()), max(y, target.top()))


def default_position(size: tuple[int, int], screen: QRect, margin: int = 24) -> QPoint:
    """Bottom-right corner of ``screen`` (the usual home of a desktop companion)."""
    width, height = size
    return QPoint(screen.right() - width - margin + 1, screen.bottom() - height - margin + 1)


def fit_mask(mask: np.ndarray, height: int, width: int) -> np.ndarray:
    """``mask`` (a 2-D array in device pixels) resampled to ``(height, width)`` widget pixels,
    nearest pixel at the fractional scale: the same place at any scale, 125%/150%/175%
    included. At 100% the mask itself (a view of it, not a copy)."""
    if mask.shape[:2] == (height, width):
        return mask
    rows = _nearest(mask.shape[0], height)
    cols = _nearest(mask.shape[1], width)
    return mask[rows[:, None], cols[None, :]]


def _nearest(source: int, target: int) -> np.ndarray:
    """For each of ``target`` cells, the index of the ``source`` cell under its centre."""
    target = max(1, target)
    centres = (np.arange(target) + 0.5) * (source / target)
    return np.minimum(centres.astype(np.intp), max(0, source - 1))


def mask_region(alpha: np.ndarray) -> QRegion:
    """A region covering the True pixels of a (height, width) bool array (the overlay's
    click-through shape)."""
    height, width = alpha.shape
    packed = np.packbits(alpha.astype(bool), axis=1, bitorder="little")
    bitmap = QBitmap.fromData(QSize(width, height), packed.tobytes(), QImage.Format.Format_MonoLSB)
    return QRegion(bitmap)
