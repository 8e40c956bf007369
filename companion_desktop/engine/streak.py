"""Daily streaks and days known, in local calendar days.

The caller passes ``now`` already in the user's local time zone (its offset
decides which calendar day it is). A clock set backwards never resets a streak
and never lowers days known.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime


@dataclass(frozen=True)
class Streak:
    current: int
    longest: int
    last_date: str | None  # YYYY-MM-DD


def update_streak(streak: Streak, today: date) -> Streak:
    """The streak after an interaction on local day ``today``.

    Same day: unchanged. The next day: +1. A later day: back to 1. An earlier day
    than the last one (clock set backwards): unchanged.
    """
    if streak.last_date is None:
        return Streak(1, max(streak.longest, 1), today.isoformat())
    last = date.fromisoformat(streak.last_date)
    gap = (today - last).days
    if gap <= 0:
        return streak
    current = streak.current + 1 if gap == 1 else 1
    return Streak(current, max(streak.longest, current), today.isoformat())


def days_known(first_met: datetime, now: datetime, previous: int = 0) -> int:
    """Local calendar days since ``first_met`` (0 on the first day), never below ``previous``."""
    tz = now.tzinfo
    first_day = first_met.astimezone(tz).date() if tz else first_met.date()
    return max(previous, (now.date() - first_day).days)
