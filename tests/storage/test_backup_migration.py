"""Every migration is backed up first, and none runs without its backup: a test revision
on top of ours, over a real data folder."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from companion_desktop.storage import migrate
from companion_desktop.storage.backup import BackupError, list_backups
from companion_desktop.storage.db import Database
from tests.storage.test_backup import facts, fill


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data folder with a database at today's head revision."""
    folder = tmp_path / "data"
    fill(folder)
    return folder


@pytest.fixture
def newer_migration(tmp_path, monkeypatch):  # noqa: ANN001, ANN201
    """A new revision on top of ours (adds a column); yields the revision it upgrades from."""
    migrations = tmp_path / "migrations"
    shutil.copytree(migrate.MIGRATIONS_DIR, migrations)
    head = migrate.head_revision()
    (migrations / "versions" / "9000_test_column.py").write_text(
        '"""test"""\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
        'revision = "9000_test_column"\n'
        f'down_revision = "{head}"\nbranch_labels = None\ndepends_on = None\n\n\n'
        "def upgrade():\n"
        '    op.add_column("facts", sa.Column("test_note", sa.Text(), nullable=True))\n\n\n'
        "def downgrade():\n    pass\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(migrate, "MIGRATIONS_DIR", migrations)
    monkeypatch.setattr(migrate, "VERSIONS_DIR", migrations / "versions")
    migrate._revision_graph.cache_clear()
    migrate._script.cache_clear()
    try:
        yield head
    finally:
        migrate._revision_graph.cache_clear()
        migrate._script.cache_clear()


def revision(data_dir: Path) -> list[tuple[str]]:
    conn = sqlite3.connect(data_dir / "companion.sqlite3")
    try:
        return conn.execute("SELECT version_num FROM alembic_version").fetchall()
    finally:
        conn.close()


def test_a_migration_is_backed_up_first(data_dir, newer_migration):
    """Opening the old database backs it up, then migrates."""
    Database.open(data_dir).close()
    found = list_backups(data_dir)
    assert [b.reason for b in found] == ["before migration"]
    assert found[0].schema == (newer_migration,)
    assert revision(data_dir) == [("9000_test_column",)]
    Database.open(data_dir).close()  # at head now: no second backup
    assert len(list_backups(data_dir)) == 1


def test_no_backup_no_migration(data_dir, newer_migration):
    """When the backup cannot be written, the database is left as it was, unmigrated."""
    (data_dir / "backups").write_text("a file where the backups folder goes")
    with pytest.raises(BackupError, match="Could not write the backup"):
        Database.open(data_dir).close()
    assert revision(data_dir) == [(newer_migration,)]
    assert facts(data_dir) == ["User said first."]
