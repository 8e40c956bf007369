"""Streaks in local calendar days; days known; clocks set backwards."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from companion_desktop.engine.streak import Streak, days_known, update_streak


@pytest.mark.parametrize(
    "before,today,after",
    [
        (Streak(0, 0, None), date(2026, 3, 10), Streak(1, 1, "2026-03-10")),
        (Streak(3, 5, "2026-03-10"), date(2026, 3, 10), Streak(3, 5, "2026-03-10")),
        (Streak(3, 5, "2026-03-10"), date(2026, 3, 11), Streak(4, 5, "2026-03-11")),
        (Streak(5, 5, "2026-03-10"), date(2026, 3, 11), Streak(6, 6, "2026-03-11")),
        (Streak(5, 7, "2026-03-10"), date(2026, 3, 12), Streak(1, 7, "2026-03-12")),
        # clock set backwards: nothing resets, the last date does not move back
        (Streak(5, 7, "2026-03-10"), date(2026, 3, 9), Streak(5, 7, "2026-03-10")),
        (Streak(5, 7, "2026-03-10"), date(2025, 1, 1), Streak(5, 7, "2026-03-10")),
        # month and year edges
        (Streak(2, 2, "2026-02-28"), date(2026, 3, 1), Streak(3, 3, "2026-03-01")),
        (Streak(9, 9, "2026-12-31"), date(2027, 1, 1), Streak(10, 10, "2027-01-01")),
    ],
)
def test_update_streak(before, today, after):
    assert update_streak(before, today) == after


def test_local_midnight_decides_the_day():
    tokyo = timezone(timedelta(hours=9))
    # 23:30 UTC on the 10th is 08:30 on the 11th in Tokyo: the next local day
    late = datetime(2026, 3, 10, 23, 30, tzinfo=timezone.utc).astimezone(tokyo)
    assert update_streak(Streak(1, 1, "2026-03-10"), late.date()) == Streak(2, 2, "2026-03-11")


@pytest.mark.parametrize(
    "first,now,previous,expected",
    [
        ("2026-03-10T09:00+02:00", "2026-03-10T23:59+02:00", 0, 0),
        ("2026-03-10T23:59+02:00", "2026-03-11T00:01+02:00", 0, 1),
        ("2026-03-10T09:00+02:00", "2026-04-09T09:00+02:00", 0, 30),
        # first met stored in UTC, counted in the user's zone
        ("2026-03-10T22:30+00:00", "2026-03-11T01:00+02:00", 0, 0),
        # clock backwards: never lower than before
        ("2026-03-10T09:00+02:00", "2026-03-01T09:00+02:00", 4, 4),
    ],
)
def test_days_known(first, now, previous, expected):
    got = days_known(datetime.fromisoformat(first), datetime.fromisoformat(now), previous)
    assert got == expected
