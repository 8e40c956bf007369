"""Alembic, run from code: the schema check before opening and the upgrade to head.

No ``alembic.ini`` is needed: :func:`alembic_config` builds the configuration
with ``script_location`` pointing at ``storage/migrations``.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

from . import errors

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic ``Config`` for our migrations; ``connection`` is handed to env.py."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    return ScriptDirectory.from_config(alembic_config())


def known_revisions() -> frozenset[str]:
    """Every schema revision this version of the app knows."""
    return frozenset(script.revision for script in _script().walk_revisions())


def head_revision() -> str:
    """The newest schema revision this version of the app knows."""
    head = _script().get_current_head()
    assert head is not None, "no migrations found"
    return head


def check_existing(path: Path, busy_timeout: float) -> None:
    """Refuse a file we must not touch, without writing to it or creating side files.

    Raises DatabaseCorruptError for a file that is not SQLite (or not ours) and
    DatabaseTooNewError for a schema revision this version does not know. A
    missing or empty file passes (it becomes a new database).
    """
    try:
        if not path.exists() or path.stat().st_size == 0:
            return
        with path.open("rb") as handle:
            header = handle.read(_HEADER_SIZE)
    except OSError as error:
        raise errors.unwritable(path, error.strerror or str(error)) from error
    if len(header) < _HEADER_SIZE or not header.startswith(SQLITE_MAGIC):
        raise errors.corrupt(path, "not an SQLite file")
    revisions, has_tables = _read_revisions(path, header, busy_timeout)
    if not revisions:
        if has_tables:
            raise errors.corrupt(path, "an SQLite file without a companion-desktop schema")
        return
    unknown = sorted(set(revisions) - known_revisions())
    if unknown:
        raise errors.DatabaseTooNewError(
            f"The database {path} was written by a newer version of companion-desktop "
            f"(schema revision {', '.join(unknown)}); this version knows up to "
            f"{head_revision()}. Update the app, or use --data-dir to pick another folder.",
            path,
        )


def _read_revisions(path: Path, header: bytes, busy_timeout: float) -> tuple[list[str], bool]:
    """The alembic_version rows, and whether any other table exists, read-only.

    A WAL database whose ``-wal`` file is absent is complete in the main file, so
    it is read with ``immutable=1``: a plain read-only open would create ``-wal``
    and ``-shm`` files and leave them behind.
    """
    wal_mode = header[18] == 2 and header[19] == 2
    wal_file = path.with_name(path.name + "-wal")
    flags = "mode=ro&immutable=1" if wal_mode and not wal_file.exists() else "mode=ro"
    uri = f"{path.resolve().as_uri()}?{flags}"
    with errors.translating(path):
        conn = sqlite3.connect(uri, uri=True, timeout=busy_timeout)
        try:
            tables = {
                row[0]
                for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            if "alembic_version" not in tables:
                return [], bool({t for t in tables if not t.startswith("sqlite_")})
            rows = conn.execute("SELECT version_num FROM alembic_version").fetchall()
            return [str(row[0]) for row in rows], True
        finally:
            conn.close()


def upgrade(engine: Engine) -> None:
    """Apply every pending migration in one IMMEDIATE transaction.

    Foreign keys are off while migrating (batch table rebuilds would otherwise
    cascade) and ``PRAGMA foreign_key_check`` must come back empty before commit.
    """
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        raw.execute("PRAGMA foreign_keys=OFF")
        try:
            conn = conn.execution_options(companion_begin="IMMEDIATE")
            with conn.begin():
                command.upgrade(alembic_config(conn), "head")
                problems = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if problems:
                    raise RuntimeError(f"foreign key violations after migrating: {problems}")
        finally:
            raw.execute("PRAGMA foreign_keys=ON")


def current_revisions(engine: Engine) -> list[str]:
    """The revisions stamped in the database (one entry at head)."""
    with engine.connect() as conn:
        return [row[0] for row in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]


def autogenerate_revision(data_dir: Path, message: str) -> None:
    """Developer tool: write ``versions/NNNN_<slug>.py`` from the models' differences.

    Opens (and upgrades) the database in ``data_dir``, then compares it with
    ``models.py``. The revision id is the file name without ``.py`` (at most
    32 characters, the width of ``alembic_version``). Review the file before
    committing it.
    """
    from .db import Database

    slug = re.sub(r"[^a-z0-9]+", "_", message.lower()).strip("_")[:27].rstrip("_")
    rev_id = f"{len(known_revisions()) + 1:04d}_{slug}"
    db = Database.open(data_dir)
    try:
        with db.engine.connect() as conn, conn.begin():
            config = alembic_config(conn)
            config.set_main_option("file_template", "%%(rev)s")
            command.revision(config, message=message, autogenerate=True, rev_id=rev_id)
    finally:
        db.close()
