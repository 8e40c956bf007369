"""Overlay placement: per-arrangement keys and bringing her back on screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect

from companion_desktop.ui.overlay_geometry import (
    arrangement_key,
    bring_back,
    default_position,
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
