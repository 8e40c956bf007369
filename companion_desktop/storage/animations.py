"""The animation library's rows: built-in idles and emotes, and the user's uploads.

Built-in rows mirror the clip manifest (``resources/animations/library.json``):
``sync_builtins`` inserts the ones that are new and keeps the user's edits (name,
description, "Companion can use", idle pool) of the ones already here. Uploads are
.vrma files copied into the data folder; their rows are written by
``pipeline.animations`` in the same transaction as the file. ``file_path`` is
relative: to the manifest's folder for built-ins, to the data folder for uploads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import AnimationRow
from .settings import SettingsSection

#: Kinds stored here; the manifest's "talking" and "thinking" clips are not user-editable.
BUILTIN_KINDS = ("idle", "emote")
UPLOAD = "upload"
NAME_MAX = 60  # characters
DESCRIPTION_MAX = 200  # characters
ID_PATTERN = re.compile(r"[a-z0-9_-]{1,64}")


class AnimationNotFound(LookupError):
    """No animation with that id; the message names it."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no such animation"


class AnimationSettings(SettingsSection):
    """Settings > Animations: the clip she loops while thinking (None: no thinking clip)."""

    SECTION: ClassVar[str] = "animations"
    thinking_clip: str | None = None


@dataclass(frozen=True)
class AnimationEntry:
    """One library entry as the UI and the pipeline see it."""

    id: str
    name: str
    description: str
    kind: str  # "idle" | "emote" | "upload"
    file_path: str | None
    enabled: bool  # "Companion can use": listed in the <avatar> prompt layer
    in_idle_pool: bool
    created_at: datetime

    @property
    def builtin(self) -> bool:
        return self.kind != UPLOAD


def _entry(row: AnimationRow) -> AnimationEntry:
    return AnimationEntry(
        id=row.id, name=row.name, description=row.description or "", kind=row.kind,
        file_path=row.file_path, enabled=bool(row.enabled), in_idle_pool=bool(row.in_idle_pool),
        created_at=row.created_at,
    )


def check_name(name: str) -> str:
    """``name`` stripped; ValueError unless it has 1 to 60 characters."""
    text = (name or "").strip()
    if not text:
        raise ValueError("An animation needs a name.")
    if len(text) > NAME_MAX:
        raise ValueError(f"A name can be at most {NAME_MAX} characters (this one has {len(text)}).")
    return text


def check_description(description: str) -> str:
    """``description`` stripped; ValueError when over 200 characters."""
    text = (description or "").strip()
    if len(text) > DESCRIPTION_MAX:
        raise ValueError(f"A description can be at most {DESCRIPTION_MAX} characters "
                         f"(this one has {len(text)}).")
    return text


def check_id(animation_id: str) -> str:
    if not ID_PATTERN.fullmatch(animation_id or ""):
        raise ValueError(f"{animation_id!r} is not a valid animation id ([a-z0-9_-], 1 to 64).")
    return animation_id


def _field(item: Any, key: str, default: Any = None) -> Any:
    if isinstance(item, Mapping):
        return item.get(key, default)
    return getattr(item, key, default)


def sync_builtins(session: Session, entries: Iterable[Any], now: datetime) -> None:
    """Make the built-in rows match ``entries`` (manifest clips: mappings or objects with
    id, name, kind, description, file). Only "idle" and "emote" clips are stored.

    New ids are inserted (idles in the idle pool and not offered to her; emotes offered
    to her); existing ids keep the user's name, description, enabled and in_idle_pool.
    Built-in rows whose id left the manifest are removed. Uploads are never touched.
    """
    wanted: dict[str, Any] = {}
    for item in entries:
        kind = _field(item, "kind")
        animation_id = str(_field(item, "id") or "")
        if kind in BUILTIN_KINDS and ID_PATTERN.fullmatch(animation_id):
            wanted[animation_id] = item
    rows = {row.id: row for row in session.scalars(select(AnimationRow))}
    for animation_id, stored in rows.items():
        if stored.kind != UPLOAD and animation_id not in wanted:
            session.delete(stored)
    for animation_id, item in wanted.items():
        row = rows.get(animation_id)
        kind = str(_field(item, "kind"))
        file_path = _field(item, "file")
        if row is not None and row.kind == UPLOAD:
            continue  # an upload took the id first; the upload wins
        if row is None:
            name = str(_field(item, "name") or animation_id)[:NAME_MAX]
            description = str(_field(item, "description") or "")[:DESCRIPTION_MAX]
            session.add(AnimationRow(
                id=animation_id, name=name, description=description, kind=kind,
                file_path=str(file_path) if file_path else None,
                enabled=kind == "emote", in_idle_pool=kind == "idle", created_at=now,
            ))
            continue
        row.kind = kind
        row.file_path = str(file_path) if file_path else None
        if kind != "idle":
            row.in_idle_pool = False
    session.flush()


def list_entries(session: Session) -> list[AnimationEntry]:
    """Every entry: built-in idles, then built-in emotes, then uploads (oldest first)."""
    order = {"idle": 0, "emote": 1, UPLOAD: 2}
    rows = session.scalars(select(AnimationRow))
    entries = [_entry(row) for row in rows]
    return sorted(entries, key=lambda e: (order.get(e.kind, 3), e.created_at, e.id))


def get_entry(session: Session, animation_id: str) -> AnimationEntry | None:
    row = session.get(AnimationRow, animation_id)
    return _entry(row) if row is not None else None


def update_entry(
    session: Session, animation_id: str, *, name: str | None = None,
    description: str | None = None, enabled: bool | None = None,
    in_idle_pool: bool | None = None,
) -> AnimationEntry:
    """Change what is given; ValueError (with the reason) for a bad name or description,
    AnimationNotFound for an unknown id. Only idles and uploads can join the idle pool."""
    row = session.get(AnimationRow, animation_id)
    if row is None:
        raise AnimationNotFound(f"There is no animation {animation_id!r}.")
    if name is not None:
        row.name = check_name(name)
    if description is not None:
        row.description = check_description(description)
    if enabled is not None:
        row.enabled = bool(enabled)
    if in_idle_pool is not None:
        if in_idle_pool and row.kind == "emote":
            raise ValueError(f"{row.name} is an emote; only idles and uploads can be idle clips.")
        row.in_idle_pool = bool(in_idle_pool)
    session.flush()
    return _entry(row)


def add_upload(
    session: Session, animation_id: str, name: str, description: str, file_path: str,
    now: datetime, *, enabled: bool = True, in_idle_pool: bool = False,
) -> AnimationEntry:
    """Insert an uploaded clip (``file_path`` relative to the data folder). ValueError for
    a bad id, name or description, or an id already in use."""
    check_id(animation_id)
    if session.get(AnimationRow, animation_id) is not None:
        raise ValueError(f"The animation id {animation_id!r} is already in use.")
    row = AnimationRow(
        id=animation_id, name=check_name(name), description=check_description(description),
        kind=UPLOAD, file_path=file_path, enabled=enabled, in_idle_pool=in_idle_pool,
        created_at=now,
    )
    session.add(row)
    session.flush()
    return _entry(row)


def delete_upload(session: Session, animation_id: str) -> AnimationEntry:
    """Remove an upload's row and return what it was (the caller removes the file).
    ValueError for a built-in, AnimationNotFound for an unknown id."""
    row = session.get(AnimationRow, animation_id)
    if row is None:
        raise AnimationNotFound(f"There is no animation {animation_id!r}.")
    if row.kind != UPLOAD:
        raise ValueError(f"{row.name} is built in and cannot be deleted.")
    entry = _entry(row)
    session.delete(row)
    session.flush()
    return entry
