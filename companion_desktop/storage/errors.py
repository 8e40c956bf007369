"""Storage errors with messages a user can act on, and the translation into them.

Every sqlite3 or SQLAlchemy driver error raised while opening the database or
inside a ``Database.session()`` becomes one of these, with the original error
kept as ``__cause__``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import exc as sa_exc

PICK_ANOTHER = "or use --data-dir to pick another folder"


class StorageError(Exception):
    """A database problem; ``str(error)`` is a message for the user."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path


class DatabaseTooNewError(StorageError):
    """The file was written by a newer version of the app (unknown schema revision)."""


class DatabaseLockedError(StorageError):
    """Another program holds the database's write lock past the busy timeout."""


class DatabaseCorruptError(StorageError):
    """The file is not an SQLite database, is damaged, or is not one of ours."""


class DatabaseUnwritableError(StorageError):
    """The folder or file cannot be created, opened or written (permissions, disk full)."""


_LOCKED = ("database is locked", "database table is locked", "database schema is locked")
_CORRUPT = ("file is not a database", "malformed", "file is encrypted", "not a database")
_UNWRITABLE = (
    "readonly",
    "read-only",
    "unable to open",
    "permission",
    "access denied",
    "disk i/o error",
    "disk is full",
    "out of space",
)


def locked(path: Path) -> DatabaseLockedError:
    return DatabaseLockedError(
        f"The database {path} is in use by another program (is companion-desktop "
        "already running?). Close the other program and try again.",
        path,
    )


def corrupt(path: Path, detail: str) -> DatabaseCorruptError:
    return DatabaseCorruptError(
        f"The database {path} is damaged or is not a companion-desktop database "
        f"({detail}). Move it away or restore it from a backup or a save file, "
        f"{PICK_ANOTHER}.",
        path,
    )


def unwritable(path: Path, detail: str) -> DatabaseUnwritableError:
    return DatabaseUnwritableError(
        f"The database {path} cannot be opened for writing ({detail}). Check that "
        "you may write to that folder and that the disk is not full, "
        f"{PICK_ANOTHER}.",
        path,
    )


def translate(error: BaseException, path: Path) -> StorageError | None:
    """The StorageError for a driver error, or None when ``error`` is not one."""
    if isinstance(error, StorageError):
        return error
    if isinstance(error, sa_exc.DBAPIError):
        detail = str(error.orig) if error.orig is not None else str(error)
    elif isinstance(error, sqlite3.Error):
        detail = str(error)
    else:
        return None
    lowered = detail.lower()
    if any(word in lowered for word in _LOCKED):
        return locked(path)
    if any(word in lowered for word in _CORRUPT):
        return corrupt(path, detail)
    if any(word in lowered for word in _UNWRITABLE):
        return unwritable(path, detail)
    return StorageError(f"A database error occurred in {path}: {detail}", path)


@contextmanager
def translating(path: Path) -> Iterator[None]:
    """Re-raise driver errors from the block as StorageErrors; others pass unchanged."""
    try:
        yield
    except Exception as error:  # noqa: BLE001 - re-raised below
        storage_error = translate(error, path)
        if storage_error is None or storage_error is error:
            raise
        raise storage_error from error
