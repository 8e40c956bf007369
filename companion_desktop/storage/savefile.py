"""Save file reading and export (spec "Data Export and Import", version 2.0).

Export writes a temp file beside the target and renames it over it, so a failed
export never leaves half a file. Embeddings are never written. Import lives in
``savefile_import`` and is re-exported here.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from .. import __version__
from ..engine.character import CharacterState
from ..engine.familiarity import Familiarity
from . import repository
from .db import Database
from .models import CompletedEventRow, FactRow, SessionRow, TurnRow
from .savefile_import import KINDS, ImportSummary, fact_key, import_save
from .savefile_schema import (
    MAX_DEPTH,
    CharacterModel,
    CompletedEventModel,
    FactModel,
    RelationshipModel,
    SaveData,
    SaveFile,
    SaveFileError,
    SessionModel,
    TurnModel,
    describe,
    parse_save,
)  # fmt: skip

__all__ = [
    "KINDS", "MAX_SAVE_BYTES", "SAVE_VERSION", "ExportSummary", "ImportSummary", "SaveFile",
    "SaveFileError", "build_save", "character_to_json", "fact_key", "import_save", "read_save_file",
    "write_save_file",
]  # fmt: skip

SAVE_VERSION = "2.0"
#: Larger files are refused before reading (bytes).
MAX_SAVE_BYTES = 200 * 1024 * 1024


@dataclass(frozen=True)
class ExportSummary:
    """What ``write_save_file`` wrote; ``size_bytes`` is the file's size."""

    path: Path
    size_bytes: int
    counts: dict[str, int]


# ------------------------------------------------------------------ reading


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.1f} MB".replace(".0 MB", " MB")


def read_save_file(path: Path) -> SaveFile:
    """Read and validate a save file; raises SaveFileError (refuses files over 200 MB)."""
    path = Path(path).expanduser()
    try:
        size = path.stat().st_size
        if size > MAX_SAVE_BYTES:
            raise SaveFileError(
                f"{path} is {_megabytes(size)}; save files over "
                f"{_megabytes(MAX_SAVE_BYTES)} are refused"
            )
        data = path.read_bytes()
    except OSError as error:
        raise SaveFileError(f"cannot read {path}: {error.strerror or error}") from error
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise SaveFileError(f"not UTF-8 text (bad byte at offset {error.start})") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise SaveFileError(
            f"not valid JSON at line {error.lineno} column {error.colno} ({error.msg})"
        ) from None
    except ValueError:  # a number with thousands of digits (Python's int limit)
        limit = sys.get_int_max_str_digits()
        raise SaveFileError(f"not usable JSON: a number has more than {limit} digits") from None
    except RecursionError:
        raise SaveFileError(
            f"not usable JSON: nested deeper than {MAX_DEPTH} levels"
        ) from None
    return parse_save(raw)


# ------------------------------------------------------------------ export


def _ordered(session: Session, model: Any) -> Iterator[Any]:
    return iter(session.scalars(select(model).order_by(model.id)))


def _columns(row: Any, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(row, name) for name in names}


def build_save(session: Session, now: datetime) -> dict[str, Any]:
    """The save file of the database as JSON-ready data (``now`` is ``exportedAt``)."""
    state = repository.load_character(session)
    rel = repository.load_familiarity(session) or (Familiarity() if state else None)
    try:
        data = SaveData(
            character=_character_model(state) if state else None,
            facts=[
                FactModel.model_validate(_columns(row, _FACT_FIELDS))
                for row in _ordered(session, FactRow)
            ],
            sessions=[
                SessionModel.model_validate(_columns(row, _SESSION_FIELDS))
                for row in _ordered(session, SessionRow)
            ],
            conversation_turns=[
                TurnModel.model_validate(_columns(row, _TURN_FIELDS) | {"metadata": row.meta})
                for row in _ordered(session, TurnRow)
            ],
            completed_events=[
                CompletedEventModel.model_validate(_columns(row, _EVENT_FIELDS))
                for row in _ordered(session, CompletedEventRow)
            ],
            relationship=_relationship_model(rel) if rel else None,
        )
    except ValidationError as error:
        raise SaveFileError(f"cannot export: {describe(error)}") from None
    save = SaveFile(version=SAVE_VERSION, exported_at=now, app_version=__version__, data=data)
    return save.model_dump(mode="json", by_alias=True)


_FACT_FIELDS = (
    "content", "category", "importance", "confidence", "source", "reference_count",
    "created_at", "last_accessed",
)  # fmt: skip
_SESSION_FIELDS = (
    "id", "summary", "key_topics", "emotional_arc", "state_snapshot", "message_count",
    "started_at", "ended_at",
)  # fmt: skip
_TURN_FIELDS = ("session_id", "role", "content", "created_at")
_EVENT_FIELDS = (
    "event_id", "event_type", "choice_index", "outcome", "state_changes", "completed_at",
)  # fmt: skip
_CHARACTER_FIELDS = tuple(f.name for f in fields(CharacterState) if f.name != "mood")
_RELATIONSHIP_FIELDS = tuple(f.name for f in fields(Familiarity) if f.name != "score")


def _character_model(state: CharacterState) -> CharacterModel:
    values = {name: getattr(state, name) for name in _CHARACTER_FIELDS}
    mood = vars(state.mood)
    return CharacterModel.model_validate(values | {"mood": mood})


def character_to_json(state: CharacterState) -> dict[str, Any]:
    """The state as the save file writes it: the spec's camelCase field names."""
    return _character_model(state).model_dump(mode="json", by_alias=True)


def _relationship_model(rel: Familiarity) -> RelationshipModel:
    values = {name: getattr(rel, name) for name in _RELATIONSHIP_FIELDS}
    return RelationshipModel.model_validate(values | {"relationship_score": rel.score})


def write_save_file(db: Database, path: Path, now: datetime) -> ExportSummary:
    """Export to ``path`` atomically (temp file in the same folder, then rename)."""
    path = Path(path).expanduser()
    with db.read_session() as session:
        data = build_save(session, now)
    text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    temp: str | None = None
    try:
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
        temp = None
        size = path.stat().st_size
    except OSError as error:
        raise SaveFileError(f"could not write {path}: {error.strerror or error}") from error
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)
    body = data["data"]
    counts = {
        "character": int("character" in body),
        "relationship": int("relationship" in body),
        "facts": len(body["facts"]),
        "sessions": len(body["sessions"]),
        "turns": len(body["conversationTurns"]),
        "completed_events": len(body["completedEvents"]),
    }
    return ExportSummary(path=path, size_bytes=size, counts=counts)


