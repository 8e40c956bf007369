"""Overlay placement: per-arrangement keys and bringing her back on screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QRect

from companion_desktop.ui.avatar.overlay_geometry import (
    arrangement_key,
    bring_back,
    default_position,
    fit_mask,
    visible_fraction,
)

LAPTOP = QRect(0, 0, 1920, 1080)
MONITOR = QRect(1920, 0, 2560, 1440)


def test_key_is_order_independent_and_distinguishes_setups():
    assert arrangement_key([LAPTOP, MONITOR]) == arrangement_key([MONITOR, LAPTOP])
    assert arrangement_key([LAPTOP]) != arrangement_key([LAPTOP, MONITOR])


@pytest.mark.parametrize(
    "rect,fraction",
    [
        (QRect(100, 100, 300, 400), 1.0),
        (QRect(1770, 100, 300, 400), 1.0),  # across two screens
        (QRect(-150, 100, 300, 400), 0.5),
        (QRect(5000, 100, 300, 400), 0.0),
    ],
)
def test_visible_fraction(rect, fraction):
    assert visible_fraction(rect, [LAPTOP, MONITOR]) == pytest.approx(fraction)


def test_mostly_visible_window_stays_put():
    rect = QRect(-100, 200, 300, 400)
    assert bring_back(rect, [LAPTOP]) == QPoint(-100, 200)


def test_window_left_on_an_unplugged_monitor_comes_back():
    rect = QRect(3000, 800, 300, 400)  # where the monitor used to be
    point = bring_back(rect, [LAPTOP])
    assert LAPTOP.contains(QRect(point, rect.size()))
    assert point == QPoint(1920 - 300, 1080 - 400)


def test_window_above_the_top_comes_down():
    point = bring_back(QRect(500, -390, 300, 400), [LAPTOP])
    assert point == QPoint(500, 0)


def test_default_position_is_bottom_right():
    assert default_position((300, 400), LAPTOP) == QPoint(1920 - 300 - 24, 1080 - 400 - 24)


def test_fit_mask_keeps_the_shape_at_fractional_scales():
    picture = np.zeros((450, 300), bool)  # a 200x300 widget at 150%
    picture[:, 150:] = True  # she fills the right half
    mask = fit_mask(picture, 300, 200)
    assert mask.shape == (300, 200)
    assert not mask[:, :100].any() and mask[:, 100:].all()


def test_fit_mask_at_100_percent_is_the_picture_itself():
    rng = np.random.default_rng(7)
    picture = rng.random((486, 340)) > 0.5
    assert fit_mask(picture, 486, 340) is picture  # no resampling, no copy
    # the resampling, one cell per cell, picks every cell itself: the same mask
    from companion_desktop.ui.avatar.overlay_geometry import _nearest

    assert np.array_equal(_nearest(486, 486), np.arange(486))
    assert np.array_equal(_nearest(340, 340), np.arange(340))


SCALED_VIEW = """
import json, sys
import numpy as np
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.avatar.view import AvatarView
from companion_desktop.ui.avatar.overlay_geometry import mask_region
view = AvatarView(AvatarHost())
view.resize(200, 300)
width, height = view.picture_size()
pixels = np.zeros((height, width, 4), np.uint8)
pixels[:, width // 2:, 3] = 255  # she fills the right half of her picture
view.set_picture(pixels)
mask = view.alpha_mask()
rect = mask_region(mask).boundingRect()
print(json.dumps({"ratio": view.devicePixelRatioF(), "picture": [width, height],
                  "mask": list(mask.shape),
                  "rect": [rect.x(), rect.y(), rect.width(), rect.height()]}))
"""


@pytest.mark.qt
@pytest.mark.parametrize("scale", ["1.25", "1.5", "1.75"])
def test_click_through_mask_matches_the_widget_at_fractional_scaling(scale):
    """QT_SCALE_FACTOR must be set before Qt starts: a fresh process per scale."""
    env = {**os.environ, "QT_SCALE_FACTOR": scale}
    proc = subprocess.run([sys.executable, "-c", SCALED_VIEW], capture_output=True, text=True,
                          env=env, timeout=60, cwd=Path(__file__).resolve().parents[3], check=False)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["ratio"] == pytest.approx(float(scale))
    assert result["picture"] == [round(200 * float(scale)), round(300 * float(scale))]
    assert result["mask"] == [300, 200]  # widget pixels, whatever the scale
    assert result["rect"] == [100, 0, 100, 300]  # exactly her half: no more, no less


def ring(size: int, outer: float, inner: float) -> np.ndarray:
    """A (size, size) bool picture of a ring: True between the two radii (pixels)."""
    ys, xs = np.mgrid[0:size, 0:size]
    dist = np.hypot(ys - (size - 1) / 2, xs - (size - 1) / 2)
    return (dist <= outer) & (dist >= inner)


@pytest.mark.qt
@pytest.mark.parametrize("scale", [1.0, 1.5])
def test_click_through_region_follows_a_ring_outline(qapp, scale):
    """The region is her outline, not its bounding box: the hole of a ring lets clicks through."""
    from companion_desktop.ui.avatar.overlay_geometry import mask_region

    picture = ring(round(120 * scale), 55 * scale, 25 * scale)  # device pixels
    region = mask_region(fit_mask(picture, 120, 120))  # widget pixels
    assert region.boundingRect() == QRect(5, 5, 110, 110)
    assert not region.contains(QPoint(60, 60))  # the hole's centre
    # in the hole
    assert not region.contains(QPoint(60, 40)) and not region.contains(QPoint(75, 60))
    assert not region.contains(QPoint(8, 8))  # a corner of the bounding box, outside the ring
    assert region.contains(QPoint(60, 10)) and region.contains(QPoint(20, 60))  # on the ring
    assert region.contains(QPoint(60, 105)) and region.contains(QPoint(100, 60))
