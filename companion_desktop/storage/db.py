"""The database: one SQLite file in the data folder, migrated on open.

Every connection runs with ``foreign_keys=ON`` and ``synchronous=NORMAL``; the
file is in WAL mode. SQLAlchemy, not the sqlite3 module, emits ``BEGIN`` (the
sqlite3 module's legacy mode would autocommit DDL and unlocked reads), so a
``Database.session()`` is one real transaction that takes the write lock
(``BEGIN IMMEDIATE``) at its start and waits up to the busy timeout for it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from . import migrate
from .errors import (
    DatabaseCorruptError,
    DatabaseLockedError,
    DatabaseTooNewError,
    DatabaseUnwritableError,
    StorageError,
    translating,
    unwritable,
)
from .paths import DB_FILENAME
from .private import private_dir, private_file, tighten

__all__ = [
    "BUSY_TIMEOUT_S",
    "Database",
    "DatabaseCorruptError",
    "DatabaseLockedError",
    "DatabaseTooNewError",
    "DatabaseUnwritableError",
    "StorageError",
]

log = logging.getLogger(__name__)

#: Seconds a statement waits for another connection's lock before giving up.
BUSY_TIMEOUT_S = 5.0


def _on_connect(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
    dbapi_connection.execute("PRAGMA foreign_keys=ON")
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


def _on_begin(conn: Any) -> None:
    mode = conn.get_execution_options().get("companion_begin", "DEFERRED")
    conn.exec_driver_sql(f"BEGIN {mode}")


def _make_engine(path: Path, busy_timeout: float) -> Engine:
    engine = create_engine(
        URL.create("sqlite", database=str(path)),
        connect_args={"timeout": busy_timeout, "check_same_thread": False},
    )
    event.listen(engine, "connect", _on_connect)
    event.listen(engine, "begin", _on_begin)
    return engine


def _enable_wal(engine: Engine, path: Path) -> None:
    raw = engine.raw_connection()
    try:
        cursor = raw.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        mode = cursor.fetchone()
        cursor.close()
    finally:
        raw.close()
    if not mode or str(mode[0]).lower() != "wal":
        log.warning("%s: WAL journal mode not available, using %s", path, mode)


class Database:
    """An open database file. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, path: Path, engine: Engine) -> None:
        self.path = path
        self.engine = engine
        self._writer = sessionmaker(
            bind=engine.execution_options(companion_begin="IMMEDIATE"), expire_on_commit=False
        )
        self._reader = sessionmaker(bind=engine, expire_on_commit=False)

    @classmethod
    def open(cls, data_dir: Path | str, *, busy_timeout: float = BUSY_TIMEOUT_S) -> Database:
        """Open (creating the folder and file if missing) and migrate to the newest schema.
        The folder is made private to the user (0700, the file 0600; ``storage.private``).

        A restore left unfinished (or staged by the running app) is completed first, and
        a database that needs migrating is backed up first (``storage.backup``; no
        backup, no migration). ``busy_timeout`` is in seconds. Raises a StorageError
        subclass: a file from a newer app or a non-SQLite file is refused before anything
        is written.
        """
        folder = Path(data_dir).expanduser()
        path = folder / DB_FILENAME
        try:
            private_dir(folder)
            tighten(folder)
        except OSError as error:
            detail = f"cannot create the folder {folder}: {error.strerror}"
            raise unwritable(path, detail) from error
        if any(folder.glob(".restore-*")):  # a restore to finish (storage.backup_restore)
            from .backup_restore import recover

            recover(folder)
        if migrate.needs_migrating(migrate.check_existing(path, busy_timeout)):
            from .backup import REASON_MIGRATION, auto_backup

            auto_backup(folder, REASON_MIGRATION)
        engine = _make_engine(path, busy_timeout)
        try:
            with translating(path):
                _enable_wal(engine, path)
                private_file(path)  # SQLite gives its -wal and -shm files the same mode
                migrate.upgrade(engine)
        except BaseException:
            engine.dispose()
            raise
        log.debug("opened %s", path)
        return cls(path, engine)

    def close(self) -> None:
        """Close every pooled connection (the last one checkpoints the WAL)."""
        self.engine.dispose()

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One write transaction: commits when the block ends, rolls back on an exception.

        Driver errors (locked, corrupt, unwritable) come out as StorageErrors.
        """
        with translating(self.path), self._writer.begin() as session:
            yield session

    @contextmanager
    def read_session(self) -> Iterator[Session]:
        """A read snapshot; anything written in it is discarded when the block ends.

        Objects loaded in it stay readable afterwards (detached, not expired).
        """
        with translating(self.path), self._reader() as session:
            yield session

    def __repr__(self) -> str:
        return f"Database({str(self.path)!r})"
