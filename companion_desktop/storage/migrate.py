"""Alembic, run from code: the schema check before opening and the upgrade to head.

No ``alembic.ini`` is needed: :func:`alembic_config` builds the configuration
with ``script_location`` pointing at ``storage/migrations``.

Alembic itself is imported only when a database needs migrating: the known
revisions and the head are read from the ``revision`` / ``down_revision`` lines of
the files in ``migrations/versions`` (a few small reads), and a database already
stamped at head is opened without Alembic.
"""

from __future__ import annotations

import ast
import re
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from . import errors

if TYPE_CHECKING:
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from sqlalchemy import Connection, Engine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
VERSIONS_DIR = MIGRATIONS_DIR / "versions"
SQLITE_MAGIC = b"SQLite format 3\x00"
_HEADER_SIZE = 100
_ASSIGNMENT = re.compile(r"^(revision|down_revision)\s*(?::[^=]*)?=\s*(.+?)\s*$", re.MULTILINE)


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic ``Config`` for our migrations; ``connection`` is handed to env.py."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


@lru_cache(maxsize=1)
def _script() -> ScriptDirectory:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config())


@lru_cache(maxsize=1)
def _revision_graph() -> dict[str, tuple[str, ...]] | None:
    """revision -> its down revisions, read from the version files without importing them.

    None when a file does not state both as plain literals (Alembic then decides).
    """
    graph: dict[str, tuple[str, ...]] = {}
    for path in sorted(VERSIONS_DIR.glob("*.py")):
        found = dict(_ASSIGNMENT.findall(path.read_text(encoding="utf-8")))
        try:
            revision = ast.literal_eval(found["revision"])
            down = ast.literal_eval(found["down_revision"])
        except (KeyError, ValueError, SyntaxError):
            return None
        downs = (down,) if isinstance(down, str) else tuple(down or ())
        if (not isinstance(revision, str) or revision in graph
                or not all(isinstance(d, str) for d in downs)):
            return None
        graph[revision] = downs
    return graph or None


def known_revisions() -> frozenset[str]:
    """Every schema revision this version of the app knows."""
    graph = _revision_graph()
    if graph is not None:
        return frozenset(graph)
    return frozenset(script.revision for script in _script().walk_revisions())


def head_revision() -> str:
    """The newest schema revision this version of the app knows."""
    graph = _revision_graph()
    if graph is not None:
        below = {down for downs in graph.values() for down in downs}
        heads = [revision for revision in graph if revision not in below]
        if len(heads) == 1:
            return heads[0]
    head = _script().get_current_head()
    assert head is not None, "no migrations found"
    return head


def check_existing(path: Path, busy_timeout: float) -> list[str]:
    """Refuse a file we must not touch, without writing to it or creating side files.

    Raises DatabaseCorruptError for a file that is not SQLite (or not ours) and
    DatabaseTooNewError for a schema revision this version does not know. A
    missing or empty file passes (it becomes a new database). Returns the stamped
    revisions (empty for a new database).
    """
    try:
        if not path.exists() or path.stat().st_size == 0:
            return []
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
        return []
    unknown = sorted(set(revisions) - known_revisions())
    if unknown:
        raise errors.DatabaseTooNewError(
            f"The database {path} was written by a newer version of companion-desktop "
            f"(schema revision {', '.join(unknown)}); this version knows up to "
            f"{head_revision()}. Update the app, or use --data-dir to pick another folder.",
            path,
        )
    return revisions


