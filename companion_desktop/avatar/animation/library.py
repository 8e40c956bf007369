"""The animation library: clips by id, loaded lazily from their .vrma files.

Built-ins come from a folder's manifest, ``library.json``
(``resources/animations``)::

    {"clips": [{"id": "idle_calm", "name": "Calm", "kind": "idle", "file": "idle_calm.vrma",
                "description": "...", "loop": true}, ...]}

``kind`` is "idle", "emote", "talking", "thinking" or "move" (walking, sitting); ``file``
is relative to the manifest; ``loop`` defaults to true except for emotes. Entries with a
bad id, kind or a file outside the folder are skipped. Uploads (and clips built in code)
are added with ``add_file`` / ``add_clip`` and removed with ``remove``. A clip is parsed
on its first ``get`` and kept; a file that fails keeps its ``ClipLoadError`` (raised again
on each ``get``, not re-parsed) until ``reload()``, which re-reads the manifest and
forgets every parsed clip.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .channels import ClipLoadError
from .clip import Clip
from .vrma import load_vrma

log = logging.getLogger(__name__)

KINDS = ("idle", "emote", "talking", "thinking", "move")
UPLOAD = "upload"
ID_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,64}")
MANIFEST = "library.json"


def default_folder() -> Path:
    """The built-in clips, package data (``resources/animations``)."""
    from companion_desktop.resources import builtin_clips_dir

    return builtin_clips_dir()


@dataclass(frozen=True)
class LibraryEntry:
    """One clip of the library; ``file`` is relative to the manifest for built-ins."""

    id: str
    name: str
    kind: str  # idle | emote | talking | thinking | upload
    file: str = ""
    description: str = ""
    loop: bool = True
    path: Path | None = None  # the file on disk (None for a clip added in code)

    @property
    def builtin(self) -> bool:
        return self.kind != UPLOAD


class AnimationLibrary:
    """Clips by id. ``folder`` holds ``library.json`` and the built-in .vrma files
    (default: ``resources/animations``); ``loader`` reads one file (default
    ``load_vrma``)."""

    def __init__(self, folder: Path | str | None = None, *,
                 loader: Callable[..., Clip] = load_vrma) -> None:
        self.folder = Path(folder) if folder is not None else default_folder()
        self.loader = loader
        self._builtins: dict[str, LibraryEntry] = {}
        self._extra: dict[str, LibraryEntry] = {}
        self._clips: dict[str, Clip] = {}
        self._errors: dict[str, ClipLoadError] = {}
        self.reload()

    # -- manifest ---------------------------------------------------------------------
    def reload(self) -> None:
        """Re-read the manifest; every clip is parsed again on its next ``get``."""
        self._builtins = {e.id: e for e in self._read_manifest()}
        self._clips = {i: c for i, c in self._clips.items()
                       if i in self._extra and self._extra[i].path is None}
        self._errors.clear()

    def _read_manifest(self) -> list[LibraryEntry]:
        path = self.folder / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("animation manifest %s unreadable: %s", path, exc)
            return []
        items = data.get("clips") if isinstance(data, dict) else data
        entries = []
        for item in items if isinstance(items, list) else []:
            entry = self._manifest_entry(item)
            if entry is not None:
                entries.append(entry)
        return entries

    def _manifest_entry(self, item: Any) -> LibraryEntry | None:
        if not isinstance(item, dict):
            return None
        clip_id, kind, file = item.get("id"), item.get("kind"), item.get("file")
        if not isinstance(clip_id, str) or not ID_PATTERN.fullmatch(clip_id) \
                or kind not in KINDS or not isinstance(file, str) or not file:
            log.warning("animation manifest entry skipped: %r", item)
            return None
        base = self.folder.resolve()
        path = (base / file).resolve()
        if not path.is_relative_to(base):
            log.warning("animation manifest entry %s points outside %s", clip_id, base)
            return None
        name = item.get("name")
        description = item.get("description")
        loop = item.get("loop")
        return LibraryEntry(
            id=clip_id, name=name if isinstance(name, str) and name else clip_id, kind=kind,
            file=file, description=description if isinstance(description, str) else "",
            loop=loop if isinstance(loop, bool) else kind != "emote", path=path,
        )

    # -- adding and removing ----------------------------------------------------------
    def add_file(self, clip_id: str, path: Path | str, *, name: str | None = None,
                 description: str = "", kind: str = UPLOAD, loop: bool = True) -> LibraryEntry:
        """Register a .vrma (an upload); parsed on its first ``get``."""
        entry = LibraryEntry(clip_id, name or clip_id, kind, Path(path).name, description, loop,
                             Path(path))
        self._extra[clip_id] = entry
        self._clips.pop(clip_id, None)
        self._errors.pop(clip_id, None)
        return entry

    def add_clip(self, clip: Clip, *, kind: str = UPLOAD) -> LibraryEntry:
        """Register a clip built in code under ``clip.id``."""
        entry = LibraryEntry(clip.id, clip.name or clip.id, kind, "", clip.description,
                             clip.loop, None)
        self._extra[clip.id] = entry
        self._clips[clip.id] = clip
        self._errors.pop(clip.id, None)
        return entry

    def remove(self, clip_id: str) -> bool:
        """Forget an added clip (built-ins stay); False when there was none."""
        self._clips.pop(clip_id, None)
        self._errors.pop(clip_id, None)
        return self._extra.pop(clip_id, None) is not None

    # -- reading ----------------------------------------------------------------------
    def _entries(self) -> dict[str, LibraryEntry]:
        return {**self._builtins, **self._extra}

    def ids(self) -> set[str]:
        """Every id the library holds now (built-ins and added clips)."""
        return set(self._builtins) | set(self._extra)

    def __contains__(self, clip_id: object) -> bool:
        return clip_id in self._builtins or clip_id in self._extra

    def entry(self, clip_id: str) -> LibraryEntry | None:
        return self._entries().get(clip_id)

    def manifest_entries(self) -> list[LibraryEntry]:
        """The built-in clips, in manifest order."""
        return list(self._builtins.values())

    def all_entries(self) -> list[LibraryEntry]:
        return list(self._entries().values())

    def ids_of_kind(self, kind: str) -> list[str]:
        return [e.id for e in self._entries().values() if e.kind == kind]

    @property
    def builtin_idle_ids(self) -> list[str]:
        return [e.id for e in self._builtins.values() if e.kind == "idle"]

    @property
    def emote_ids(self) -> list[str]:
        return [e.id for e in self._builtins.values() if e.kind == "emote"]

    @property
    def talking_id(self) -> str | None:
        return next((e.id for e in self._builtins.values() if e.kind == "talking"), None)

    @property
    def thinking_ids(self) -> list[str]:
        return [e.id for e in self._builtins.values() if e.kind == "thinking"]

    def get(self, clip_id: str) -> Clip:
        """The clip (parsed now if needed). KeyError for an unknown id, ``ClipLoadError``
        for a file that cannot be loaded."""
        clip = self._clips.get(clip_id)
        if clip is not None:
            return clip
        entry = self._entries().get(clip_id)
        if entry is None:
            raise KeyError(clip_id)
        if clip_id in self._errors:
            raise self._errors[clip_id]
        if entry.path is None:
            raise KeyError(clip_id)
        try:
            clip = self.loader(entry.path)
        except ClipLoadError as exc:
            self._errors[clip_id] = exc
            raise
        clip = dataclasses.replace(clip, id=entry.id, name=entry.name, loop=entry.loop,
                                   description=entry.description or clip.description)
        self._clips[clip_id] = clip
        return clip

    def find(self, clip_id: str | None) -> Clip | None:
        """``get`` that answers None for an unknown id or a broken file (logged)."""
        if clip_id is None:
            return None
        try:
            return self.get(clip_id)
        except KeyError:
            return None
        except ClipLoadError as exc:
            log.warning("animation %s cannot be played: %s", clip_id, exc)
            return None

    def error(self, clip_id: str) -> ClipLoadError | None:
        """The load error a clip's file gave, if it failed."""
        return self._errors.get(clip_id)
