"""Backups: one zip archive with everything that is hers in the data folder.

An archive holds the database (copied with SQLite's online backup, so it is
consistent while the app runs), the kept photos (``keepsakes/``), the uploaded
animation clips (``animations/``) and her avatar model (``models/``, the file
Settings > Character points at); settings live in the database. API keys and
MCP secrets live in the system keyring and are never in an archive.
``manifest.json`` lists every file with its size and SHA-256, the app version,
the schema revision, the reason and the time.

Automatic backups (before a replace import, before a migration, once a day at
start, before a restore) go to ``<data folder>/backups``; the newest
``KEEP_AUTOMATIC`` are kept. Backups made on request there are never pruned.
Restoring lives in ``backup_restore``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import ClassVar

from sqlalchemy.orm import Session

from .. import __version__
from .errors import StorageError
from .keepsakes import KEEPSAKE_DIR
from .paths import DB_FILENAME
from .settings import SettingsSection, load_settings, save_settings

log = logging.getLogger(__name__)

BACKUP_DIR = "backups"
MANIFEST = "manifest.json"
FORMAT = "companion-desktop-backup"
FORMAT_VERSION = 1
KEEP_AUTOMATIC = 7
UPLOADS_DIR = "animations"  # pipeline.animations.UPLOADS_DIR
MODELS_DIR = "models"
#: What a backup holds and a restore replaces, beside the database.
FOLDERS = (KEEPSAKE_DIR, UPLOADS_DIR, MODELS_DIR)
REASON_MANUAL = "manual"
REASON_DAILY = "daily"
REASON_REPLACE = "before replace import"
REASON_MIGRATION = "before migration"
REASON_RESTORE = "before restore"
_CHUNK = 1 << 20
#: Already-compressed files are stored, not deflated again.
_STORED = {".jpg", ".jpeg", ".png", ".webp", ".gif", ".vrm", ".glb", ".vrma", ".zip"}

#: progress(done, total) in bytes; called from the working thread.
Progress = Callable[[int, int], None]


class BackupError(StorageError):
    """A backup could not be made or an archive is refused; nothing changed."""


@dataclass(frozen=True)
class BackupInfo:
    """One archive: where, when (UTC), why, how big; ``automatic`` ones are pruned."""

    path: Path
    created_at: datetime
    reason: str
    size: int
    automatic: bool
    app_version: str
    schema: tuple[str, ...]


class DataGeneration(SettingsSection):
    """Changes whenever the data is replaced wholesale (a replace import, a restore)."""

    SECTION: ClassVar[str] = "data_generation"
    token: str = ""


def data_generation(session: Session) -> str:
    """The data's generation token ("" until the first replace)."""
    return load_settings(session, DataGeneration).token


def new_generation(session: Session, now: datetime | None = None) -> str:
    """Give the data a new generation token (inside the replacing transaction)."""
    token = uuid.uuid4().hex
    save_settings(session, DataGeneration(token=token), now)
    return token


def backup_dir(data_dir: Path | str) -> Path:
    return Path(data_dir).expanduser() / BACKUP_DIR


def chunks(handle) -> Iterator[bytes]:  # noqa: ANN001 - a binary file
    while chunk := handle.read(_CHUNK):
        yield chunk


def snapshot_database(source: Path, target: Path) -> list[str]:
    """Copy the database with SQLite's online backup; returns its schema revisions."""
    try:
        src = sqlite3.connect(source, timeout=30)
        try:
            dst = sqlite3.connect(target)
            try:
                src.backup(dst)
                dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                rows = dst.execute(
                    "SELECT version_num FROM alembic_version"
                ).fetchall() if _has_table(dst, "alembic_version") else []
            finally:
                dst.close()
        finally:
            src.close()
    except sqlite3.Error as error:
        raise BackupError(f"could not copy the database {source}: {error}", source) from error
    return [str(row[0]) for row in rows]


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    query = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
    return conn.execute(query, (name,)).fetchone() is not None


