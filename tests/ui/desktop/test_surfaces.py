"""Where she can stand, without X: window tops cut by the windows above them, the nearest
surface below her feet, the work-area floor, screens coming and going, and the fall."""

from __future__ import annotations

from itertools import pairwise

import pytest

from companion_desktop.ui.desktop.surfaces import (
    FALL_MAX_S,
    FALL_MIN_S,
    Box,
    Surface,
    Win,
    area_for,
    bounce,
    fall_duration,
    fall_y,
    keep_inside,
    still_standing,
    surface_below,
    surfaces,
    top_spans,
)

AREA = Box(0, 0, 1600, 960)  # a 1600x1000 screen with a 40 px panel at the bottom


def test_a_window_top_is_cut_where_a_window_above_covers_it():
    front = Win(1, Box(300, 200, 500, 600))
    back = Win(2, Box(100, 400, 900, 800))
    spans = top_spans([front, back], 1, AREA)
    assert spans == [(100, 300), (500, 900)]
    # the front one covers nothing of its own top
    assert top_spans([front, back], 0, AREA) == [(300, 500)]


def test_a_window_below_does_not_cut_the_top_of_one_above():
    front = Win(1, Box(100, 400, 900, 800))
    back = Win(2, Box(300, 200, 500, 600))  # its top row is not covered by the front one
    assert top_spans([front, back], 1, AREA) == [(300, 500)]


def test_slivers_too_narrow_to_stand_on_are_dropped():
    front = Win(1, Box(110, 300, 890, 700))
    back = Win(2, Box(100, 400, 900, 800))
    assert top_spans([front, back], 1, AREA) == []


def test_nearest_surface_below_the_feet():
    low = Win(1, Box(0, 700, 800, 900))
    high = Win(2, Box(200, 300, 600, 500))
    wins = [high, low]
    assert surface_below(400, 100, wins, AREA) == Surface(300, 200, 600, 2)
    # below the high window's top already: the next one down
    assert surface_below(400, 350, wins, AREA) == Surface(700, 0, 800, 1)
    # beside every window: the floor of the work area, above the panel
    assert surface_below(1200, 100, wins, AREA) == Surface(960, 0, 1600, None)


def test_a_covered_spot_is_no_surface():
    back = Win(1, Box(0, 500, 1000, 900))
    cover = Win(2, Box(300, 400, 700, 800))  # above it in the stacking order
    assert surface_below(500, 100, [cover, back], AREA).wid == 2
    assert surface_below(500, 450, [cover, back], AREA).wid is None  # the floor
    assert surface_below(100, 450, [cover, back], AREA).wid == 1


def test_window_tops_need_headroom_and_the_work_area():
    maximised = Win(1, Box(0, 0, 1600, 960))
    off_screen = Win(2, Box(0, 1200, 1600, 1500))
    assert surfaces([maximised, off_screen], AREA, headroom=200) == [Surface(960, 0, 1600)]
    assert surfaces([maximised], AREA, headroom=0)[0].wid == 1


def test_surfaces_for_an_x_range():
    wins = [Win(1, Box(0, 300, 400, 500)), Win(2, Box(800, 300, 1200, 500))]
    found = surfaces(wins, AREA, x_range=(900, 1000))
    assert [s.wid for s in found] == [2, None]


def test_still_standing_follows_the_window_and_lets_go_when_covered_or_gone():
    on = Surface(300, 200, 600, 7)
    moved = [Win(7, Box(260, 350, 660, 600))]
    assert still_standing(on, 460, moved, AREA) == Surface(350, 260, 660, 7)
    covered = [Win(8, Box(0, 0, 1600, 900)), Win(7, Box(260, 350, 660, 600))]
    assert still_standing(on, 460, covered, AREA) is None
    assert still_standing(on, 460, [], AREA) is None


def test_screens_dragged_to_and_removed():
    left, right = Box(0, 0, 1600, 960), Box(1600, 0, 3520, 1040)
    assert area_for(2000, 500, [left, right]) == right  # dragged onto the second screen
    assert area_for(2000, 1040, [left, right]) == right  # on its floor
    assert area_for(2000, 500, [left]) == left  # the second screen went away
    x, y = keep_inside(2000, 500, left, 170, 300)
    assert (x, y) == (1600 - 170, 500)
    assert surface_below(x, y, [], left) == Surface(960, 0, 1600)
    assert area_for(0, 0, []) is None


def test_keep_inside_keeps_her_whole_width_and_headroom():
    assert keep_inside(10, 10, AREA, 170, 300) == (170, 300)
    assert keep_inside(800, 2000, AREA, 170, 300) == (800, 960)
    assert keep_inside(800, 500, Box(0, 0, 200, 960), 170, 0)[0] == 100  # narrower than her


@pytest.mark.parametrize("height", [4, 50, 300, 900, 5000])
def test_the_fall_speeds_up_and_ends_exactly_on_the_surface(height):
    start, end = 100.0, 100.0 + height
    duration = fall_duration(height)
    assert FALL_MIN_S <= duration <= FALL_MAX_S
    steps = [fall_y(start, end, duration * i / 50) for i in range(51)]
    assert steps[0] == start and steps[-1] == end
    gaps = [b - a for a, b in pairwise(steps)]
    assert all(g >= 0 for g in gaps)  # never back up
    assert gaps[-1] > gaps[0]  # ease-in: faster at the end
    assert fall_y(start, end, duration + 5) == end


def test_longer_falls_take_longer_and_tiny_ones_none():
    assert fall_duration(2) == 0 and fall_y(100, 102, 0) == 102
    assert fall_duration(100) <= fall_duration(600) <= fall_duration(2000) == FALL_MAX_S


def test_the_landing_bounce_is_small_and_dies_out():
    lifts = [bounce(600, t / 100) for t in range(0, 30)]
    assert max(lifts) > 0 and max(lifts) <= 8
    assert lifts[0] == 0 and bounce(600, 0.5) == 0 and bounce(600, -0.1) == 0
    assert bounce(20, 0.05) == 0  # a short drop: no bounce
