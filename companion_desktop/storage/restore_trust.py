"""What a restored database may not bring over as it is: an archive is untrusted input.

A backup can come from anywhere (a forum, a friend, an old machine), and its settings
would otherwise be taken whole. Before a restore is swapped in, its database is
changed so that it cannot run a program or redirect a key:

- MCP servers come back turned off (``enabled`` False, ``restored_off`` True), unless
  this data folder has the very same server turned on now. The user turns each one on
  in Settings > Tools, which shows its command first.
- The addresses keys are sent to: the chat model's (provider and server URL), the
  speech server's and the transcription server's. One that differs from what this data
  folder uses now (or that was waiting for confirmation here) is held
  (``unconfirmed_url``): no key is sent to it until the user confirms it
  (``pipeline.key_hold``: Settings, or ``companion-desktop backup review --confirm``).
- Her avatar points at the restored copy in ``models/``, or at the built-in avatar
  when the archive holds none (a path from elsewhere could name any file on this
  computer, which every later backup would then copy).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .settings import (
    AvatarSettings,
    HearingSettings,
    LlmSettings,
    McpServerEntry,
    McpSettings,
    VoiceSettings,
)

#: The sections whose ``base_url`` a key goes to, and what each is for a person.
URL_SECTIONS: dict[str, tuple[type[LlmSettings | VoiceSettings | HearingSettings], str]] = {
    LlmSettings.SECTION: (LlmSettings, "the chat model"),
    VoiceSettings.SECTION: (VoiceSettings, "the speech server (her voice)"),
    HearingSettings.SECTION: (HearingSettings, "the transcription server (her hearing)"),
}

_Section = TypeVar("_Section", bound=BaseModel)


@dataclass(frozen=True)
class HeldUrl:
    """A key's address a restore changed: ``section`` (llm, voice, hearing), the address
    here before (None: none set) and the restored one, sent no key until confirmed;
    ``provider``, the chat model's provider id (None for the other sections)."""

    section: str
    before: str | None
    after: str
    provider: str | None = None


@dataclass(frozen=True)
class ServerOff:
    """An MCP server a restore brought back turned off, with what it would run."""

    name: str
    what: str


@dataclass(frozen=True)
class Review:
    """What a restore left for the user to review."""

    urls: tuple[HeldUrl, ...] = ()
    servers: tuple[ServerOff, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.urls or self.servers)


def server_what(entry: McpServerEntry) -> str:
    """What a server runs or reaches, as one line: its command and arguments, or URL."""
    if entry.transport == "http":
        return entry.url
    return " ".join([entry.command, *entry.args]).strip()


def _read(conn: sqlite3.Connection | None, model: type[_Section], section: str) -> _Section:
    """A section of ``conn``'s settings (its defaults when missing or invalid)."""
    if conn is None:
        return model()
    try:
        row = conn.execute("SELECT data FROM settings WHERE section = ?", (section,)).fetchone()
        return model.model_validate(json.loads(row[0])) if row else model()
    except (sqlite3.Error, ValueError, TypeError, ValidationError):
        return model()


def _write(conn: sqlite3.Connection, section: str, value: BaseModel) -> None:
    data = json.dumps(value.model_dump(mode="json"))
    updated = conn.execute("UPDATE settings SET data = ? WHERE section = ?", (data, section))
    if updated.rowcount == 0:
        raise sqlite3.OperationalError(f"no {section} settings to change")


def _has(conn: sqlite3.Connection, section: str) -> bool:
    query = "SELECT 1 FROM settings WHERE section = ?"
    return conn.execute(query, (section,)).fetchone() is not None


def _hold_urls(new: sqlite3.Connection, here: sqlite3.Connection | None) -> list[HeldUrl]:
    held = []
    for section, (model, _what) in URL_SECTIONS.items():
        if not _has(new, section):
            continue
        after, before = _read(new, model, section), _read(here, model, section)
        url = after.base_url
        if not url:
            continue
        same = url == before.base_url and getattr(after, "provider", None) == getattr(
            before, "provider", None)
        waiting_here = same and before.unconfirmed_url == url
        if same and not waiting_here and after.unconfirmed_url != url:
            url = None
        if after.unconfirmed_url != url:
            _write(new, section, after.model_copy(update={"unconfirmed_url": url}))
        if url:
            held.append(HeldUrl(section, before.base_url, url, getattr(after, "provider", None)))
    return held


def _servers_off(new: sqlite3.Connection, here: sqlite3.Connection | None) -> list[ServerOff]:
    if not _has(new, McpSettings.SECTION):
        return []
    restored = _read(new, McpSettings, McpSettings.SECTION)
    trusted = {_identity(e) for e in _read(here, McpSettings, McpSettings.SECTION).servers
               if e.enabled and not e.restored_off}
    off, servers = [], []
    for entry in restored.servers:
        if (entry.enabled or entry.restored_off) and _identity(entry) not in trusted:
            entry = entry.model_copy(update={"enabled": False, "restored_off": True})
            off.append(ServerOff(entry.name, server_what(entry)))
        servers.append(entry)
    _write(new, McpSettings.SECTION, McpSettings(servers=servers))
    return off


def _identity(entry: McpServerEntry) -> tuple[Any, ...]:
    """What a server runs and with what: the same identity is the same server."""
    return (entry.name, entry.transport, entry.command, tuple(entry.args),
            tuple(entry.env_names), entry.url, tuple(entry.header_names))


def _point_avatar(new: sqlite3.Connection, model_copy: Path | None) -> None:
    if not _has(new, AvatarSettings.SECTION):
        return
    avatar = _read(new, AvatarSettings, AvatarSettings.SECTION)
    path = str(model_copy) if model_copy is not None else None
    if avatar.model_path != path:
        _write(new, AvatarSettings.SECTION, avatar.model_copy(update={"model_path": path}))


def distrust(new_db: Path, current_db: Path, model_copy: Path | None) -> Review:
    """Change the restored database ``new_db`` as the module says, comparing with the
    database in use now (``current_db``, when it exists); ``model_copy`` is where the
    restored model will be (None: the archive holds none). Returns what was held."""
    here = None
    if current_db.is_file():
        try:
            here = sqlite3.connect(f"{current_db.resolve().as_uri()}?mode=ro", uri=True)
        except sqlite3.Error:
            here = None
    new = sqlite3.connect(new_db)
    try:
        with new:
            urls = _hold_urls(new, here)
            servers = _servers_off(new, here)
            _point_avatar(new, model_copy)
    finally:
        new.close()
        if here is not None:
            here.close()
    return Review(tuple(urls), tuple(servers))
