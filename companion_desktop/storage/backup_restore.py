"""Restoring a backup: check everything first, then swap it in; a crash cannot leave half.

1. The archive is read whole: its manifest, every file's size and SHA-256, no file
   it does not list, no path outside the data folder, nothing past the size limits
   (``backup_limits``) and room on the disk; the database must pass
   ``PRAGMA integrity_check`` and carry a schema revision this version knows.
   Any refusal changes nothing.
2. The files are unpacked into ``<data folder>/.restore-<id>/new`` (same disk, 0600).
   The restored settings are made safe (``restore_trust``: MCP servers off, new key
   addresses held until confirmed, her avatar on the restored copy).
3. A marker file (``SWAP``) is written; then each item (database, ``keepsakes``,
   ``animations``, ``models``) moves aside into ``.restore-<id>/old`` and the new
   one moves in. A restore interrupted after the marker is finished by
   :func:`recover` (``Database.open`` calls it); one interrupted before it is
   discarded. The previous state stays in ``old`` until every item is in.

A stage folder is recognised by its exact name and its ``STAGE`` marker: nothing else
in the data folder is ever touched. The database must not be open elsewhere: a running
app holds it, so :func:`restore_backup` refuses then (``DatabaseInUseError``). The app
itself stages the restore with ``pending=True`` (marker ``PENDING``): it is swapped in
the next time the database is opened by a program that is alone on it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import uuid
import zipfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from . import migrate
from .backup import REASON_RESTORE, Progress, auto_backup, chunks
from .backup_limits import check_sizes, check_space, current_size
from .backup_manifest import (
    FOLDERS,
    FORMAT_VERSION,
    MANIFEST,
    MODELS_DIR,
    BackupError,
    BackupInfo,
    is_member_name,
    read_manifest,
)  # fmt: skip
from .paths import DB_FILENAME
from .private import FILE_MODE, private_dir
from .restore_trust import Review, distrust

log = logging.getLogger(__name__)

STAGE_PREFIX = ".restore-"
SWAP, PENDING, STAGE = "SWAP", "PENDING", "STAGE"
_STAGE_NAME = re.compile(r"\.restore-[0-9a-f]{12}")
ITEMS = (DB_FILENAME, *FOLDERS)
_SIDE_FILES = ("-wal", "-shm", "-journal")


class DatabaseInUseError(BackupError):
    """Another program (the running app) has the database open."""


@dataclass(frozen=True)
class Restored:
    """The restored archive's manifest, the backup of what was there before (None when
    there was nothing), whether it waits for the next start (``pending``), and what it
    left for the user to review (``restore_trust``)."""

    manifest: dict
    previous: BackupInfo | None
    pending: bool
    review: Review = field(default_factory=Review)


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


def verify(archive: Path, into: Path | None = None, progress: Progress | None = None,
           room: Path | None = None) -> dict:
    """Check every file of ``archive`` against its manifest (unpacking into ``into`` when
    given, each file 0600); returns the manifest. The sizes are checked before anything
    is read (``backup_limits``), and with ``room`` (the data folder) the free space too.
    BackupError names the first problem."""
    manifest = read_manifest(archive)
    _check_format(archive, manifest.get("format_version"))
    _check_schema(archive, manifest.get("schema_revision"))
    listed = _listed(archive, manifest)
    try:
        with zipfile.ZipFile(archive) as zipped:
            infos = {i.filename: i for i in zipped.infolist() if not i.filename.endswith("/")}
            extra = sorted(set(infos) - set(listed) - {MANIFEST})
            if extra:
                raise BackupError(f"{archive} holds {extra[0]}, which its manifest does not list.",
                                  archive)
            total = check_sizes(archive, listed, infos)
            if room is not None:
                check_space(archive, room, total + current_size(room, ITEMS))
            done = 0
            for name, entry in listed.items():
                if infos[name].file_size != entry["size"]:
                    raise BackupError(f"{archive} is damaged: {name} does not match its "
                                      "checksum.", archive)
                done = _unpack(zipped, name, entry, into, done, total, progress, archive)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error, ValueError,
            NotImplementedError) as error:
        raise BackupError(f"{archive} is damaged ({error}).", archive) from None
    except OSError as error:
        raise BackupError(f"Cannot restore from {archive}: {error.strerror or error}",
                          archive) from error
    return manifest


def _listed(archive: Path, manifest: dict) -> dict[str, dict]:
    """The manifest's files by name; BackupError for an unusable path or no database."""
    listed: dict[str, dict] = {}
    for entry in manifest["files"]:
        name = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not is_member_name(name) or name in listed:
            raise BackupError(f"{archive}: the manifest lists an unusable path {name!r}.", archive)
        listed[name] = entry
    if DB_FILENAME not in listed:
        raise BackupError(f"{archive} holds no database.", archive)
    return listed


