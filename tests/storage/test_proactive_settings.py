"""ProactiveSettings: defaults, bounds, and a stored section that no longer validates."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from companion_desktop.engine.window_context import DEFAULT_DENY
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import SettingsRow
from companion_desktop.storage.settings import ProactiveSettings, load_settings, save_settings


def test_defaults_bounds_and_fallback(tmp_path):
    settings = ProactiveSettings()
    assert (settings.do_not_disturb, settings.speak_first,
            settings.window_awareness) == (False, None, False)
    assert (settings.absence_hours, settings.silence_minutes, settings.daily_cap,
            settings.gap_minutes) == (2.0, 45, 3, 90)
    assert settings.window_deny == list(DEFAULT_DENY)
    for field, value in (("daily_cap", 0), ("daily_cap", 13), ("gap_minutes", 5),
                         ("silence_minutes", 481), ("absence_hours", 0.1)):
        with pytest.raises(ValidationError):
            setattr(ProactiveSettings(), field, value)
    with pytest.raises(ValidationError):
        ProactiveSettings(window_deny=["x" * 81])
    with Database.open(tmp_path / "data") as db:
        with db.session() as session:
            save_settings(session, ProactiveSettings(daily_cap=5, speak_first=False))
        with db.read_session() as session:
            stored = load_settings(session, ProactiveSettings)
        assert stored.daily_cap == 5 and stored.speak_first is False
        with db.session() as session:
            session.get(SettingsRow, "proactive").data = {"daily_cap": "lots"}
        with db.read_session() as session:
            assert load_settings(session, ProactiveSettings) == ProactiveSettings()
