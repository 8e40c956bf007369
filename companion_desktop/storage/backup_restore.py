"""Restoring a backup: check everything first, then swap it in; a crash cannot leave half.

1. The archive is read whole: its manifest, every file's size and SHA-256, no file
   it does not list, no path outside the data folder; the database must pass
   ``PRAGMA integrity_check`` and carry a schema revision this version knows.
   Any refusal changes nothing.
2. The files are unpacked into ``<data folder>/.restore-<id>/new`` (same disk).
3. A marker file (``SWAP``) is written; then each item (database, ``keepsakes``,
   ``animations``, ``models``) moves aside into ``.restore-<id>/old`` and the new
   one moves in. A restore interrupted after the marker is finished by
   :func:`recover` (``Database.open`` calls it); one interrupted before it is
   discarded. The previous state stays in ``old`` until every item is in.

The database must not be open elsewhere: a running app holds it, so
:func:`restore_backup` refuses then (``DatabaseInUseError``). The app itself
stages the restore with ``pending=True`` (marker ``PENDING``): it is swapped in
the next time the database is opened by a program that is alone on it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import sqlite3
import uuid
import zipfile
import zlib
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from . import migrate
from .backup import (
    FOLDERS, FORMAT_VERSION, MANIFEST, MODELS_DIR, REASON_RESTORE, BackupError, BackupInfo,
    Progress, auto_backup, chunks, is_member_name, read_manifest,
)  # fmt: skip
from .paths import DB_FILENAME

log = logging.getLogger(__name__)

STAGE_PREFIX = ".restore-"
SWAP, PENDING = "SWAP", "PENDING"
ITEMS = (DB_FILENAME, *FOLDERS)
_SIDE_FILES = ("-wal", "-shm", "-journal")


class DatabaseInUseError(BackupError):
    """Another program (the running app) has the database open."""


@dataclass(frozen=True)
class Restored:
    """The restored archive's manifest, the backup of what was there before (None when
    there was nothing), and whether it waits for the next start (``pending``)."""

    manifest: dict
    previous: BackupInfo | None
    pending: bool


def in_use(db_file: Path) -> bool:
    """True when another connection has the database open (WAL: its shared-memory lock)."""
    if not db_file.is_file():
        return False
    try:
        conn = sqlite3.connect(db_file, timeout=0, isolation_level=None)
    except sqlite3.Error:
        return True
    try:
        conn.execute("PRAGMA locking_mode=EXCLUSIVE")
        conn.execute("BEGIN EXCLUSIVE")
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()


def verify(archive: Path, into: Path | None = None, progress: Progress | None = None) -> dict:
    """Check every file of ``archive`` against its manifest (unpacking into ``into`` when
    given); returns the manifest. BackupError names the first problem."""
    manifest = read_manifest(archive)
    _check_format(archive, manifest.get("format_version"))
    _check_schema(archive, manifest.get("schema_revision"))
    listed: dict[str, dict] = {}
    for entry in manifest["files"]:
        name = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not is_member_name(name) or name in listed:
            raise BackupError(f"{archive}: the manifest lists an unusable path {name!r}.", archive)
        listed[name] = entry
    if DB_FILENAME not in listed:
        raise BackupError(f"{archive} holds no database.", archive)
    total = sum(max(_size(e), 0) for e in listed.values())
    done = 0
    try:
        with zipfile.ZipFile(archive) as zipped:
            names = {n for n in zipped.namelist() if n != MANIFEST and not n.endswith("/")}
            extra = sorted(names - set(listed))
            if extra:
                raise BackupError(f"{archive} holds {extra[0]}, which its manifest does not list.",
                                  archive)
            for name, entry in listed.items():
                if name not in names:
                    raise BackupError(f"{archive} is missing {name}.", archive)
                digest, size, expected = hashlib.sha256(), 0, _size(entry)
                out = None
                if into is not None:
                    (into / name).parent.mkdir(parents=True, exist_ok=True)
                    out = (into / name).open("wb")
                try:
                    with zipped.open(name) as src:
                        for chunk in chunks(src):
                            digest.update(chunk)
                            size += len(chunk)
                            if size > expected:  # stop before a lying member fills the disk
                                break
                            done += len(chunk)
                            if out is not None:
                                out.write(chunk)
                            if progress is not None:
                                progress(done, total)
                finally:
                    if out is not None:
                        out.close()
                if size != entry.get("size") or digest.hexdigest() != entry.get("sha256"):
                    raise BackupError(f"{archive} is damaged: {name} does not match its checksum.",
                                      archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, ValueError) as error:
        raise BackupError(f"{archive} is damaged ({error}).", archive) from None
    except OSError as error:
        raise BackupError(f"Cannot restore from {archive}: {error.strerror or error}",
                          archive) from error
    return manifest


def _size(entry: dict) -> int:
    size = entry.get("size")
    return size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else -1


def _check_format(archive: Path, version: object) -> None:
    """Refuse an archive laid out by a newer version (or with no usable format number)."""
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise BackupError(f"{archive}: its manifest has no usable format version.", archive)
    if version > FORMAT_VERSION:
        raise BackupError(
            f"{archive} was made by a newer version of companion-desktop (backup format "
            f"{version}; this version reads up to {FORMAT_VERSION}). Update the app to restore it.",
            archive,
        )


def _check_schema(archive: Path, revisions: object) -> None:
    known = migrate.known_revisions()
    unknown = [r for r in (revisions or []) if r not in known] if isinstance(revisions, list) else []
    if unknown:
        raise BackupError(
            f"{archive} was made by a newer version of companion-desktop (schema revision "
            f"{', '.join(map(str, unknown))}); this version knows up to "
            f"{migrate.head_revision()}. Update the app to restore it.",
            archive,
        )


def _check_database(archive: Path, db_file: Path) -> None:
    try:
        conn = sqlite3.connect(f"{db_file.resolve().as_uri()}?mode=ro", uri=True)
        try:
            result = conn.execute("PRAGMA integrity_check").fetchone()
            rows = conn.execute("SELECT version_num FROM alembic_version").fetchall()
        finally:
            conn.close()
    except sqlite3.Error as error:
        raise BackupError(f"{archive}: its database is damaged ({error}).", archive) from None
    if not result or result[0] != "ok":
        raise BackupError(f"{archive}: its database is damaged ({result}).", archive)
    _check_schema(archive, [str(row[0]) for row in rows])


def _point_avatar_at_copy(db_file: Path, data_dir: Path, stage_new: Path) -> None:
    models = sorted((stage_new / MODELS_DIR).glob("*")) if (stage_new / MODELS_DIR).is_dir() else []
    if not models:
        return
    target = str((data_dir / MODELS_DIR / models[0].name).resolve())
    conn = sqlite3.connect(db_file)
    try:
        conn.execute("UPDATE settings SET data = json_set(data, '$.model_path', ?) "
                     "WHERE section = 'avatar'", (target,))
        conn.commit()
    finally:
        conn.close()


def restore_backup(data_dir: Path | str, archive: Path, *, now: datetime | None = None,
                   pending: bool = False, progress: Progress | None = None) -> Restored:
    """Restore ``archive`` into ``data_dir`` (see the module's steps).

    ``pending``: only stage it, to be swapped in at the next open (the running app)."""
    data_dir = Path(data_dir).expanduser()
    archive = Path(archive).expanduser()
    db_file = data_dir / DB_FILENAME
    if not pending and in_use(db_file):
        raise DatabaseInUseError(
            f"companion-desktop is running on {data_dir}: quit it first, or restore from "
            "Settings > Data in the app. Nothing changed.", db_file)
    data_dir.mkdir(parents=True, exist_ok=True)
    recover(data_dir)
    stage = data_dir / f"{STAGE_PREFIX}{uuid.uuid4().hex[:12]}"
    new = stage / "new"
    try:
        new.mkdir(parents=True)
        manifest = verify(archive, into=new, progress=progress)
        _check_database(archive, new / DB_FILENAME)
        _point_avatar_at_copy(new / DB_FILENAME, data_dir, new)
        for folder in FOLDERS:
            (new / folder).mkdir(exist_ok=True)  # an item absent from the archive goes too
        previous = auto_backup(data_dir, REASON_RESTORE, now or datetime.now(timezone.utc))
        _mark(stage, PENDING if pending else SWAP, archive)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    if not pending:
        try:
            _swap(data_dir, stage)
        except OSError as error:
            raise BackupError(
                f"The restore stopped midway ({error.strerror or error}); it is finished the "
                f"next time companion-desktop opens {data_dir}.", db_file) from error
    for other in data_dir.glob(f"{STAGE_PREFIX}*"):  # the latest choice wins
        if other != stage and (other / PENDING).is_file():
            shutil.rmtree(other, ignore_errors=True)
    return Restored(manifest, previous, pending)


def _mark(stage: Path, kind: str, archive: Path) -> None:
    marker = stage / kind
    with marker.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"archive": str(archive)}))
        out.flush()
        os.fsync(out.fileno())


def _swap(data_dir: Path, stage: Path) -> None:
    """Move each item aside and the new one in; safe to run again after a crash."""
    (stage / SWAP).touch(exist_ok=True)
    (stage / PENDING).unlink(missing_ok=True)
    new, old = stage / "new", stage / "old"
    old.mkdir(exist_ok=True)
    for item in ITEMS:
        if not (new / item).exists():
            continue  # already moved in
        names = [item, *(item + s for s in _SIDE_FILES)] if item == DB_FILENAME else [item]
        for name in names:
            if (data_dir / name).exists() and not (old / name).exists():
                os.replace(data_dir / name, old / name)
        if (new / item).is_dir() and not any((new / item).iterdir()):
            (new / item).rmdir()  # nothing of that kind in the backup: none here either
        else:
            os.replace(new / item, data_dir / item)
    (stage / SWAP).unlink()
    shutil.rmtree(stage, ignore_errors=True)
    log.info("restored into %s", data_dir)


def pending_restore(data_dir: Path | str) -> Path | None:
    """The staged restore waiting for the next start, if any."""
    for stage in sorted(Path(data_dir).expanduser().glob(f"{STAGE_PREFIX}*")):
        if (stage / PENDING).is_file():
            return stage
    return None


def recover(data_dir: Path | str) -> bool:
    """Finish an interrupted or pending restore, drop a half-staged one. Called before the
    database opens; does nothing while another program has it open. True when one was
    swapped in."""
    data_dir = Path(data_dir).expanduser()
    stages = sorted(data_dir.glob(f"{STAGE_PREFIX}*"))
    if not stages or in_use(data_dir / DB_FILENAME):
        return False
    swapped = False
    for stage in stages:
        if (stage / SWAP).is_file() or (stage / PENDING).is_file():
            _swap(data_dir, stage)
            swapped = True
        else:
            shutil.rmtree(stage, ignore_errors=True)
    return swapped
