"""Save file export and import: round trips, merging, the web app's files."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import companion_desktop
from companion_desktop.engine.character import new_character
from companion_desktop.engine.familiarity import Familiarity
from companion_desktop.storage import repository as repo
from companion_desktop.storage import savefile
from companion_desktop.storage.db import Database
from companion_desktop.storage.savefile import (
    build_save,
    fact_key,
    import_save,
    read_save_file,
    write_save_file,
)
from companion_desktop.storage.savefile_schema import parse_save


def _keys(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from _keys(item)


def _export(database: Database, path: Path, now: datetime) -> dict[str, Any]:
    summary = write_save_file(database, path, now)
    assert summary.path == path and summary.size_bytes == path.stat().st_size
    return json.loads(path.read_text(encoding="utf-8"))


def test_export_format(populated: Database, tmp_path: Path, now: datetime) -> None:
    data = _export(populated, tmp_path / "save.json", now)
    assert data["version"] == "2.0"
    assert data["appVersion"] == companion_desktop.__version__
    assert datetime.fromisoformat(data["exportedAt"]) == now
    body = data["data"]
    assert list(body) == [
        "character", "facts", "sessions", "conversationTurns", "completedEvents", "relationship",
    ]  # fmt: skip
    character = body["character"]
    assert character["mood"] == {
        "primary": "playful", "intensity": 66, "secondary": "curious", "causes": ["a joke", "tea"],
    }  # fmt: skip
    assert character["systemPrompt"] and character["relationshipStage"] == "close_friend"
    assert character["firstMet"].endswith("+00:00")
    assert "savedDatingSimStage" not in character  # optional and unset
    assert character["lastInteraction"] is not None and character["streakLastDate"] == "2024-04-30"
    assert body["facts"][0]["referenceCount"] == 0
    assert body["sessions"][0]["keyTopics"] == ["tea", "rain"]
    assert body["conversationTurns"][0]["sessionId"] == body["sessions"][0]["id"]
    assert "sessionId" not in body["conversationTurns"][3]
    assert body["completedEvents"][1]["stateChanges"] == {"affection": 5}
    assert body["relationship"]["scope"] is None
    assert body["relationship"]["sharedReferences"] == {"jokes": ["404 life not found"]}
    assert not {k for k in _keys(data) if "embedding" in k.lower()}


def test_export_then_replace_into_a_fresh_database(
    populated: Database,
    make_db: Callable[[str], Database],
    tmp_path: Path,
    now: datetime,
    logical_view: Callable[[Database], dict[str, Any]],
) -> None:
    path = tmp_path / "save.json"
    _export(populated, path, now)
    fresh = make_db("fresh")
    summary = import_save(fresh, read_save_file(path), "replace", now)
    assert summary.imported == {
        "character": 1, "relationship": 1, "facts": 3, "sessions": 2, "turns": 4,
        "completed_events": 2,
    }  # fmt: skip
    assert sum(summary.skipped.values()) == 0
    assert logical_view(fresh) == logical_view(populated)
    with fresh.read_session() as session:
        facts = repo.list_facts(session)
    assert all(not f.has_embedding and f.embedding_model is None for f in facts)
    # and the second export says the same thing
    again = _export(fresh, tmp_path / "again.json", now)
    assert again == json.loads(path.read_text(encoding="utf-8"))


def test_replace_overwrites_existing_data(
    populated: Database, make_db: Callable[[str], Database], now: datetime,
    logical_view: Callable[[Database], dict[str, Any]],
) -> None:
    other = make_db("other")
    with other.session() as session:
        repo.save_character(session, new_character(now).copy(total_interactions=9, name="Old"))
        repo.add_fact(session, "Old fact", "user", now)
        repo.start_session(session, now)
    with populated.read_session() as session:
        save = parse_save(build_save(session, now))
    import_save(other, save, "replace", now)
    assert logical_view(other) == logical_view(populated)


def test_merging_twice_does_not_duplicate(
    populated: Database, make_db: Callable[[str], Database], now: datetime,
    logical_view: Callable[[Database], dict[str, Any]],
) -> None:
    with populated.read_session() as session:
        save = parse_save(build_save(session, now))
    into_self = import_save(populated, save, "merge", now)
    assert sum(into_self.imported.values()) == 0
    assert into_self.skipped["facts"] == 3 and into_self.skipped["turns"] == 4

    fresh = make_db("fresh")
    first = import_save(fresh, save, "merge", now)
    second = import_save(fresh, save, "merge", now)
    assert first.imported["facts"] == 3 and first.imported["character"] == 1
    assert sum(second.imported.values()) == 0
    assert logical_view(fresh) == logical_view(populated)


def test_merge_into_fresh_install_takes_the_imported_character(
    populated: Database, make_db: Callable[[str], Database], now: datetime,
    logical_view: Callable[[Database], dict[str, Any]],
) -> None:
    fresh = make_db("fresh")
    with fresh.session() as session:  # what the app does on first start
        repo.load_or_create_character(session, now)
        repo.load_or_create_familiarity(session)
    with populated.read_session() as session:
        save = parse_save(build_save(session, now))
    summary = import_save(fresh, save, "merge", now)
    assert (summary.imported["character"], summary.imported["relationship"]) == (1, 1)
    view = logical_view(fresh)
    assert view["character"] == logical_view(populated)["character"]
    assert view["familiarity"] == logical_view(populated)["familiarity"]


def test_merge_keeps_a_character_with_history(
    populated: Database, make_db: Callable[[str], Database], now: datetime
) -> None:
    other = make_db("other")
    mine = new_character(now).copy(name="Mine", total_interactions=3)
    with other.session() as session:
        repo.save_character(session, mine)
        repo.save_familiarity(session, Familiarity(score=3, total_interactions=3))
        existing = repo.start_session(session, now - timedelta(days=1))  # same start as "second"
        repo.start_session(session, now - timedelta(days=50))
    with populated.read_session() as session:
        save = parse_save(build_save(session, now))
    summary = import_save(other, save, "merge", now)
    assert (summary.skipped["character"], summary.skipped["relationship"]) == (1, 1)
    assert (summary.imported["sessions"], summary.skipped["sessions"]) == (1, 1)
    with other.read_session() as session:
        assert repo.load_character(session) == mine
        turns = {t.content: t.session_id for t in repo.recent_turns(session, 100)}
        sessions = {s.started_at: s.id for s in repo.list_sessions(session)}
    assert turns["Morning!"] == existing  # remapped onto the session with the same start
    assert turns["I love rainy days."] == sessions[now - timedelta(days=2)]
    assert turns["She waved."] is None


def _web_app_file(version: str = "2.0") -> dict[str, Any]:
    """What the web app's export writes: .000Z dates, extra fields, embeddings, no ids."""
    return {
        "version": version,
        "exportedAt": "2024-05-01T10:00:00.000Z",
        "appVersion": "0.0.1",
        "data": {
            "character": {
                "name": "Utsuwa", "systemPrompt": "You are Utsuwa.", "soulPrompt": "ignored",
                "extensions": {"backstory": "grew up by the sea"}, "characterId": "abc",
                "mood": {"primary": "happy", "intensity": 70, "causes": list("123456")},
                "energy": 88.4, "affection": 150, "trust": 30, "intimacy": 12, "comfort": 28,
                "respect": 15, "appMode": "dating_sim", "relationshipStage": "friend",
                "personality": {"openness": 10, "warmth": 40, "romanticStyle": "slow_burn"},
                "lastInteraction": "2024-04-30T21:15:00.000Z",
                "firstMet": "2024-04-01T09:00:00.000Z",
                "daysKnown": 30, "totalInteractions": 64, "currentStreak": 2, "longestStreak": 9,
                "streakLastDate": "2024-04-30", "completedEvents": ["first_meeting"],
                "sessionCountSinceEvolution": 4,
                "createdAt": "2024-04-01T09:00:00.000Z", "updatedAt": "2024-04-30T21:15:00.000Z",
            },
            "facts": [
                {"content": "User works at a bakery", "category": "user", "importance": 65,
                 "confidence": 0.9, "source": "conversation", "referenceCount": 2,
                 "createdAt": "2024-04-02T10:00:00.000Z",
                 "lastAccessed": "2024-04-30T21:00:00.000Z", "embedding": [0.01] * 384,
                 "embeddingModel": "Xenova/paraphrase-multilingual-MiniLM-L12-v2"},
                {"content": "user works at a  BAKERY!", "category": "user", "importance": 50,
                 "confidence": 0.8, "referenceCount": 0, "createdAt": "2024-04-03T10:00:00"},
            ],
            "sessions": [
                {"keyTopics": ["bread"], "messageCount": 12,
                 "startedAt": "2024-04-30T21:00:00.000Z",
                 "endedAt": "2024-04-30T21:20:00.000Z", "summary": "Talked about bread"},
            ],
            "conversationTurns": [
                {"sessionId": 17, "role": "user", "content": "I baked bread today!",
                 "metadata": {"sentiment": 0.7, "topicDepth": "moderate"},
                 "createdAt": "2024-04-30T21:01:00.000Z"},
                {"sessionId": 17, "role": "assistant", "content": "That sounds lovely.",
                 "createdAt": "2024-04-30T21:01:05.000Z"},
            ],
            "completedEvents": [
                {"eventId": "first_meeting", "eventType": "milestone",
                 "completedAt": "2024-04-01T09:05:00.000Z", "stateChanges": {"affection": 5}},
            ],
        },
    }  # fmt: skip