def needs_migrating(revisions: list[str]) -> bool:
    """True for an existing database below head (it is backed up before migrating)."""
    return bool(revisions) and revisions != [head_revision()]


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
    A database at head is left as it is and a new one is created from the head
    schema (``schema_head``), both without importing Alembic; the write lock is
    taken either way, so a database another program holds is reported here.
    """
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None
        raw.execute("BEGIN IMMEDIATE")
        try:
            stamped = _stamped(raw)
            done = stamped == [head_revision()] or (stamped is None and _create_from_snapshot(raw))
        except BaseException:
            raw.execute("ROLLBACK")
            raise
        raw.execute("COMMIT" if done else "ROLLBACK")
    if not done:
        _alembic_upgrade(engine)


def _alembic_upgrade(engine: Engine) -> None:
    from alembic import command

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


def _create_from_snapshot(raw: sqlite3.Connection) -> bool:
    """Create the head schema in an empty database from ``schema_head`` (what Alembic's
    migrations produce, dumped by :func:`write_schema_snapshot`; a test keeps them equal).

    Runs inside the caller's transaction. False, with nothing written, when the snapshot
    is missing or not at head, or the database already holds tables: Alembic decides.
    """
    try:
        from . import schema_head
    except ImportError:
        return False
    if schema_head.REVISION != head_revision():
        return False
    if raw.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'").fetchone() is not None:
        return False
    for statement in schema_head.STATEMENTS:
        raw.execute(statement)
    return True


def schema_statements(path: Path) -> list[str]:
    """Every statement that recreates the database at ``path`` (schema and rows)."""
    conn = sqlite3.connect(path)
    try:
        return [line for line in conn.iterdump() if line not in ("BEGIN TRANSACTION;", "COMMIT;")]
    finally:
        conn.close()


def write_schema_snapshot(target: Path | None = None) -> Path:
    """Developer tool: migrate a scratch database to head with Alembic and write its dump
    to ``storage/schema_head.py`` (run after adding a revision)::

        .venv/bin/python -c "from companion_desktop.storage import migrate; migrate.write_schema_snapshot()"
    """  # noqa: E501 - a command to copy whole
    import tempfile

    from sqlalchemy import create_engine

    target = target or Path(__file__).resolve().parent / "schema_head.py"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scratch.sqlite3"
        engine = create_engine(f"sqlite:///{path}")
        try:
            _alembic_upgrade(engine)
        finally:
            engine.dispose()
        statements = schema_statements(path)
    body = "".join(  # indented by 4 and followed by a comma: lines of at most 100
        "\n".join(f"    {piece}" for piece in _literal_pieces(statement, 95)) + ",\n"
        for statement in statements
    )
    target.write_text(
        '"""The schema at head, as Alembic\'s migrations create it (generated by\n'
        '``storage.migrate.write_schema_snapshot``; do not edit). A new database is created\n'
        'from these statements without importing Alembic."""\n\n'
        f"REVISION = {head_revision()!r}\n\nSTATEMENTS = (\n{body})\n",
        encoding="utf-8",
    )
    return target


_ESCAPE_OR_CHAR = re.compile(r"\\x..|\\u.{4}|\\U.{8}|\\.|.", re.DOTALL)


def _literal_pieces(value: str, width: int) -> list[str]:
    """``repr(value)`` cut into literals of at most ``width`` characters that concatenate
    back to it: after each ``\\n`` and, where that is not enough, after a space (all in
    the quote ``repr`` chose, so only the line breaks between them are new)."""
    literal = repr(value)
    quote, room = literal[0], width - 2
    pieces, line, cut = [], "", 0
    for unit in _ESCAPE_OR_CHAR.findall(literal[1:-1]):
        if len(line) + len(unit) > room and cut:
            pieces.append(line[:cut])
            line, cut = line[cut:], 0
        line += unit
        if unit == "\\n":
            pieces.append(line)
            line, cut = "", 0
        elif unit == " ":
            cut = len(line)
    if line or not pieces:
        pieces.append(line)
    return [f"{quote}{piece}{quote}" for piece in pieces]


def _stamped(raw: sqlite3.Connection) -> list[str] | None:
    """The revisions in ``alembic_version``, or None when the table is not there yet."""
    if raw.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'"
    ).fetchone() is None:
        return None
    return [str(row[0]) for row in raw.execute("SELECT version_num FROM alembic_version")]


def current_revisions(engine: Engine) -> list[str]:
    """The revisions stamped in the database (one entry at head)."""
    with engine.connect() as conn:
        return [row[0] for row in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]
