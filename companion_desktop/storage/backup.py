"""Backups: one zip archive with everything that is hers in the data folder.

An archive holds the database (copied with SQLite's online backup, so it is
consistent while the app runs), the kept photos (``keepsakes/``), the uploaded
animation clips (``animations/``) and her avatar model (``models/``, the file
Settings > Character points at); settings live in the database. API keys and
MCP secrets live in the system keyring and are never in an archive.
``manifest.json`` (``backup_manifest``) lists every file with its size and SHA-256,
the app version, the schema revision, the reason, the time and the creation order.

Automatic backups (before a replace import, before a migration, once a day at
start, before a restore) go to ``<data folder>/backups``; the newest
``KEEP_AUTOMATIC`` are kept, newest by creation order (``sequence``), never by a
clock that may have been wrong, and the one just written is never pruned. Backups
made on request there are never pruned. Restoring lives in ``backup_restore``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import uuid
import zipfile
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import IO, ClassVar

from sqlalchemy.orm import Session

from .. import __version__
from .backup_manifest import (
    FORMAT,
    FORMAT_VERSION,
    MANIFEST,
    MODELS_DIR,
    UPLOADS_DIR,
    BackupError,
    BackupInfo,
    damaged_info,
    info_of,
)  # fmt: skip
from .backup_work import work_folder
from .errors import StorageError
from .keepsakes import KEEPSAKE_DIR
from .paths import DB_FILENAME
from .private import private_dir
from .settings import SettingsSection, load_settings, save_settings

log = logging.getLogger(__name__)

BACKUP_DIR = "backups"
KEEP_AUTOMATIC = 7
REASON_MANUAL = "manual"
REASON_DAILY = "daily"
REASON_REPLACE = "before replace import"
REASON_MIGRATION = "before migration"
REASON_RESTORE = "before restore"
_CHUNK = 1 << 20
#: Already-compressed files are stored, not deflated again.
_STORED = {".jpg", ".jpeg", ".png", ".webp", ".gif", ".vrm", ".glb", ".vrma", ".zip"}
#: Her model goes in only when it is a model file (a setting could name any file).
MODEL_SUFFIXES = (".vrm", ".glb")
MAX_MODEL_BYTES = 512 * 1024 * 1024  # avatar.vrm.limits: the loader's cap
#: A date this far past "now" is not believed when ranking backups (a clock was ahead).
CLOCK_SLACK = timedelta(days=1)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

#: progress(done, total) in bytes; called from the working thread.
Progress = Callable[[int, int], None]


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


def chunks(handle: IO[bytes]) -> Iterator[bytes]:
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
    """The avatar model file her settings point at, when it exists and is a model file
    (``.vrm``/``.glb`` starting with the glTF magic, at most :data:`MAX_MODEL_BYTES`):
    a setting naming any other file never brings that file into an archive."""
    try:
        conn = sqlite3.connect(f"{db_file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT data FROM settings WHERE section = 'avatar'").fetchone()
        finally:
            conn.close()
        path = json.loads(row[0]).get("model_path") if row else None
    except (sqlite3.Error, ValueError, AttributeError, TypeError):
        return None
    if not isinstance(path, str) or not path.lower().endswith(MODEL_SUFFIXES):
        return None
    model = Path(path)
    try:
        if not model.is_file() or model.stat().st_size > MAX_MODEL_BYTES:
            return None
        with model.open("rb") as handle:
            return model if handle.read(4) == b"glTF" else None
    except OSError:
        return None


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
        members.append((model_member(model), model))
    return members


def model_member(model: Path) -> str:
    """Her model's name inside an archive (and in the manifest: never a full path)."""
    return f"{MODELS_DIR}/{model.name}"


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
    """Write one archive (to ``target``, else into ``backups/``): its database copy in a
    work folder inside the data folder (``backup_work``), the archive in a partial file
    beside ``target``, then a rename. The archive's mode is 0600."""
    data_dir = Path(data_dir).expanduser()
    now = now or datetime.now(timezone.utc)
    source = data_dir / DB_FILENAME
    if not source.is_file():
        raise BackupError(f"There is no database in {data_dir}: nothing to back up.", source)
    target = Path(target).expanduser() if target else _target(backup_dir(data_dir), now, reason)
    try:
        if target.parent == backup_dir(data_dir):
            private_dir(target.parent)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
        sequence = next_sequence(data_dir)
        with work_folder(data_dir, target) as work:
            snapshot = work.folder / DB_FILENAME
            schema = snapshot_database(source, snapshot)
            model = avatar_model(snapshot)
            files = _write_archive(work.partial, _members(data_dir, snapshot, model), progress)
            manifest = {
                "format": FORMAT, "format_version": FORMAT_VERSION, "app_version": __version__,
                "schema_revision": schema, "created_at": now.astimezone(timezone.utc).isoformat(),
                "reason": reason, "automatic": automatic, "sequence": sequence, "files": files,
                "avatar_model": model_member(model) if model is not None else None,
            }  # fmt: skip
            with zipfile.ZipFile(work.partial, "a") as archive:
                archive.writestr(MANIFEST, json.dumps(manifest, indent=2, ensure_ascii=False))
            with work.partial.open("rb") as handle:
                os.fsync(handle.fileno())
            os.replace(work.partial, target)
    except OSError as error:
        raise BackupError(f"Could not write the backup {target}: {error.strerror or error}",
                          target) from error
    log.info("backup %s (%s)", target, reason)
    return BackupInfo(target, now.astimezone(timezone.utc), reason, target.stat().st_size,
                      automatic, __version__, tuple(schema), sequence)


