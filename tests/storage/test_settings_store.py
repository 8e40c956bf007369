"""Typed settings sections: defaults, round trip, bad stored data, range checks."""

from __future__ import annotations

import logging

import pytest
from pydantic import ValidationError
from sqlalchemy import text

from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    DisplaySettings,
    LlmSettings,
    RelationshipSettings,
    SettingsSection,
    load_settings,
    save_settings,
)

SECTIONS = (RelationshipSettings, DisplaySettings, LlmSettings)


def test_defaults_when_nothing_is_stored(db: Database) -> None:
    with db.read_session() as session:
        assert load_settings(session, RelationshipSettings).tracking_enabled is True
        display = load_settings(session, DisplaySettings)
        llm = load_settings(session, LlmSettings)
    assert display.mood_expressions and display.personalized_moments
    assert (llm.provider, llm.base_url, llm.model) == (None, None, None)
    assert (llm.context_window, llm.context_scaling) == (8192, True)
    assert [cls.SECTION for cls in SECTIONS] == ["relationship", "display", "llm"]


def test_round_trip(db: Database) -> None:
    llm = LlmSettings(
        provider="ollama", base_url="http://127.0.0.1:11434", model="llama3", context_window=32768
    )
    with db.session() as session:
        save_settings(session, llm)
        save_settings(session, DisplaySettings(mood_expressions=False))
        save_settings(session, RelationshipSettings(tracking_enabled=False))
    with db.session() as session:
        assert load_settings(session, LlmSettings) == llm
        assert load_settings(session, DisplaySettings) == DisplaySettings(mood_expressions=False)
        assert load_settings(session, RelationshipSettings).tracking_enabled is False
        save_settings(session, llm.model_copy(update={"context_scaling": False}))
    with db.read_session() as session:
        assert load_settings(session, LlmSettings).context_scaling is False


@pytest.mark.parametrize(
    "stored",
    ['{not json', '[1, 2]', 'null', '{"context_window": "big"}', '{"context_window": 10}'],
)
def test_invalid_stored_data_gives_defaults_and_a_warning(
    db: Database, stored: str, caplog: pytest.LogCaptureFixture
) -> None:
    with db.session() as session:
        save_settings(session, LlmSettings(model="kept?"))
        session.execute(text("UPDATE settings SET data = :d WHERE section = 'llm'"), {"d": stored})
    with caplog.at_level(logging.WARNING), db.read_session() as session:
        assert load_settings(session, LlmSettings) == LlmSettings()
    assert any("llm" in record.getMessage() for record in caplog.records)


def test_unknown_stored_keys_are_ignored(db: Database) -> None:
    with db.session() as session:
        save_settings(session, DisplaySettings())
        session.execute(
            text("UPDATE settings SET data = :d WHERE section = 'display'"),
            {"d": '{"mood_expressions": false, "from_the_future": 1}'},
        )
    with db.read_session() as session:
        assert load_settings(session, DisplaySettings) == DisplaySettings(mood_expressions=False)


@pytest.mark.parametrize("value", [1023, 131073, 0, -5])
def test_out_of_range_context_window_is_rejected(db: Database, value: int) -> None:
    with pytest.raises(ValidationError):
        LlmSettings(context_window=value)
    with pytest.raises(ValidationError):
        LlmSettings().context_window = value
    sneaked = LlmSettings.model_construct(context_window=value)
    with pytest.raises(ValidationError), db.session() as session:
        save_settings(session, sneaked)
    with db.read_session() as session:
        assert load_settings(session, LlmSettings) == LlmSettings()


def test_limits_are_accepted() -> None:
    assert LlmSettings(context_window=1024).context_window == 1024
    assert LlmSettings(context_window=131072).context_window == 131072


def test_no_section_has_a_secret_field() -> None:
    for cls in (*SECTIONS, SettingsSection):
        for name in cls.model_fields:
            assert not any(word in name for word in ("key", "secret", "token", "password"))