@pytest.mark.parametrize("version", ["2.0", "2.1", "3.0"])
def test_web_app_file_imports(
    version: str, make_db: Callable[[str], Database], tmp_path: Path, now: datetime
) -> None:
    raw = _web_app_file(version)
    if version.startswith("3"):
        raw["data"]["settings"] = {"theme": "dark", "apiKey": "never-read"}
    path = tmp_path / "web.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    fresh = make_db("fresh")
    summary = import_save(fresh, read_save_file(path), "merge", now)
    assert summary.imported["facts"] == 1 and summary.skipped["facts"] == 1
    assert summary.imported["relationship"] == 0
    with fresh.read_session() as session:
        character = repo.load_character(session)
        facts = repo.list_facts(session)
        turns = repo.recent_turns(session)
        assert repo.load_familiarity(session) is None
    assert character is not None and character.name == "Utsuwa"
    assert character.mood.causes == ["2", "3", "4", "5", "6"]  # the last five are kept
    assert character.energy == 88
    assert character.first_met == datetime(2024, 4, 1, 9, tzinfo=timezone.utc)
    assert character.extensions == {"backstory": "grew up by the sea"}
    assert [(f.content, f.has_embedding, f.embedding_model) for f in facts] == [
        ("User works at a bakery", False, None)
    ]
    assert [(t.session_id, t.role) for t in turns] == [(None, "user"), (None, "assistant")]