def _unpack(zipped: zipfile.ZipFile, name: str, entry: dict, into: Path | None, done: int,
            total: int, progress: Progress | None, archive: Path) -> int:
    """Read (and write into ``into``) one member, stopping at its listed size; checks
    its SHA-256. Returns the bytes done so far."""
    digest, size, expected = hashlib.sha256(), 0, entry["size"]
    out = None
    if into is not None:
        private_dir((into / name).parent)
        out = os.fdopen(os.open(into / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC
                                | getattr(os, "O_BINARY", 0), FILE_MODE), "wb")
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
    if size != expected or digest.hexdigest() != entry.get("sha256"):
        raise BackupError(f"{archive} is damaged: {name} does not match its checksum.", archive)
    return done


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
    unknown = ([r for r in (revisions or []) if r not in known] if isinstance(revisions, list)
               else [])
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


def _model_copy(data_dir: Path, stage_new: Path) -> Path | None:
    """Where the restored model will be (the first file in ``models/``), None if none."""
    folder = stage_new / MODELS_DIR
    models = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    return (data_dir / MODELS_DIR / models[0].name).resolve() if models else None


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
    private_dir(data_dir)
    recover(data_dir)
    stage = data_dir / f"{STAGE_PREFIX}{uuid.uuid4().hex[:12]}"
    new = stage / "new"
    try:
        private_dir(new)
        (stage / STAGE).touch(mode=FILE_MODE)
        manifest = verify(archive, into=new, progress=progress, room=data_dir)
        _check_database(archive, new / DB_FILENAME)
        review = _distrust(archive, new / DB_FILENAME, db_file, _model_copy(data_dir, new))
        for folder in FOLDERS:
            private_dir(new / folder)  # an item absent from the archive goes too
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
    for other in _stages(data_dir):  # the latest choice wins
        if other != stage and (other / PENDING).is_file():
            shutil.rmtree(other, ignore_errors=True)
    return Restored(manifest, previous, pending, review)


def _distrust(archive: Path, new_db: Path, current_db: Path, model: Path | None) -> Review:
    try:
        return distrust(new_db, current_db, model)
    except sqlite3.Error as error:
        raise BackupError(f"{archive}: its settings cannot be read ({error}).", archive) from None


def _stages(data_dir: Path) -> list[Path]:
    """The stage folders this code made: the exact name and a marker of its own."""
    return [stage for stage in sorted(data_dir.glob(f"{STAGE_PREFIX}*"))
            if _STAGE_NAME.fullmatch(stage.name) and stage.is_dir() and not stage.is_symlink()
            and any((stage / marker).is_file() for marker in (STAGE, SWAP, PENDING))]


def _mark(stage: Path, kind: str, archive: Path) -> None:
    marker = stage / kind
    with os.fdopen(os.open(marker, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE), "w",
                   encoding="utf-8") as out:
        out.write(json.dumps({"archive": str(archive)}))
        out.flush()
        os.fsync(out.fileno())


def _swap(data_dir: Path, stage: Path) -> None:
    """Move each item aside and the new one in; safe to run again after a crash."""
    (stage / SWAP).touch(exist_ok=True)
    (stage / PENDING).unlink(missing_ok=True)
    new, old = stage / "new", stage / "old"
    private_dir(old)
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
    for stage in _stages(Path(data_dir).expanduser()):
        if (stage / PENDING).is_file():
            return stage
    return None


def recover(data_dir: Path | str) -> bool:
    """Finish an interrupted or pending restore, drop a half-staged one. Called before the
    database opens; does nothing while another program has it open. True when one was
    swapped in."""
    data_dir = Path(data_dir).expanduser()
    stages = _stages(data_dir)
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
