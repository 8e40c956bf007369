"""Malformed and oversized save files: a clear SaveFileError, and the database unchanged."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from companion_desktop.storage.db import Database
from companion_desktop.storage.savefile import (
    SaveFileError,
    build_save,
    import_save,
    read_save_file,
)
from companion_desktop.storage.savefile_fields import CAPS
from companion_desktop.storage.savefile_schema import MAX_DEPTH

Dump = Callable[[Path], dict[str, list[tuple[Any, ...]]]]


@pytest.fixture
def good(populated: Database, now: datetime) -> dict[str, Any]:
    with populated.read_session() as session:
        return build_save(session, now)


def refused(database: Database, tmp_path: Path, text: str, dump: Dump, now: datetime) -> str:
    before = dump(database.path)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SaveFileError) as caught:
        import_save(database, read_save_file(path), "replace", now)
    assert dump(database.path) == before
    return str(caught.value)


def test_a_number_with_5000_digits(populated, tmp_path, table_dump, now, good) -> None:
    text = json.dumps(good).replace('"importance": 72.0', '"importance": ' + "9" * 5000)
    assert "9" * 5000 in text
    message = refused(populated, tmp_path, text, table_dump, now)
    assert message.startswith("not usable JSON: a number has more than")


def test_deep_nesting(populated, tmp_path, table_dump, now, good) -> None:
    good["data"]["sessions"][0]["stateSnapshot"] = json.loads("[" * 900 + "]" * 900)
    text = json.dumps(good)
    assert "nested deeper than" in refused(populated, tmp_path, text, table_dump, now)
    very = '{"version": "2.0", "data": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    assert "nested deeper than" in refused(populated, tmp_path, very, table_dump, now)


def test_nesting_just_under_the_limit_reads(good, tmp_path) -> None:
    nested: Any = 1
    for _ in range(MAX_DEPTH - 5):  # root, data, sessions, the session, the snapshot
        nested = {"a": nested}
    good["data"]["sessions"][0]["stateSnapshot"] = nested
    path = tmp_path / "ok.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    assert read_save_file(path).data.sessions[0].state_snapshot == nested


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"])
def test_a_date_that_overflows_in_utc(populated, tmp_path, table_dump, now, good, stamp) -> None:
    good["data"]["facts"][0]["createdAt"] = stamp
    message = refused(populated, tmp_path, json.dumps(good), table_dump, now)
    assert message == f'data.facts[0].createdAt: is out of range in UTC (got "{stamp}")'


@pytest.mark.parametrize(
    ("where", "cap"),
    [
        (("facts", 0, "content"), "fact"),
        (("character", "name"), "name"),
        (("conversationTurns", 0, "content"), "turn"),
        (("sessions", 0, "summary"), "summary"),
        (("completedEvents", 0, "eventId"), "event_id"),
    ],
)
def test_text_over_the_apps_caps(populated, tmp_path, table_dump, now, good, where, cap) -> None:
    target = good["data"]
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = "x" * (CAPS[cap] + 1)
    message = refused(populated, tmp_path, json.dumps(good), table_dump, now)
    assert f"must be at most {CAPS[cap]} characters (got {CAPS[cap] + 1})" in message
    target[where[-1]] = "x" * CAPS[cap]  # at the cap it reads
    path = tmp_path / "at-cap.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    read_save_file(path)


def test_fact_cap_is_the_apps(populated) -> None:
    from companion_desktop.pipeline.facts import MAX_CONTENT

    assert CAPS["fact"] == MAX_CONTENT


def test_a_huge_free_form_object(populated, tmp_path, table_dump, now, good) -> None:
    good["data"]["character"]["extensions"] = {"blob": "x" * 200_000}
    message = refused(populated, tmp_path, json.dumps(good), table_dump, now)
    assert message.startswith("data.character.extensions: must be at most 100000 "
                              "characters of JSON")


def test_long_mood_causes_are_cut_like_the_app_cuts_them(good, tmp_path) -> None:
    from companion_desktop.engine.emotions import MAX_CAUSE_LENGTH

    good["data"]["character"]["mood"]["causes"] = ["y" * 5000]
    path = tmp_path / "causes.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    assert read_save_file(path).data.character.mood.causes == ["y" * MAX_CAUSE_LENGTH]
