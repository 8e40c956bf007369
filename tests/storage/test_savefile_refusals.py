"""Save files that are refused, and imports that fail late: the database never changes."""

# The table of refusals reads best one case per line.
# ruff: noqa: E501

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from companion_desktop.engine.character import new_character
from companion_desktop.storage import repository, savefile
from companion_desktop.storage.db import Database, StorageError
from companion_desktop.storage.models import CompletedEventRow
from companion_desktop.storage.savefile import (
    SaveFileError,
    build_save,
    import_save,
    read_save_file,
)
from companion_desktop.storage.savefile_schema import parse_save

Dump = Callable[[Path], dict[str, list[tuple[Any, ...]]]]


@pytest.fixture
def good(populated: Database, now: datetime) -> dict[str, Any]:
    """A valid save file (as decoded JSON) of the populated database."""
    with populated.read_session() as session:
        return build_save(session, now)


def _refused(
    database: Database, tmp_path: Path, content: str | bytes, table_dump: Dump, now: datetime
) -> str:
    """Read ``content`` as a save file; return the refusal's message (db unchanged)."""
    before = table_dump(database.path)
    path = tmp_path / "bad.json"
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    with pytest.raises(SaveFileError) as caught:
        import_save(database, read_save_file(path), "replace", now)
    assert table_dump(database.path) == before
    return str(caught.value)


def test_not_json(populated: Database, tmp_path: Path, table_dump: Dump, now: datetime) -> None:
    message = _refused(populated, tmp_path, "{version: 2}", table_dump, now)
    assert message.startswith("not valid JSON at line 1 column 2")
    message = _refused(populated, tmp_path, '{\n  "version": "2.0",\n  oops', table_dump, now)
    assert message.startswith("not valid JSON at line 3 column 3")
    assert "not UTF-8" in _refused(populated, tmp_path, b"\xff\xfe\x00{", table_dump, now)
    assert "JSON object" in _refused(populated, tmp_path, "[1, 2]", table_dump, now)


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("9.0", 'unknown save file version "9.0" (this app reads 2.x and 3.x)'),
        ("1.0", 'unknown save file version "1.0" (this app reads 2.x and 3.x)'),
        ("2.0-beta", 'unknown save file version "2.0-beta"'),
        (2, "unknown save file version 2 (this app reads 2.x and 3.x)"),
        (None, "unknown save file version null"),
        ("missing", "save file has no version (this app reads 2.x and 3.x)"),
    ],
)
def test_unknown_versions(
    populated: Database,
    good: dict[str, Any],
    tmp_path: Path,
    table_dump: Dump,
    now: datetime,
    version: object,
    expected: str,
) -> None:
    if version == "missing":
        del good["version"]
    else:
        good["version"] = version
    assert expected in _refused(populated, tmp_path, json.dumps(good), table_dump, now)


def _set(data: dict[str, Any], where: str, value: Any) -> None:
    *path, last = where.split(".")
    target: Any = data
    for part in path:
        target = target[int(part)] if part.isdigit() else target[part]
    target[int(last) if last.isdigit() else last] = value


@pytest.mark.parametrize(
    ("where", "value", "expected"),
    [
        ("data.character.affection", "high", 'data.character.affection: must be a number (got "high")'),
        ("data.character.affection", 5000, "data.character.affection: must be between 0 and 1000 (got 5000)"),
        ("data.character.energy", -1, "data.character.energy: must be between 0 and 100 (got -1)"),
        ("data.character.trust", True, "data.character.trust: must be a number (got true)"),
        ("data.character.mood.intensity", 101, "data.character.mood.intensity: must be between 0 and 100"),
        ("data.character.mood.primary", "ecstatic", 'data.character.mood.primary: unknown emotion "ecstatic"'),
        ("data.character.relationshipStage", "bff", 'unknown relationship stage "bff"'),
        ("data.character.appMode", "rpg", 'data.character.appMode: unknown app mode "rpg"'),
        ("data.character.firstMet", "yesterday", 'data.character.firstMet: not an ISO-8601 date (got "yesterday")'),
        ("data.character.firstMet", 1714557600, "data.character.firstMet: must be a date string (got 1714557600)"),
        ("data.character.streakLastDate", "2024-13-45", "streakLastDate: must be a day YYYY-MM-DD"),
        ("data.character.streakLastDate", "20240430", "streakLastDate: must be a day YYYY-MM-DD"),
        ("data.facts.0.referenceCount", 1e300, "referenceCount: must be a finite number"),
        ("data.character.name", 7, "data.character.name: must be text (got 7)"),
        ("data.character.totalInteractions", -3, "data.character.totalInteractions: must be 0 or more (got -3)"),
        ("data.character.daysKnown", 2.5, "data.character.daysKnown: must be a whole number (got 2.5)"),
        ("data.character.mood", "happy", 'data.character.mood: must be an object (got "happy")'),
        ("data.facts.2.importance", 150, "data.facts[2].importance: must be between 0 and 100 (got 150)"),
        ("data.facts.0.confidence", 1.5, "data.facts[0].confidence: must be between 0 and 1 (got 1.5)"),
        ("data.facts.1.category", "gossip", 'data.facts[1].category: unknown fact category "gossip"'),
        ("data.facts.0.createdAt", "2024-02-30T10:00:00Z", "data.facts[0].createdAt: not an ISO-8601 date"),
        ("data.conversationTurns.1.role", "narrator", 'data.conversationTurns[1].role: unknown turn role "narrator"'),
        ("data.conversationTurns.0.sessionId", "1", 'data.conversationTurns[0].sessionId: must be a number (got "1")'),
        ("data.sessions.0.messageCount", -1, "data.sessions[0].messageCount: must be 0 or more (got -1)"),
        ("data.completedEvents.0.eventId", None, "data.completedEvents[0].eventId: must be text (got null)"),
        ("data.relationship.relationshipScore", 101, "data.relationship.relationshipScore: must be between 0 and 100"),
        ("data.facts", {"0": {}}, "data.facts: must be a list"),
        ("data", None, "data: must be an object (got null)"),
    ],
)  # fmt: skip
def test_bad_values_are_refused_with_where_and_why(
    populated: Database,
    good: dict[str, Any],
    tmp_path: Path,
    table_dump: Dump,
    now: datetime,
    where: str,
    value: Any,
    expected: str,
) -> None:
    _set(good, where, value)
    message = _refused(populated, tmp_path, json.dumps(good), table_dump, now)
    assert expected in message


