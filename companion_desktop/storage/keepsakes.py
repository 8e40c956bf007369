"""Keepsakes: photos the user showed her, kept on the photoboard with her note.

The image and its JPEG thumbnail are files in ``<data folder>/keepsakes/``
(``<uuid>.<ext>`` and ``<uuid>.thumb.jpg``), each written atomically; the row in
``keepsake_photos`` names them relative to the data folder (posix separators).
Files are written before the row is added in the caller's transaction, so a
transaction that rolls back leaves orphan files: :func:`prune_orphan_files`
(called at app start) removes them. A stored path that leads out of the
keepsakes folder is never read or deleted: it reads as a missing file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from .errors import StorageError
from .models import KeepsakeRow

log = logging.getLogger(__name__)

KEEPSAKE_DIR = "keepsakes"
NOTE_MAX = 500  # characters
MAX_DIMENSION = 100_000  # pixels: width and height are 1..MAX_DIMENSION
THUMB_SUFFIX = ".thumb.jpg"
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp"}


class KeepsakeWriteError(StorageError):
    """The photo's files could not be written (permissions, disk full)."""


@dataclass(frozen=True)
class Keepsake:
    """One photo on the board. Paths are absolute; ``width``/``height`` in pixels."""

    id: int
    image_path: Path
    thumbnail_path: Path
    mime_type: str
    width: int
    height: int
    note: str | None
    turn_id: int | None
    created_at: datetime

    @property
    def missing(self) -> bool:
        """True when the image file is gone (or its stored path was refused)."""
        return not self.image_path.is_file()


def bound_note(note: str | None) -> str | None:
    """``note`` stripped, without control characters, cut to NOTE_MAX characters;
    None when nothing is left."""
    if note is None:
        return None
    text = "".join(ch for ch in str(note) if ch.isprintable() or ch in "\n\t")
    text = text.strip()[:NOTE_MAX].rstrip()
    return text or None


def add_keepsake(
    session: Session,
    data_dir: Path | str,
    *,
    image: bytes,
    thumbnail: bytes,
    mime_type: str,
    width: int,
    height: int,
    note: str | None,
    turn_id: int | None,
    created_at: datetime,
) -> Keepsake:
    """Write the files, then add the row in ``session``'s transaction (flushed for its id).

    ValueError for an unknown ``mime_type``, empty bytes or a size outside
    1..MAX_DIMENSION; KeepsakeWriteError when the files cannot be written. If the
    row cannot be added the files are removed again.
    """
    ext = _check(image, thumbnail, mime_type, width, height)
    folder = _folder(data_dir)
    stem = uuid.uuid4().hex
    image_file, thumb_file = folder / f"{stem}.{ext}", folder / f"{stem}{THUMB_SUFFIX}"
    _write_files(folder, ((image_file, image), (thumb_file, thumbnail)))
    row = KeepsakeRow(
        file_path=f"{KEEPSAKE_DIR}/{image_file.name}",
        thumbnail_path=f"{KEEPSAKE_DIR}/{thumb_file.name}",
        mime_type=mime_type, width=int(width), height=int(height), note=bound_note(note),
        turn_id=turn_id, created_at=created_at,
    )  # fmt: skip
    try:
        session.add(row)
        session.flush()
    except BaseException:
        _unlink(image_file, thumb_file)
        raise
    return _keepsake(row, Path(data_dir))


def list_keepsakes(session: Session, data_dir: Path | str) -> list[Keepsake]:
    """Every keepsake, newest first."""
    rows = session.scalars(
        select(KeepsakeRow).order_by(KeepsakeRow.created_at.desc(), KeepsakeRow.id.desc())
    )
    return [_keepsake(row, Path(data_dir)) for row in rows]


def get_keepsake(session: Session, data_dir: Path | str, keepsake_id: int) -> Keepsake | None:
    """The keepsake with ``keepsake_id``, or None."""
    row = session.get(KeepsakeRow, keepsake_id)
    return None if row is None else _keepsake(row, Path(data_dir))


def set_note(session: Session, keepsake_id: int, note: str | None) -> bool:
    """Replace the note (bounded by :func:`bound_note`); False when there is no such row."""
    row = session.get(KeepsakeRow, keepsake_id)
    if row is None:
        return False
    row.note = bound_note(note)
    session.flush()
    return True


