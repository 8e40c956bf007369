"""A backup archive's manifest: what it holds, read and checked before anything trusts it.

``manifest.json`` names the format and its version, the app version, the schema
revisions, the reason, the time it was made (UTC, ISO 8601), a ``sequence`` number
(creation order in its ``backups/`` folder, which no clock can upset) and every file
with its size and SHA-256. An archive is untrusted input: a manifest that is not an
object, lists no files or carries a time that is no real date (before 1970 or after
2200, or one Python cannot place in a time zone) is damaged, and says so.
"""

from __future__ import annotations

import json
import zipfile
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

from .errors import StorageError
from .keepsakes import KEEPSAKE_DIR
from .paths import DB_FILENAME

MANIFEST = "manifest.json"
FORMAT = "companion-desktop-backup"
FORMAT_VERSION = 1
UPLOADS_DIR = "animations"  # pipeline.animations.UPLOADS_DIR
MODELS_DIR = "models"
#: What a backup holds and a restore replaces, beside the database.
FOLDERS = (KEEPSAKE_DIR, UPLOADS_DIR, MODELS_DIR)
#: The years a backup's date may have (a clock without a battery starts at 1970).
FIRST_YEAR, LAST_YEAR = 1970, 2200
#: The largest manifest read, in bytes (a real one lists a few thousand files).
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
_MAX_SEQUENCE = 2**53


class BackupError(StorageError):
    """A backup could not be made or an archive is refused; nothing changed."""


@dataclass(frozen=True)
class BackupInfo:
    """One archive: where, when (UTC), why, how big; ``automatic`` ones are pruned.
    ``sequence`` is its place in creation order (0: made before sequences, or damaged).
    ``problem`` says why a damaged archive cannot be restored (None when it can be
    read); a damaged one carries its file's time and no reason."""

    path: Path
    created_at: datetime
    reason: str
    size: int
    automatic: bool
    app_version: str
    schema: tuple[str, ...]
    sequence: int = 0
    problem: str | None = None


def read_manifest(archive: Path) -> dict:
    """The manifest of an archive, checked; BackupError when it is not a readable backup."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            info = zipped.getinfo(MANIFEST)
            if info.file_size > MAX_MANIFEST_BYTES:
                raise BackupError(f"{archive} is damaged (its manifest is too large).", archive)
            data = json.loads(zipped.read(info))
    except KeyError:
        raise BackupError(f"{archive} is not a companion-desktop backup (no {MANIFEST}).",
                          archive) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, RecursionError, EOFError,
            zlib.error, NotImplementedError) as error:
        raise BackupError(f"{archive} is damaged or not a backup ({error}).", archive) from None
    except OSError as error:
        raise BackupError(f"Cannot read {archive}: {error.strerror or error}", archive) from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(f"{archive} is not a companion-desktop backup.", archive)
    if not isinstance(data.get("files"), list):
        raise BackupError(f"{archive}: its manifest lists no files.", archive)
    created_at(data, archive)
    return data


def created_at(manifest: dict, archive: Path | None = None) -> datetime:
    """The manifest's ``created_at`` as an aware UTC time; BackupError when it is none."""
    text = manifest.get("created_at")
    try:
        moment = datetime.fromisoformat(text) if isinstance(text, str) else None
        if moment is not None:
            moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
            moment = moment.astimezone(timezone.utc)
            moment.astimezone()  # it must also have a local time, for the list
    except (ValueError, OverflowError, OSError):
        moment = None
    if moment is None or not FIRST_YEAR <= moment.year <= LAST_YEAR:
        shown = str(text)[:40] if text is not None else "none"
        raise BackupError(f"{archive or 'The backup'} is damaged: the date it was made "
                          f"({shown}) is not a real date.", archive)
    return moment


def sequence_of(manifest: dict[str, Any]) -> int:
    """The manifest's creation-order number (0 when absent or not a sane one)."""
    value = manifest.get("sequence")
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < _MAX_SEQUENCE:
        return value
    return 0


def info_of(archive: Path) -> BackupInfo:
    """What :func:`read_manifest` finds, as a BackupInfo (BackupError when damaged)."""
    data = read_manifest(archive)
    revisions = data.get("schema_revision")
    return BackupInfo(archive, created_at(data, archive), str(data.get("reason", ""))[:100],
                      archive.stat().st_size, data.get("automatic") is True,
                      str(data.get("app_version", ""))[:40],
                      tuple(str(r) for r in revisions) if isinstance(revisions, list) else (),
                      sequence_of(data))


def damaged_info(archive: Path, problem: str) -> BackupInfo:
    """A BackupInfo for an archive that cannot be read: its file's time, the problem."""
    stat = archive.stat()
    try:
        moment = datetime.fromtimestamp(stat.st_mtime, timezone.utc)
    except (OverflowError, OSError, ValueError):
        moment = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return BackupInfo(archive, moment, "", stat.st_size, False, "", (), 0, problem)


def is_member_name(name: str) -> bool:
    """A safe archive path: relative, no ``..``, the database or inside a known folder."""
    parts = PurePosixPath(name).parts
    if (not parts or name.startswith("/") or "\\" in name
            or any(p in ("", ".", "..") for p in parts)):
        return False
    return name == DB_FILENAME or (len(parts) > 1 and parts[0] in FOLDERS)