def test_missing_field_and_more_problems(good: dict[str, Any]) -> None:
    del good["data"]["character"]["firstMet"]
    good["data"]["facts"][0]["importance"] = 500
    with pytest.raises(SaveFileError) as caught:
        parse_save(good)
    assert str(caught.value) == "data.character.firstMet: is missing (and 1 more problem)"
    assert caught.value.problems == [
        "data.character.firstMet: is missing",
        "data.facts[0].importance: must be between 0 and 100 (got 500)",
    ]


def test_nan_and_infinity_are_refused(good: dict[str, Any]) -> None:
    good["data"]["character"]["energy"] = float("nan")
    with pytest.raises(SaveFileError, match="energy: must be a finite number"):
        parse_save(json.loads(json.dumps(good)))


def test_too_large_file_is_refused_before_reading(
    good: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps(good))
    monkeypatch.setattr(savefile, "MAX_SAVE_BYTES", 100)
    with pytest.raises(SaveFileError, match=r"big\.json is .* MB; save files over .* are refused"):
        read_save_file(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError, match="cannot read"):
        read_save_file(tmp_path / "nope.json")


@pytest.mark.parametrize("mode", ["merge", "replace"])
def test_failure_on_the_third_fact_rolls_everything_back(
    populated: Database,
    good: dict[str, Any],
    make_db: Callable[[str], Database],
    table_dump: Dump,
    now: datetime,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    target = make_db("target")
    with target.session() as session:
        repository.save_character(session, new_character(now).copy(name="Keep"))
        repository.add_fact(session, "Existing fact", "user", now)
    before = table_dump(target.path)
    real_add_fact = repository.add_fact
    calls = []

    def failing_add_fact(*args: Any, **kwargs: Any) -> int:
        calls.append(args)
        if len(calls) == 3:
            raise RuntimeError("disk gremlin")
        return real_add_fact(*args, **kwargs)

    monkeypatch.setattr(repository, "add_fact", failing_add_fact)
    with pytest.raises(RuntimeError, match="disk gremlin"):
        import_save(target, parse_save(good), mode, now)  # type: ignore[arg-type]
    assert len(calls) == 3
    assert table_dump(target.path) == before


def test_database_error_late_in_the_import_rolls_back(
    populated: Database,
    good: dict[str, Any],
    table_dump: Dump,
    now: datetime,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A duplicate primary key on the last kind written: StorageError, nothing kept."""
    before = table_dump(populated.path)

    def clashing_event(session: Any, event_id: str, when: datetime, *args: Any, **kw: Any) -> int:
        row = {"id": 1, "event_id": event_id, "completed_at": when}
        session.execute(insert(CompletedEventRow).values(**row))
        return 1

    monkeypatch.setattr(repository, "add_completed_event", clashing_event)
    good["data"]["completedEvents"][0]["completedAt"] = "2030-01-01T00:00:00Z"  # not a duplicate
    with pytest.raises(StorageError, match="UNIQUE constraint failed"):
        import_save(populated, parse_save(good), "merge", now)
    assert table_dump(populated.path) == before
    with pytest.raises(StorageError):
        import_save(populated, parse_save(good), "replace", now)
    assert table_dump(populated.path) == before


def test_unknown_mode_is_a_programming_error(
    db: Database, good: dict[str, Any], now: datetime
) -> None:
    with pytest.raises(ValueError, match="mode"):
        import_save(db, parse_save(good), "append", now)  # type: ignore[arg-type]