def avatar_model(db_file: Path) -> Path | None:
    """The avatar model file her settings point at, when it exists."""
    try:
        conn = sqlite3.connect(f"{db_file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT data FROM settings WHERE section = 'avatar'").fetchone()
        finally:
            conn.close()
        path = json.loads(row[0]).get("model_path") if row else None
    except (sqlite3.Error, ValueError, AttributeError):
        return None
    return Path(path) if isinstance(path, str) and path and Path(path).is_file() else None


def _members(data_dir: Path, snapshot: Path, model: Path | None) -> list[tuple[str, Path]]:
    """(name in the archive, file) of everything that goes in."""
    members = [(DB_FILENAME, snapshot)]
    for folder in (KEEPSAKE_DIR, UPLOADS_DIR):
        root = data_dir / folder
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    members.append((path.relative_to(data_dir).as_posix(), path))
    if model is not None:
        members.append((f"{MODELS_DIR}/{model.name}", model))
    return members


def _target(folder: Path, now: datetime, reason: str) -> Path:
    stamp = now.astimezone(timezone.utc).strftime("%Y%m%d-%H%M%S")
    slug = "-".join(reason.split())
    path = folder / f"companion-{stamp}-{slug}.zip"
    count = 2
    while path.exists():
        path = folder / f"companion-{stamp}-{slug}-{count}.zip"
        count += 1
    return path


def create_backup(
    data_dir: Path | str, target: Path | None = None, *, reason: str = REASON_MANUAL,
    now: datetime | None = None, automatic: bool = False, progress: Progress | None = None,
) -> BackupInfo:
    """Write one archive (to ``target``, else into ``backups/``): temp file, then rename."""
    data_dir = Path(data_dir).expanduser()
    now = now or datetime.now(timezone.utc)
    source = data_dir / DB_FILENAME
    if not source.is_file():
        raise BackupError(f"There is no database in {data_dir}: nothing to back up.", source)
    target = Path(target).expanduser() if target else _target(backup_dir(data_dir), now, reason)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _drop_leftovers(target.parent)
        with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".backup-{os.getpid()}-") as work:
            snapshot = Path(work) / DB_FILENAME
            schema = snapshot_database(source, snapshot)
            model = avatar_model(snapshot)
            members = _members(data_dir, snapshot, model)
            partial = Path(work) / "archive.zip"
            files = _write_archive(partial, members, progress)
            manifest = {
                "format": FORMAT, "format_version": FORMAT_VERSION, "app_version": __version__,
                "schema_revision": schema, "created_at": now.astimezone(timezone.utc).isoformat(),
                "reason": reason, "automatic": automatic, "files": files,
                "avatar_model": str(model) if model is not None else None,
            }  # fmt: skip
            with zipfile.ZipFile(partial, "a") as archive:
                archive.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
            with partial.open("rb") as handle:
                os.fsync(handle.fileno())
            os.replace(partial, target)
    except OSError as error:
        raise BackupError(f"Could not write the backup {target}: {error.strerror or error}",
                          target) from error
    log.info("backup %s (%s)", target, reason)
    return BackupInfo(target, now.astimezone(timezone.utc), reason, target.stat().st_size,
                      automatic, __version__, tuple(schema))