def _write_archive(path: Path, members: list[tuple[str, Path]],
                   progress: Progress | None) -> list[dict[str, object]]:
    total = sum(file.stat().st_size for _, file in members)
    done, files = 0, []
    with zipfile.ZipFile(path, "w", allowZip64=True) as archive:
        for name, file in members:
            compress = (zipfile.ZIP_STORED if file.suffix.lower() in _STORED
                        else zipfile.ZIP_DEFLATED)
            digest, size = hashlib.sha256(), 0
            with (file.open("rb") as src,
                  archive.open(_info(name, compress), "w", force_zip64=True) as dst):
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


def list_backups(data_dir: Path | str, now: datetime | None = None) -> list[BackupInfo]:
    """The archives in ``backups/``, newest first: by creation order (``sequence``), then
    by date, where a date more than :data:`CLOCK_SLACK` after ``now`` counts as the
    oldest. Damaged archives are listed with their ``problem`` (and sequence 0)."""
    found = []
    for path in sorted(backup_dir(data_dir).glob("*.zip")):
        if not path.is_file():
            continue
        try:
            found.append(info_of(path))
        except BackupError as error:
            log.warning("damaged backup %s: %s", path, error)
            found.append(damaged_info(path, str(error)))
        except OSError as error:
            log.warning("skipping %s: %s", path, error)
    limit = (now or datetime.now(timezone.utc)) + CLOCK_SLACK

    def rank(info: BackupInfo) -> tuple:
        believed = info.created_at if info.created_at <= limit else _EPOCH
        return (info.sequence, believed, info.path.name)

    return sorted(found, key=rank, reverse=True)


def next_sequence(data_dir: Path | str) -> int:
    """The creation-order number of the next archive written into ``backups/``."""
    return 1 + max((b.sequence for b in list_backups(data_dir)), default=0)


def space_used(data_dir: Path | str) -> int:
    """Bytes the archives in ``backups/`` take."""
    return sum(p.stat().st_size for p in backup_dir(data_dir).glob("*.zip") if p.is_file())


def prune(data_dir: Path | str, keep: int = KEEP_AUTOMATIC, *, protect: Path | None = None,
          now: datetime | None = None) -> list[Path]:
    """Delete all but the newest ``keep`` automatic backups (in :func:`list_backups`'
    order; ``protect``, the one just written, always stays); returns what went.
    Damaged archives are never deleted here."""
    automatic = [b for b in list_backups(data_dir, now) if b.automatic and b.problem is None]
    protected = [b for b in automatic if protect is not None and b.path == protect]
    others = [b for b in automatic if b not in protected]
    gone = []
    for old in others[max(keep - len(protected), 0):]:
        old.path.unlink(missing_ok=True)
        gone.append(old.path)
    return gone


def has_data(data_dir: Path) -> bool:
    path = data_dir / DB_FILENAME
    return path.is_file() and path.stat().st_size > 0


def auto_backup(data_dir: Path | str, reason: str, now: datetime | None = None,
                progress: Progress | None = None) -> BackupInfo | None:
    """An automatic backup into ``backups/`` (None when there is no database yet), then
    prune (never the new one). Raises BackupError when it cannot be written: what it
    protects must not run."""
    data_dir = Path(data_dir).expanduser()
    if not has_data(data_dir):
        return None
    made = create_backup(data_dir, reason=reason, now=now, automatic=True, progress=progress)
    prune(data_dir, protect=made.path, now=now)
    return made


def daily_backup(data_dir: Path | str, now: datetime | None = None) -> BackupInfo | None:
    """The day's automatic backup at start: none when one was made today (local day)."""
    now = now or datetime.now().astimezone()
    today = now.astimezone().date()
    for made in list_backups(data_dir, now):
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
