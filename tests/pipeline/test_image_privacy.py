"""The first-photo privacy notice, recorded in a real database."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from companion_desktop.llm.registry import ProviderSpec, register, unregister
from companion_desktop.pipeline.image_privacy import MAX_REMEMBERED, notice_text, photo_notice
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import ImageSettings, load_settings, save_settings


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database.open(tmp_path / "data")
    yield database
    database.close()


def noticed(db: Database) -> list[str]:
    with db.read_session() as session:
        return load_settings(session, ImageSettings).privacy_noticed


def test_cloud_provider_notice_once(db: Database) -> None:
    first = photo_notice(db, "anthropic", None)
    assert first == (
        "Photos you show her are sent to Anthropic for that one reply, "
        "and kept only on this computer afterwards."
    )
    assert photo_notice(db, "anthropic", None) is None
    assert noticed(db) == ["anthropic"]
    other = photo_notice(db, "openai", "https://api.openai.com/v1")
    assert other is not None and "sent to OpenAI (api.openai.com)" in other
    assert noticed(db) == ["anthropic", "openai"]


def test_local_provider_notice_once(db: Database) -> None:
    assert photo_notice(db, "ollama", None) == (
        "This photo never leaves your computer: Ollama runs here."
    )
    assert photo_notice(db, "ollama", None) is None
    text = photo_notice(db, "openai-compatible", "http://localhost:8080/v1")
    assert text == "This photo never leaves your computer: OpenAI-compatible server runs here."


def test_peek_does_not_mark(db: Database) -> None:
    assert photo_notice(db, "google", None, mark=False) is not None
    assert photo_notice(db, "google", None, mark=False) is not None
    assert noticed(db) == []
    assert photo_notice(db, "google", None) is not None
    assert photo_notice(db, "google", None, mark=False) is None


def test_notice_is_persisted_in_the_settings_row(tmp_path: Path) -> None:
    with Database.open(tmp_path / "data") as first:
        assert photo_notice(first, "xai", None) is not None
        path = first.path
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT data FROM settings WHERE section = 'images'").fetchone()
    assert row is not None and "xai" in row[0]
    with Database.open(tmp_path / "data") as second:
        assert photo_notice(second, "xai", None) is None


@pytest.mark.parametrize(
    "url,where",
    [
        ("http://127.0.0.1:1234/v1", "here"),
        ("http://[::1]:8000/v1", "here"),
        ("http://0.0.0.0:8000/v1", "here"),
        ("http://192.168.1.20:11434/v1", "network"),
        ("http://10.0.0.5/v1", "network"),
        ("http://gpu-box:8080/v1", "network"),
        ("http://studio.local:1234/v1", "network"),
        ("http://[fe80::1]:8080/v1", "network"),
        ("https://llm.example.com/v1", "cloud"),
        ("http://8.8.8.8/v1", "cloud"),
    ],
)
def test_where_the_server_runs_decides_the_wording(url: str, where: str) -> None:
    text = notice_text("openai-compatible", url)
    expected = {
        "here": "never leaves your computer",
        "network": "stays on your own network",
        "cloud": "are sent to OpenAI-compatible server (",
    }[where]
    assert expected in text


def test_local_preset_pointed_at_a_remote_server_says_so() -> None:
    text = notice_text("ollama", "https://ollama.example.com/v1")
    assert text.startswith("Photos you show her are sent to Ollama (ollama.example.com)")


def test_registered_provider_name_and_unknown_ids() -> None:
    register(ProviderSpec("scripted-vision", "Scripted Vision", "openai", "", False))
    try:
        assert "Scripted Vision (" in notice_text("scripted-vision", "https://x.example/v1")
    finally:
        unregister("scripted-vision")
    assert "sent to mystery (" in notice_text("mystery", "https://api.mystery.ai")
    assert "your model provider" in notice_text("", None)


def test_remembered_list_is_bounded(db: Database) -> None:
    with db.session() as session:
        save_settings(session, ImageSettings(privacy_noticed=[f"p{i}" for i in range(150)]))
    assert photo_notice(db, "anthropic", None) is not None
    kept = noticed(db)
    assert len(kept) == MAX_REMEMBERED and kept[-1] == "anthropic"
    assert photo_notice(db, "anthropic", None) is None


def test_broken_settings_row_still_gives_the_notice(db: Database) -> None:
    with closing(sqlite3.connect(db.path)) as conn, conn:
        conn.execute(
            "INSERT INTO settings (section, data, updated_at) VALUES "
            "('images', '{\"privacy_noticed\": 5}', '2024-01-01T00:00:00.000000+00:00')"
        )
    assert photo_notice(db, "openai", None) is not None
    assert noticed(db) == ["openai"]
