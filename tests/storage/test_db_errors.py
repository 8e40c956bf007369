"""Refusals and error translation: too new, corrupt, unwritable, locked; one transaction."""

from __future__ import annotations

import os
import random
import shlex
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from companion_desktop.storage import repository
from companion_desktop.storage.db import (
    Database,
    DatabaseCorruptError,
    DatabaseLockedError,
    DatabaseTooNewError,
    DatabaseUnwritableError,
    StorageError,
)
from companion_desktop.storage.migrate import head_revision

Dump = Callable[[Path], dict[str, list[tuple[Any, ...]]]]
IS_ROOT = getattr(os, "geteuid", lambda: -1)() == 0


def _snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def _side_files(path: Path) -> list[Path]:
    candidates = (path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))
    return [candidate for candidate in candidates if candidate.exists()]


def _make_database(data_dir: Path) -> Path:
    Database.open(data_dir).close()
    path = data_dir / "companion.sqlite3"
    assert _side_files(path) == []
    return path


def test_newer_database_is_refused_without_touching_it(data_dir: Path) -> None:
    path = _make_database(data_dir)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE alembic_version SET version_num = '9999_future'")
    conn.commit()
    conn.close()
    assert _side_files(path) == []
    before = _snapshot(path)

    with pytest.raises(DatabaseTooNewError) as caught:
        Database.open(data_dir)

    message = str(caught.value)
    assert "newer version of companion-desktop" in message
    assert "9999_future" in message and head_revision() in message
    assert str(path) in message and "--data-dir" in message
    assert _snapshot(path) == before
    assert _side_files(path) == []
    assert isinstance(caught.value, StorageError)


