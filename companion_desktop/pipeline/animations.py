"""The animation library as the app uses it: built-in clips plus the user's uploads.

``AnimationService(db, data_dir, library)`` keeps the database rows in step with the
built-in clip manifest of ``library`` (``avatar.animation.library.AnimationLibrary``;
None: the shipped ``resources/animations``), takes uploads (.vrma, at most 25 MB,
parsed by the real loader within 60 seconds before anything is saved; the file lands in
``<data_dir>/animations/<id>.vrma`` together with its row, or neither does), registers
the uploads in the library (so the mixer, the idle cycle and the action gate know their
ids), and answers what the prompt, the idle cycle and the thinking state need. No Qt.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from companion_desktop.avatar.animation.clip import Clip
from companion_desktop.avatar.animation.library import AnimationLibrary, LibraryEntry
from companion_desktop.avatar.animation.vrma import ClipLoadError, load_vrma
from companion_desktop.storage import animations as store
from companion_desktop.storage.animations import (
    AnimationEntry,
    AnimationNotFound,
    AnimationSettings,
)
from companion_desktop.storage.db import Database
from companion_desktop.storage.private import private_dir, private_file
from companion_desktop.storage.settings import load_settings, save_settings

log = logging.getLogger(__name__)

__all__ = [
    "AnimationEntry", "AnimationNotFound", "AnimationService", "AnimationUploadError",
    "MAX_UPLOAD_BYTES", "UPLOAD_DEADLINE_S", "default_library", "slug",
]

MAX_UPLOAD_BYTES = 25 * 1024 * 1024  # the spec's 25 MB cap
UPLOAD_DEADLINE_S = 60.0  # seconds the loader may take over one upload
UPLOADS_DIR = "animations"  # under the data folder
_MB = 1024 * 1024


class AnimationUploadError(Exception):
    """An upload was refused; the message says why (nothing was saved)."""


def default_library() -> AnimationLibrary:
    """The built-in clips shipped in ``resources/animations``."""
    return AnimationLibrary()


def slug(text: str) -> str:
    """Lower-case [a-z0-9] words joined by "_", at most 40 characters ("clip" if empty)."""
    words = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return words[:40].strip("_") or "clip"


def _pretty_name(stem: str) -> str:
    words = re.sub(r"[_\-.]+", " ", stem).strip() or "Animation"
    return (words[0].upper() + words[1:])[: store.NAME_MAX]


class AnimationService:
    """The animation library over one database and data folder (see the module doc)."""

    def __init__(self, db: Database, data_dir: Path | str,
                 library: AnimationLibrary | None = None, *,
                 clock: Callable[[], datetime] | None = None,
                 deadline_s: float | None = None) -> None:
        self.db = db
        self.data_dir = Path(data_dir)
        self.library = library if library is not None else default_library()
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self.deadline_s = deadline_s  # None: UPLOAD_DEADLINE_S at the time of the upload
        self._synced = False

    @property
    def uploads_dir(self) -> Path:
        return self.data_dir / UPLOADS_DIR

    # -------------------------------------------------------------- built-ins
    def builtin_clips(self) -> list[LibraryEntry]:
        """Every built-in clip (idle, emote, talking, thinking, move), in manifest order."""
        return self.library.manifest_entries()

    def sync(self) -> None:
        """Write the built-in idles and emotes into the database (keeping user edits) and
        register every upload in the library."""
        with self.db.session() as session:
            store.sync_builtins(session, self.builtin_clips(), self.clock())
            uploads = [e for e in store.list_entries(session) if not e.builtin]
        for entry in uploads:
            self._register(entry)
        self._synced = True

    def _ensure_synced(self) -> None:
        if not self._synced:
            self.sync()

    def _register(self, entry: AnimationEntry) -> None:
        if not entry.builtin:
            self.library.add_file(entry.id, self.upload_path(entry), name=entry.name,
                                  description=entry.description)

    # ---------------------------------------------------------------- reading
    def list_entries(self) -> list[AnimationEntry]:
        """Built-in idles, built-in emotes (both in manifest order), then uploads (oldest first)."""
        self._ensure_synced()
        with self.db.read_session() as session:
            entries = store.list_entries(session)
        kinds = {"idle": 0, "emote": 1, store.UPLOAD: 2}
        order = {c.id: i for i, c in enumerate(self.builtin_clips())}
        return sorted(entries, key=lambda e: (kinds.get(e.kind, 3), order.get(e.id, len(order)),
                                             e.created_at, e.id))

    def entry(self, animation_id: str) -> AnimationEntry:
        self._ensure_synced()
        with self.db.read_session() as session:
            found = store.get_entry(session, animation_id)
        if found is None:
            raise AnimationNotFound(f"There is no animation {animation_id!r}.")
        return found

    def upload_path(self, entry: AnimationEntry) -> Path:
        return self.data_dir / (entry.file_path or f"{UPLOADS_DIR}/{entry.id}.vrma")

    def _usable(self, entry: AnimationEntry) -> bool:
        """In the library now (and, for an upload, its file still there)."""
        if entry.id not in self.library:
            return False
        return entry.builtin or self.upload_path(entry).is_file()

    def enabled_for_prompt(self) -> list[tuple[str, str]]:
        """(id, description) of each emote and upload she may use; the name stands in for
        an empty description. Entries whose clip is gone are left out."""
        return [(e.id, e.description or e.name) for e in self.list_entries()
                if e.enabled and e.kind in ("emote", store.UPLOAD) and self._usable(e)]

    def idle_pool(self) -> list[str]:
        """The idle cycle's clip ids: pooled built-in idles and uploads still in the
        library now; when none are, every built-in idle."""
        pool = [e.id for e in self.list_entries()
                if e.in_idle_pool and e.kind in ("idle", store.UPLOAD) and self._usable(e)]
        return pool or [c.id for c in self.builtin_clips() if c.kind == "idle"]

    def idle_choices(self) -> list[AnimationEntry]:
        """What the idle pool may hold: built-in idles and uploads."""
        return [e for e in self.list_entries() if e.kind in ("idle", store.UPLOAD)]

    def thinking_choices(self) -> list[tuple[str, str]]:
        """(id, name) of every clip that can be the thinking clip: built-ins (not her
        walking and sitting moves) and uploads."""
        entries = self.list_entries()
        names = {e.id: e.name for e in entries}
        builtin = [(c.id, names.get(c.id, c.name)) for c in self.builtin_clips()
                   if c.kind != "move"]
        return builtin + [(e.id, e.name) for e in entries if not e.builtin]

    def thinking_clip(self) -> str | None:
        """The chosen thinking clip, or None (also when it left the library)."""
        with self.db.read_session() as session:
            chosen = load_settings(session, AnimationSettings).thinking_clip
        known = {cid for cid, _ in self.thinking_choices()}
        return chosen if chosen in known else None

    def clip(self, animation_id: str) -> Clip:
        """The Clip for a built-in or an upload, from the library (parsed once).
        AnimationNotFound for an unknown id; ``ClipLoadError`` for a file that fails."""
        self._ensure_synced()
        try:
            return self.library.get(animation_id)
        except KeyError:
            raise AnimationNotFound(f"There is no animation {animation_id!r}.") from None

    # ---------------------------------------------------------------- writing
    def update(self, animation_id: str, **changes: Any) -> AnimationEntry:
        """``store.update_entry`` in its own transaction (ValueError with the reason)."""
        (entry,) = self.save_edits({animation_id: changes})
        return entry

    def save_edits(self, changes: Mapping[str, Mapping[str, Any]],
                   thinking_clip: str | None | object = ...) -> list[AnimationEntry]:
        """Apply ``{id: {name, description, enabled, in_idle_pool}}`` and, when given, the
        thinking clip, all in one transaction (nothing is written on a ValueError)."""
        self._ensure_synced()
        if thinking_clip is not ... and thinking_clip is not None and \
                thinking_clip not in {c for c, _ in self.thinking_choices()}:
            raise AnimationNotFound(f"There is no animation {thinking_clip!r}.")
        with self.db.session() as session:
            done = [store.update_entry(session, animation_id, **dict(fields))
                    for animation_id, fields in changes.items()]
            if thinking_clip is not ...:
                settings = AnimationSettings(thinking_clip=thinking_clip)  # type: ignore[arg-type]
                save_settings(session, settings, self.clock())
        for entry, fields in zip(done, changes.values(), strict=True):
            if {"name", "description"} & set(fields):
                self._register(entry)  # the clip's name and description follow the entry
        return done

    def set_thinking_clip(self, animation_id: str | None) -> None:
        self.save_edits({}, animation_id)

    def _deadline(self) -> float:
        return self.deadline_s if self.deadline_s is not None else UPLOAD_DEADLINE_S

    def check_upload(self, path: Path | str) -> Clip:
        """Refuse what cannot be an animation, then parse it; the Clip. AnimationUploadError."""
        path = Path(path)
        if not path.is_file():
            raise AnimationUploadError(f"{path}: no such file")
        if path.suffix.lower() != ".vrma":
            raise AnimationUploadError(
                f"{path.name} is not a VRM animation; choose a .vrma file.")
        size = path.stat().st_size
        if size > MAX_UPLOAD_BYTES:
            raise AnimationUploadError(
                f"{path.name} is {size / _MB:.1f} MB; animations can be at most "
                f"{MAX_UPLOAD_BYTES // _MB} MB")
        try:
            return load_vrma(path, max_bytes=MAX_UPLOAD_BYTES, deadline_s=self._deadline())
        except ClipLoadError as error:
            raise AnimationUploadError(str(error)) from None
        except Exception as error:  # noqa: BLE001 - a bad file must never crash the app
            raise AnimationUploadError(
                f"{path.name} could not be read as an animation: {error}") from None

    def _new_id(self, stem: str, taken: Iterable[str]) -> str:
        used = set(taken) | self.library.ids()
        base = f"upload_{slug(stem)}"
        n = 1
        while f"{base}_{n}" in used or (self.uploads_dir / f"{base}_{n}.vrma").exists():
            n += 1
        return f"{base}_{n}"

    def upload(self, path: Path | str, *, name: str | None = None,
               description: str = "") -> AnimationEntry:
        """Add a .vrma: checked and parsed first, then the file copy and its row land
        together. AnimationUploadError (nothing saved) when refused."""
        path = Path(path)
        self.check_upload(path)
        self._ensure_synced()
        name = store.check_name(name or _pretty_name(path.stem))
        private_dir(self.uploads_dir)
        with self.db.read_session() as session:
            animation_id = self._new_id(path.stem, (e.id for e in store.list_entries(session)))
        relative = f"{UPLOADS_DIR}/{animation_id}.vrma"
        final = self.data_dir / relative
        part = self.uploads_dir / f".{animation_id}.part"
        placed = False
        try:
            shutil.copyfile(path, part)
            private_file(part)
            if part.stat().st_size > MAX_UPLOAD_BYTES:
                raise AnimationUploadError(f"{path.name} grew past 25 MB while being copied.")
            with self.db.session() as session:
                entry = store.add_upload(session, animation_id, name, description, relative,
                                         self.clock())
                os.replace(part, final)
                placed = True
        except BaseException:
            part.unlink(missing_ok=True)
            if placed:
                final.unlink(missing_ok=True)
            raise
        self._register(entry)
        return entry

    def delete(self, animation_id: str) -> None:
        """Remove an upload's row and file together. ValueError for a built-in."""
        moved = False
        path = doomed = None
        try:
            with self.db.session() as session:
                entry = store.delete_upload(session, animation_id)
                path = self.upload_path(entry)
                doomed = path.with_name(f".{path.name}.deleting")
                if path.is_file():
                    os.replace(path, doomed)
                    moved = True
        except BaseException:
            if moved and path is not None and doomed is not None:
                os.replace(doomed, path)  # the row is still there: so is its file
            raise
        self.library.remove(animation_id)
        if moved and doomed is not None:
            try:
                doomed.unlink()
            except OSError as error:
                log.warning("could not remove %s: %s", doomed, error)
