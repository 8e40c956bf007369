"""Migrations: a fresh database is at head and matches models.py exactly."""

from __future__ import annotations

import re
import sqlite3
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from companion_desktop.storage import migrate
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import Base


def test_fresh_database_is_at_head(db: Database) -> None:
    assert migrate.current_revisions(db.engine) == [migrate.head_revision()]
    assert migrate.head_revision() in migrate.known_revisions()
    assert db.path.name == "companion.sqlite3"
    assert db.path.exists()


def test_migrated_schema_matches_models(db: Database) -> None:
    with db.engine.connect() as conn, warnings.catch_warnings():
        # SQLite cannot reflect the expression index; it is compared below instead.
        warnings.filterwarnings("ignore", message=".*expression-based index.*")
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []
    assert sorted(inspect(db.engine).get_table_names()) == sorted(
        [*Base.metadata.tables, "alembic_version"]
    )


def _normalized(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _checks_and_indexes(path: Path) -> tuple[dict[str, set[tuple[str, str]]], dict[str, str]]:
    engine = create_engine(f"sqlite:///{path}")
    try:
        inspector = inspect(engine)
        checks = {
            table: {
                (check["name"], _normalized(check["sqltext"]))
                for check in inspector.get_check_constraints(table)
            }
            for table in Base.metadata.tables
        }
    finally:
        engine.dispose()
    conn = sqlite3.connect(path)
    try:
        indexes = {
            name: _normalized(sql)
            for name, sql in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
            )
        }
    finally:
        conn.close()
    return checks, indexes


def test_check_constraints_and_indexes_match_models(db: Database, tmp_path: Path) -> None:
    """What compare_metadata cannot see: CHECK constraints and the expression index."""
    reference = tmp_path / "reference.sqlite3"
    engine = create_engine(f"sqlite:///{reference}")
    Base.metadata.create_all(engine)
    engine.dispose()
    migrated_checks, migrated_indexes = _checks_and_indexes(db.path)
    model_checks, model_indexes = _checks_and_indexes(reference)
    assert migrated_checks == model_checks
    assert migrated_indexes == model_indexes
    assert "ux_familiarity_scope" in migrated_indexes


def test_wal_foreign_keys_and_synchronous_on_every_connection(db: Database) -> None:
    for _ in range(3):
        with db.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    with db.session() as session:
        assert session.connection().exec_driver_sql("PRAGMA foreign_keys").scalar() == 1


def test_reopening_is_idempotent(data_dir: Path, table_dump: Callable[[Path], Any]) -> None:
    first = Database.open(data_dir)
    first.close()
    before = table_dump(first.path)
    for _ in range(2):
        again = Database.open(data_dir)
        assert migrate.current_revisions(again.engine) == [migrate.head_revision()]
        again.close()
    assert table_dump(first.path) == before


def test_open_creates_missing_folders(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b" / "c"
    with Database.open(nested) as database:
        assert database.path == nested / "companion.sqlite3"
    assert (nested / "companion.sqlite3").is_file()


def test_an_empty_file_becomes_a_new_database(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "companion.sqlite3").write_bytes(b"")
    with Database.open(data_dir) as database:
        assert migrate.current_revisions(database.engine) == [migrate.head_revision()]


def test_schema_snapshot_is_what_the_migrations_create(tmp_path: Path) -> None:
    """``storage/schema_head.py`` (new databases are created from it) is Alembic's head schema;
    after adding a revision, regenerate it with ``migrate.write_schema_snapshot()``."""
    from companion_desktop.storage import schema_head

    written = migrate.write_schema_snapshot(tmp_path / "schema_head.py")
    assert written.read_text(encoding="utf-8") == Path(
        schema_head.__file__).read_text(encoding="utf-8")


def test_revisions_read_from_the_files_match_alembic() -> None:
    script = migrate._script()
    assert migrate._revision_graph() is not None  # the cheap path is the one in use
    assert migrate.known_revisions() == {s.revision for s in script.walk_revisions()}
    assert migrate.head_revision() == script.get_current_head()


def test_new_and_current_databases_open_without_alembic(tmp_path: Path) -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from companion_desktop.storage.db import Database\n"
        "from companion_desktop.storage import migrate\n"
        f"for _ in range(2):\n"
        f"    db = Database.open({str(tmp_path / 'data')!r})\n"
        "    assert migrate.current_revisions(db.engine) == [migrate.head_revision()]\n"
        "    db.close()\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_snapshot_and_alembic_databases_are_identical(tmp_path: Path) -> None:
    fresh = Database.open(tmp_path / "snapshot")
    fresh.close()
    engine = create_engine(f"sqlite:///{tmp_path / 'alembic.sqlite3'}")
    try:
        migrate._alembic_upgrade(engine)
    finally:
        engine.dispose()
    assert migrate.schema_statements(fresh.path) == migrate.schema_statements(
        tmp_path / "alembic.sqlite3")