def test_random_bytes_file_is_corrupt_and_unchanged(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    path = data_dir / "companion.sqlite3"
    path.write_bytes(random.Random(8).randbytes(8192))  # fixed noise, the same every run
    before = _snapshot(path)
    with pytest.raises(DatabaseCorruptError) as caught:
        Database.open(data_dir)
    assert str(path) in str(caught.value)
    assert _snapshot(path) == before
    assert _side_files(path) == []


def test_damaged_sqlite_file_is_corrupt_and_unchanged(data_dir: Path) -> None:
    path = _make_database(data_dir)
    content = bytearray(path.read_bytes())
    content[100:] = random.Random(9).randbytes(len(content) - 100)  # keep the header only
    path.write_bytes(bytes(content))
    before = _snapshot(path)
    with pytest.raises(DatabaseCorruptError):
        Database.open(data_dir)
    assert _snapshot(path) == before


def test_another_programs_sqlite_file_is_refused(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    path = data_dir / "companion.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    before = _snapshot(path)
    with pytest.raises(DatabaseCorruptError, match="not a companion-desktop database"):
        Database.open(data_dir)
    assert _snapshot(path) == before


def test_folder_under_a_regular_file_is_unwritable(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(DatabaseUnwritableError) as caught:
        Database.open(blocker / "data")
    assert "cannot be opened for writing" in str(caught.value)
    assert "--data-dir" in str(caught.value)


def test_database_path_that_is_a_folder_is_unwritable(data_dir: Path) -> None:
    (data_dir / "companion.sqlite3").mkdir(parents=True)
    with pytest.raises(DatabaseUnwritableError):
        Database.open(data_dir)


_OPEN_SCRIPT = """
import sys
from companion_desktop.storage.db import Database
try:
    Database.open(sys.argv[1]).close()
except Exception as error:
    print(type(error).__name__)
else:
    print("opened")
"""


def _open_without_root_powers(data_dir: Path) -> str:
    """The error class name from opening ``data_dir`` where permissions apply.

    As root, file permissions do not stop writes, so the open runs in a child
    process whose file-permission capabilities are dropped with ``capsh``.
    """
    if not IS_ROOT:
        try:
            Database.open(data_dir).close()
        except StorageError as error:
            return type(error).__name__
        return "opened"
    capsh = shutil.which("capsh")
    if capsh is None:
        pytest.skip("running as root without capsh: file permissions cannot be enforced")
    command = shlex.join([sys.executable, "-c", _OPEN_SCRIPT, str(data_dir)])
    result = subprocess.run(
        [capsh, "--drop=cap_dac_override,cap_dac_read_search,cap_fowner", "--", "-c", command],
        capture_output=True, text=True, timeout=60, check=False,
        cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    if result.returncode != 0 and not result.stdout.strip():
        pytest.skip(f"capsh could not drop capabilities here: {result.stderr.strip()[:200]}")
    return result.stdout.strip()


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_read_only_folder_and_file_are_unwritable(data_dir: Path) -> None:
    path = _make_database(data_dir)
    path.chmod(0o444)
    data_dir.chmod(0o555)
    try:
        assert _open_without_root_powers(data_dir) == "DatabaseUnwritableError"
    finally:
        data_dir.chmod(0o755)
        path.chmod(0o644)
    assert _side_files(path) == []


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_folder_that_cannot_be_created_is_unwritable(tmp_path: Path) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    try:
        assert _open_without_root_powers(parent / "data") == "DatabaseUnwritableError"
    finally:
        parent.chmod(0o755)


@pytest.fixture
def locker(data_dir: Path) -> Iterator[sqlite3.Connection]:
    """Another program holding the database's exclusive lock."""
    path = _make_database(data_dir)
    conn = sqlite3.connect(path, timeout=0, isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    yield conn
    conn.rollback()
    conn.close()


def test_locked_database_on_open(data_dir: Path, locker: sqlite3.Connection) -> None:
    with pytest.raises(DatabaseLockedError) as caught:
        Database.open(data_dir, busy_timeout=0.2)
    message = str(caught.value)
    assert "in use by another program" in message
    assert "is companion-desktop already running?" in message
    assert str(data_dir / "companion.sqlite3") in message


def test_locked_database_during_a_session(data_dir: Path, now: datetime) -> None:
    database = Database.open(data_dir, busy_timeout=0.2)
    other = sqlite3.connect(database.path, timeout=0, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        with pytest.raises(DatabaseLockedError):
            with database.session() as session:
                repository.add_fact(session, "User likes tea", "user", now)
        other.rollback()
        with database.session() as session:  # works again once the lock is gone
            repository.add_fact(session, "User likes tea", "user", now)
    finally:
        other.close()
        database.close()


def test_one_session_is_one_transaction(db: Database, now: datetime, table_dump: Dump) -> None:
    with db.session() as session:
        repository.load_or_create_character(session, now)
    before = table_dump(db.path)

    with pytest.raises(RuntimeError, match="boom"):
        with db.session() as session:
            session_id = repository.start_session(session, now)
            repository.add_turn(session, session_id, "user", "hello", now)
            repository.add_fact(session, "User says hello", "user", now)
            state = repository.load_character(session)
            assert state is not None
            repository.save_character(session, state.copy(affection=500))
            raise RuntimeError("boom")

    assert table_dump(db.path) == before


def test_constraint_violation_becomes_storage_error_and_rolls_back(
    db: Database, now: datetime, table_dump: Dump
) -> None:
    before = table_dump(db.path)
    with pytest.raises(StorageError) as caught:
        with db.session() as session:
            repository.add_fact(session, "fine", "user", now)
            repository.add_fact(session, "bad", "not-a-category", now)
    assert "CHECK constraint failed" in str(caught.value)
    assert table_dump(db.path) == before


def test_read_session_never_writes(db: Database, now: datetime) -> None:
    with db.read_session() as session:
        repository.add_fact(session, "discarded", "user", now)
    with db.read_session() as session:
        assert repository.list_facts(session) == []


def test_a_write_session_holds_the_write_lock_from_its_start(db: Database) -> None:
    other = sqlite3.connect(db.path, timeout=0, isolation_level=None)
    try:
        with db.session() as session:
            session.execute(text("SELECT 1"))
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
        with db.read_session() as session:
            session.execute(text("SELECT count(*) FROM facts"))
            other.execute("BEGIN IMMEDIATE")  # readers never block the writer (WAL)
            other.execute("ROLLBACK")
    finally:
        other.close()