def _drop_leftovers(folder: Path) -> None:
    """Remove the work folders of backups whose process died (killed mid-backup)."""
    for work in folder.glob(".backup-*-*"):
        try:
            pid = int(work.name.split("-")[1])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(work, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            continue


def _write_archive(path: Path, members: list[tuple[str, Path]],
                   progress: Progress | None) -> list[dict[str, object]]:
    total = sum(file.stat().st_size for _, file in members)
    done, files = 0, []
    with zipfile.ZipFile(path, "w", allowZip64=True) as archive:
        for name, file in members:
            compress = zipfile.ZIP_STORED if file.suffix.lower() in _STORED else zipfile.ZIP_DEFLATED
            digest, size = hashlib.sha256(), 0
            with file.open("rb") as src, archive.open(_info(name, compress), "w", force_zip64=True) as dst:
                for chunk in chunks(src):
                    digest.update(chunk)
                    dst.write(chunk)
                    size += len(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total)
            files.append({"path": name, "size": size, "sha256": digest.hexdigest()})
    return files


def _info(name: str, compress: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = compress
    return info


def read_manifest(archive: Path) -> dict:
    """The manifest of an archive; BackupError when it is not a readable backup."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            data = json.loads(zipped.read(MANIFEST))
    except KeyError:
        raise BackupError(f"{archive} is not a companion-desktop backup (no {MANIFEST}).",
                          archive) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, RecursionError, EOFError,
            zlib.error) as error:
        raise BackupError(f"{archive} is damaged or not a backup ({error}).", archive) from None
    except OSError as error:
        raise BackupError(f"Cannot read {archive}: {error.strerror or error}", archive) from error
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(f"{archive} is not a companion-desktop backup.", archive)
    if not isinstance(data.get("files"), list):
        raise BackupError(f"{archive}: its manifest lists no files.", archive)
    return data


def info_of(archive: Path) -> BackupInfo:
    data = read_manifest(archive)
    try:
        created = datetime.fromisoformat(str(data.get("created_at")))
    except ValueError:
        created = datetime.fromtimestamp(archive.stat().st_mtime, timezone.utc)
    created = created if created.tzinfo else created.replace(tzinfo=timezone.utc)
    return BackupInfo(archive, created, str(data.get("reason", "")), archive.stat().st_size,
                      bool(data.get("automatic")), str(data.get("app_version", "")),
                      tuple(str(r) for r in data.get("schema_revision") or ()))


def list_backups(data_dir: Path | str) -> list[BackupInfo]:
    """The archives in ``backups/``, newest first (unreadable ones are left out, logged)."""
    found = []
    for path in sorted(backup_dir(data_dir).glob("*.zip")):
        try:
            found.append(info_of(path))
        except (BackupError, OSError) as error:
            log.warning("skipping %s: %s", path, error)
    return sorted(found, key=lambda b: (b.created_at, b.path.name), reverse=True)


def space_used(data_dir: Path | str) -> int:
    """Bytes the archives in ``backups/`` take."""
    return sum(p.stat().st_size for p in backup_dir(data_dir).glob("*.zip") if p.is_file())


def prune(data_dir: Path | str, keep: int = KEEP_AUTOMATIC) -> list[Path]:
    """Delete all but the newest ``keep`` automatic backups; returns what went."""
    automatic = [b for b in list_backups(data_dir) if b.automatic]
    gone = []
    for old in automatic[keep:]:
        old.path.unlink(missing_ok=True)
        gone.append(old.path)
    return gone


def has_data(data_dir: Path) -> bool:
    path = data_dir / DB_FILENAME
    return path.is_file() and path.stat().st_size > 0


def auto_backup(data_dir: Path | str, reason: str, now: datetime | None = None,
                progress: Progress | None = None) -> BackupInfo | None:
    """An automatic backup into ``backups/`` (None when there is no database yet), then
    prune. Raises BackupError when it cannot be written: what it protects must not run."""
    data_dir = Path(data_dir).expanduser()
    if not has_data(data_dir):
        return None
    made = create_backup(data_dir, reason=reason, now=now, automatic=True, progress=progress)
    prune(data_dir)
    return made


def daily_backup(data_dir: Path | str, now: datetime | None = None) -> BackupInfo | None:
    """The day's automatic backup at start: none when one was made today (local day)."""
    now = now or datetime.now().astimezone()
    today = now.astimezone().date()
    for made in list_backups(data_dir):
        if made.reason == REASON_DAILY and made.created_at.astimezone(now.tzinfo).date() == today:
            return None
    try:
        return auto_backup(data_dir, REASON_DAILY, now)
    except StorageError:
        log.warning("the daily backup failed", exc_info=True)
        return None


def start_daily_backup(data_dir: Path | str) -> threading.Thread:
    """:func:`daily_backup` on its own thread (the app's start does not wait for it; the
    process waits for it at exit, so no archive is left half written)."""
    thread = threading.Thread(target=daily_backup, args=(data_dir,), name="daily-backup")
    thread.start()
    return thread


def is_member_name(name: str) -> bool:
    """A safe archive path: relative, no ``..``, the database or inside a known folder."""
    parts = PurePosixPath(name).parts
    if not parts or name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
        return False
    return name == DB_FILENAME or (len(parts) > 1 and parts[0] in FOLDERS)