def delete_keepsake(session: Session, data_dir: Path | str, keepsake_id: int) -> bool:
    """Delete the row, then (once the delete is flushed) its files; a missing file is
    fine. False when there is no such row."""
    row = session.get(KeepsakeRow, keepsake_id)
    if row is None:
        return False
    files = [_stored_path(Path(data_dir), row.file_path),
             _stored_path(Path(data_dir), row.thumbnail_path)]  # fmt: skip
    session.delete(row)
    session.flush()
    _unlink(*(path for path in files if path is not None))
    return True


def keepsake_count(session: Session) -> int:
    """How many keepsakes there are."""
    return int(session.scalar(select(func.count()).select_from(KeepsakeRow)) or 0)


def prune_orphan_files(session: Session, data_dir: Path | str, *, min_age_s: float = 0.0) -> int:
    """Delete files in the keepsakes folder that no row names (left by a rolled-back
    transaction or a crash) and are at least ``min_age_s`` seconds old. Returns how many
    were deleted. Call it at app start, before any turn can add a keepsake."""
    folder = Path(data_dir) / KEEPSAKE_DIR
    if not folder.is_dir():
        return 0
    kept: set[str] = set()
    for row in session.execute(select(KeepsakeRow.file_path, KeepsakeRow.thumbnail_path)):
        for stored in row:
            path = _stored_path(Path(data_dir), stored)
            if path is not None:
                kept.add(path.name)
    newest = time.time() - max(0.0, min_age_s)
    removed = 0
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name in kept or entry.is_dir(follow_symlinks=False):
                continue
            if entry.stat(follow_symlinks=False).st_mtime > newest:
                continue
            removed += _unlink(Path(entry.path))
    return removed


def _check(image: bytes, thumbnail: bytes, mime_type: str, width: int, height: int) -> str:
    ext = EXTENSIONS.get(mime_type)
    if ext is None:
        raise ValueError(f"A keepsake must be JPEG, PNG, GIF or WebP (got {mime_type!r}).")
    if not image or not thumbnail:
        raise ValueError("A keepsake needs the image and its thumbnail.")
    for value in (width, height):
        if not isinstance(value, int) or not 1 <= value <= MAX_DIMENSION:
            raise ValueError(f"A keepsake's size must be 1 to {MAX_DIMENSION} pixels a side.")
    return ext


def _folder(data_dir: Path | str) -> Path:
    folder = Path(data_dir) / KEEPSAKE_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _write_error(folder, error) from error
    return folder


def _write_files(folder: Path, files: tuple[tuple[Path, bytes], ...]) -> None:
    """Write each file atomically; on failure none of them stays."""
    done: list[Path] = []
    try:
        for path, data in files:
            _write_atomic(path, data)
            done.append(path)
    except OSError as error:
        _unlink(*done)
        raise _write_error(folder, error) from error


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, then rename it into place."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def _write_error(folder: Path, error: OSError) -> KeepsakeWriteError:
    reason = error.strerror or str(error)
    return KeepsakeWriteError(
        f"I couldn't keep that photo: {folder} cannot be written ({reason}). "
        "Check that the disk is not full and that you may write there.",
        folder,
    )


def _unlink(*paths: Path) -> int:
    """Remove files, ignoring ones already gone; returns how many were removed."""
    removed = 0
    for path in paths:
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
        except OSError as error:
            log.warning("could not remove %s: %s", path, error)
    return removed


def _stored_path(data_dir: Path, stored: str | None) -> Path | None:
    """The absolute file a row names, or None when it is empty or leads anywhere but
    directly into the keepsakes folder (``..``, absolute paths, links out)."""
    if not stored or "\\" in stored or "\x00" in stored:
        return None
    relative = PurePosixPath(stored)
    if relative.is_absolute() or ".." in relative.parts:
        return None
    folder = (data_dir / KEEPSAKE_DIR).resolve()
    try:
        path = data_dir.joinpath(*relative.parts).resolve()
    except (OSError, RuntimeError, ValueError):
        return None
    return path if path.parent == folder else None


def _keepsake(row: KeepsakeRow, data_dir: Path) -> Keepsake:
    nowhere = (data_dir / KEEPSAKE_DIR).resolve() / f"missing-{row.id}.invalid"
    return Keepsake(
        id=row.id,
        image_path=_stored_path(data_dir, row.file_path) or nowhere,
        thumbnail_path=_stored_path(data_dir, row.thumbnail_path) or nowhere,
        mime_type=row.mime_type, width=row.width, height=row.height, note=row.note,
        turn_id=row.turn_id, created_at=row.created_at,
    )  # fmt: skip
