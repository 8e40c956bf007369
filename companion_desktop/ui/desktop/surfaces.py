"""Where she can stand: window tops and the floor of the work area (pure: no Qt, no X).

Rectangles are ``Box(left, top, right, bottom)`` with ``right``/``bottom`` exclusive, in the
overlay's (logical) pixels. Windows come top-most first. A window's top edge is a surface
where no window above it covers that row; she stands on the nearest surface below her feet
whose visible span holds her feet, or else on the bottom of her screen's work area.

The fall is an ease-in (it speeds up like a real fall) that ends exactly on the surface,
0.3 to 0.6 seconds depending on the height, and a small bounce when she lands.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

MIN_SPAN = 40  # a window top narrower than this (where visible) is no place to stand
TOLERANCE = 2  # a surface this far above her feet still counts as "below" (rounding)
FALL_MIN_S = 0.3
FALL_MAX_S = 0.6
FALL_REF_PX = 300  # a fall this high takes FALL_MIN_S; higher ones take longer (up to max)
SNAP_PX = 3  # closer than this to the surface: no fall, she is simply put there
BOUNCE_S = 0.18
BOUNCE_MAX_PX = 8


class Box(NamedTuple):
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom


@dataclass(frozen=True)
class Win:
    """A visible window (its outer frame); ``wid`` identifies it across updates."""

    wid: int
    box: Box


@dataclass(frozen=True)
class Surface:
    """A place to stand: the row ``y`` from ``left`` to ``right`` (exclusive); ``wid`` is the
    window whose top it is, None for the floor of the work area."""

    y: int
    left: int
    right: int
    wid: int | None = None

    def holds(self, x: float) -> bool:
        return self.left <= x < self.right


def subtract(spans: list[tuple[int, int]], cut: tuple[int, int]) -> list[tuple[int, int]]:
    """``spans`` (half-open intervals) less ``cut``."""
    out = []
    for left, right in spans:
        if cut[1] <= left or cut[0] >= right:
            out.append((left, right))
            continue
        if cut[0] > left:
            out.append((left, cut[0]))
        if cut[1] < right:
            out.append((cut[1], right))
    return out


def top_spans(windows: list[Win], index: int, area: Box) -> list[tuple[int, int]]:
    """The visible parts of window ``index``'s top edge inside ``area``: the windows listed
    before it (above it) that cover that row are cut out."""
    box = windows[index].box
    y = box.top
    spans = [(max(box.left, area.left), min(box.right, area.right))]
    spans = [s for s in spans if s[0] < s[1]]
    for above in windows[:index]:
        if above.box.top <= y < above.box.bottom:
            spans = subtract(spans, (above.box.left, above.box.right))
    return [s for s in spans if s[1] - s[0] >= MIN_SPAN]


def surfaces(windows: list[Win], area: Box, headroom: int = 0,
             x_range: tuple[int, int] | None = None) -> list[Surface]:
    """Every window-top surface inside ``area`` (with ``headroom`` pixels free above it, so
    she is not pushed off the top of the screen), optionally only those meeting ``x_range``;
    the floor of the work area comes last."""
    found = []
    for index, win in enumerate(windows):
        y = win.box.top
        if not area.top + headroom <= y < area.bottom:
            continue
        for left, right in top_spans(windows, index, area):
            if x_range is None or (left < x_range[1] and right > x_range[0]):
                found.append(Surface(y, left, right, win.wid))
    found.append(Surface(area.bottom, area.left, area.right, None))
    return found


def surface_below(x: float, feet_y: float, windows: list[Win], area: Box,
                  headroom: int = 0) -> Surface:
    """The nearest surface at or below the feet at (``x``, ``feet_y``) that holds ``x``;
    the floor of the work area when no window top does."""
    candidates = [s for s in surfaces(windows, area, headroom)
                  if s.holds(x) and s.y >= feet_y - TOLERANCE]
    return min(candidates, key=lambda s: (s.y, s.wid is None))


def still_standing(surface: Surface, x: float, windows: list[Win], area: Box,
                   headroom: int = 0) -> Surface | None:
    """Where the window she stands on is now, if she can stay on it: the same window's top,
    still visible under her feet (moved along with it: the caller adds the window's move to
    ``x`` first); None when it closed, was minimised, covered or left the work area."""
    if surface.wid is None:
        return None
    for s in surfaces(windows, area, headroom):
        if s.wid == surface.wid and s.holds(x):
            return s
    return None


def window_box(windows: list[Win], wid: int | None) -> Box | None:
    for win in windows:
        if win.wid == wid:
            return win.box
    return None


# ------------------------------------------------------------------ screens
def distance_sq(area: Box, x: float, y: float) -> float:
    dx = max(area.left - x, 0, x - (area.right - 1))
    dy = max(area.top - y, 0, y - (area.bottom - 1))
    return dx * dx + dy * dy


def area_for(x: float, y: float, areas: list[Box]) -> Box | None:
    """The work area holding the point (a point on a floor, one pixel below the area, counts
    for that area), or the nearest one (a screen that went away)."""
    if not areas:
        return None
    for area in areas:
        if area.left <= x < area.right and area.top <= y <= area.bottom:
            return area
    return min(areas, key=lambda a: distance_sq(a, x, y))


def keep_inside(x: float, y: float, area: Box, half_width: int, headroom: int) -> tuple[int, int]:
    """Feet at (``x``, ``y``) moved the least to keep her whole width and ``headroom`` inside
    ``area`` (she stays on one screen)."""
    low, high = area.left + half_width, area.right - half_width
    x = (area.left + area.right) / 2 if low > high else min(max(x, low), high)
    top = min(area.top + headroom, area.bottom)
    return round(x), round(min(max(y, top), area.bottom))


# ------------------------------------------------------------------ the fall
def fall_duration(height: float) -> float:
    """Seconds to fall ``height`` pixels: longer for a longer fall, 0.3 to 0.6 s."""
    if height <= SNAP_PX:
        return 0.0
    return min(FALL_MAX_S, max(FALL_MIN_S, FALL_MIN_S * math.sqrt(height / FALL_REF_PX)))


def fall_y(start: float, end: float, elapsed: float) -> float:
    """Her feet's height ``elapsed`` seconds into a fall from ``start`` to ``end``: an
    ease-in (quadratic, like gravity), exactly ``end`` once the fall is over."""
    duration = fall_duration(abs(end - start))
    if duration <= 0 or elapsed >= duration:
        return end
    p = max(0.0, elapsed) / duration
    return start + (end - start) * p * p


def bounce(height: float, elapsed: float) -> int:
    """Pixels she is lifted ``elapsed`` seconds after landing from ``height``: a small hop
    that dies out in BOUNCE_S (0 for a short drop)."""
    if elapsed < 0 or elapsed >= BOUNCE_S or height < 40:
        return 0
    lift = min(BOUNCE_MAX_PX, height * 0.03)
    p = elapsed / BOUNCE_S
    return round(lift * math.sin(math.pi * p) * (1 - p))
