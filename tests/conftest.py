"""Shared fixtures: a fixed clock and fresh data folders."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from companion_desktop.engine.character import CharacterState, new_character
from tests.skip_guard import (  # noqa: F401 - hooks: any unexpected skip fails the run
    pytest_collectreport,
    pytest_runtest_logreport,
    pytest_sessionfinish,
    pytest_terminal_summary,
)

#: A fixed local time zone for engine tests (UTC+2, no DST), so day edges are explicit.
LOCAL = timezone(timedelta(hours=2))
T0 = datetime(2026, 3, 10, 12, 0, tzinfo=LOCAL)

SHARED_ASSETS = Path(__file__).resolve().parents[2] / "shared" / "assets"


@pytest.fixture(autouse=True)
def _natural_voice_folder_kept() -> Iterator[None]:
    """Her natural voice's data folder is the app's (a module setting): a test that sets
    it (Settings > Voice does) leaves no folder of its own behind for the next test."""
    from companion_desktop.llm.neural_voice import speaking

    saved = speaking.home()
    yield
    with speaking._lock:
        speaking._home = saved


@pytest.fixture
def t0() -> datetime:
    return T0


@pytest.fixture
def fresh() -> CharacterState:
    return new_character(T0)


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[ZoneInfo]:
    """The system's time zone is Europe/Berlin (daylight saving time) for one test."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield ZoneInfo("Europe/Berlin")
    monkeypatch.undo()
    time.tzset()


def pytest_configure(config: pytest.Config) -> None:
    """Qt widgets need a platform: the real display when there is one, else offscreen."""
    import os

    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