def test_duplicates_inside_one_file_are_imported_once(
    make_db: Callable[[str], Database], now: datetime
) -> None:
    raw = _web_app_file()
    body = raw["data"]
    for kind in ("sessions", "conversationTurns", "completedEvents"):
        body[kind] = body[kind] + copy.deepcopy(body[kind])
    summary = import_save(make_db("fresh"), parse_save(raw), "replace", now)
    assert summary.imported == {
        "character": 1, "relationship": 0, "facts": 1, "sessions": 1, "turns": 2,
        "completed_events": 1,
    }  # fmt: skip
    assert summary.skipped["turns"] == 2 and summary.skipped["facts"] == 1


def test_fact_key_normalizes() -> None:
    assert fact_key("user", "  User  likes\tTEA...! ") == ("user", "user likes tea")
    assert fact_key("user", "likes tea") != fact_key("relationship", "likes tea")


def test_failed_export_leaves_the_old_file(
    populated: Database, tmp_path: Path, now: datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "save.json"
    target.write_text("previous export")

    def refuse(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(savefile.os, "replace", refuse)
    with pytest.raises(savefile.SaveFileError, match="could not write .*No space left"):
        write_save_file(populated, target, now)
    assert target.read_text() == "previous export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "save.json"]


def test_export_of_an_empty_database(db: Database, tmp_path: Path, now: datetime) -> None:
    data = _export(db, tmp_path / "empty.json", now)
    assert data["data"] == {
        "facts": [], "sessions": [], "conversationTurns": [], "completedEvents": [],
    }  # fmt: skip
    summary = import_save(db, read_save_file(tmp_path / "empty.json"), "merge", now)
    assert sum(summary.imported.values()) == 0


def test_populate_helper_is_deterministic(
    make_db: Callable[[str], Database], now: datetime, populate: Any, logical_view: Any
) -> None:
    first, second = make_db("one"), make_db("two")
    populate(first, now)
    populate(second, now)
    assert logical_view(first) == logical_view(second)
