"""Keepsake photos: real files in a real data folder, rows in a real SQLite database."""

from __future__ import annotations

import os
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import delete

from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.keepsakes import (
    NOTE_MAX,
    Keepsake,
    KeepsakeWriteError,
    add_keepsake,
    bound_note,
    delete_keepsake,
    get_keepsake,
    keepsake_count,
    list_keepsakes,
    prune_orphan_files,
    set_note,
)
from companion_desktop.storage.models import KeepsakeRow, TurnRow

IMAGE, THUMB = b"\xff\xd8 a photo \xff\xd9", b"\xff\xd8 thumb \xff\xd9"


def add(db: Database, data_dir: Path, when: datetime, **over: object) -> Keepsake:
    fields: dict[str, object] = dict(
        image=IMAGE, thumbnail=THUMB, mime_type="image/jpeg", width=640, height=480,
        note="  her note  ", turn_id=None, created_at=when,
    )  # fmt: skip
    fields.update(over)
    with db.session() as session:
        return add_keepsake(session, data_dir, **fields)  # type: ignore[arg-type]


def folder_names(data_dir: Path) -> set[str]:
    return {p.name for p in (data_dir / "keepsakes").iterdir()}


def test_add_writes_both_files_and_a_relative_row(db: Database, data_dir: Path, now) -> None:
    kept = add(db, data_dir, now, mime_type="image/png", width=10, height=20)
    assert kept.image_path.is_absolute() and kept.image_path.read_bytes() == IMAGE
    assert kept.thumbnail_path.read_bytes() == THUMB
    assert kept.image_path.suffix == ".png" and kept.thumbnail_path.name.endswith(".thumb.jpg")
    assert kept.image_path.parent == (data_dir / "keepsakes").resolve()
    assert folder_names(data_dir) == {kept.image_path.name, kept.thumbnail_path.name}  # no temps
    assert (kept.note, kept.width, kept.height, kept.missing) == ("her note", 10, 20, False)
    with db.read_session() as session:
        row = session.get(KeepsakeRow, kept.id)
        assert row is not None
        assert row.file_path == f"keepsakes/{kept.image_path.name}"
        assert row.thumbnail_path == f"keepsakes/{kept.thumbnail_path.name}"
        assert get_keepsake(session, data_dir, kept.id) == kept
        assert get_keepsake(session, data_dir, kept.id + 1) is None
        assert keepsake_count(session) == 1


def test_keepsakes_survive_reopening(data_dir: Path, now) -> None:
    with Database.open(data_dir) as first:
        kept = add(first, data_dir, now)
    with Database.open(data_dir) as second, second.read_session() as session:
        assert list_keepsakes(session, data_dir) == [kept]


def test_list_is_newest_first(db: Database, data_dir: Path, now) -> None:
    old = add(db, data_dir, now - timedelta(days=2))
    new = add(db, data_dir, now)
    same_time_later_id = add(db, data_dir, now)
    middle = add(db, data_dir, now - timedelta(days=1))
    with db.read_session() as session:
        ids = [k.id for k in list_keepsakes(session, data_dir)]
    assert ids == [same_time_later_id.id, new.id, middle.id, old.id]


def test_notes_are_bounded(db: Database, data_dir: Path, now) -> None:
    assert bound_note("   ") is None and bound_note(None) is None
    assert bound_note("a\x00b\x07c\nd") == "abc\nd"
    assert bound_note("x" * 600) == "x" * NOTE_MAX
    kept = add(db, data_dir, now, note="y" * 5000)
    assert kept.note == "y" * NOTE_MAX
    with db.session() as session:
        assert set_note(session, kept.id, "  a sunny day by the sea ")
        assert not set_note(session, kept.id + 99, "nobody")
    with db.session() as session:
        assert get_keepsake(session, data_dir, kept.id).note == "a sunny day by the sea"
        assert set_note(session, kept.id, "")
        assert get_keepsake(session, data_dir, kept.id).note is None


def test_rolled_back_transaction_leaves_orphans_that_prune_removes(
    db: Database, data_dir: Path, now
) -> None:
    kept = add(db, data_dir, now)
    with pytest.raises(RuntimeError, match="turn failed"):
        with db.session() as session:
            doomed = add_keepsake(
                session, data_dir, image=IMAGE, thumbnail=THUMB, mime_type="image/webp",
                width=5, height=5, note=None, turn_id=None, created_at=now,
            )  # fmt: skip
            raise RuntimeError("turn failed")
    assert doomed.image_path.exists()  # the files outlived the rolled-back row
    (data_dir / "keepsakes" / ".stray.part").write_bytes(b"half")  # a crash mid-write
    with db.read_session() as session:
        assert keepsake_count(session) == 1
        assert prune_orphan_files(session, data_dir, min_age_s=3600) == 0  # all too fresh
        assert prune_orphan_files(session, data_dir) == 3
        assert prune_orphan_files(session, data_dir) == 0
    assert folder_names(data_dir) == {kept.image_path.name, kept.thumbnail_path.name}
    assert not doomed.image_path.exists() and not doomed.thumbnail_path.exists()


def test_prune_without_a_folder_does_nothing(db: Database, data_dir: Path) -> None:
    with db.read_session() as session:
        assert prune_orphan_files(session, data_dir) == 0


def test_delete_removes_row_then_files(db: Database, data_dir: Path, now) -> None:
    first, second = add(db, data_dir, now), add(db, data_dir, now)
    second.thumbnail_path.unlink()  # a missing file is fine
    with db.session() as session:
        assert delete_keepsake(session, data_dir, first.id)
        assert delete_keepsake(session, data_dir, second.id)
        assert not delete_keepsake(session, data_dir, second.id)
        assert keepsake_count(session) == 0
    assert folder_names(data_dir) == set()


def test_failed_row_insert_removes_its_files(db: Database, data_dir: Path, now) -> None:
    with pytest.raises(StorageError, match="FOREIGN KEY"):
        add(db, data_dir, now, turn_id=12345)  # no such turn: the flush fails
    assert folder_names(data_dir) == set()


def test_turn_deletion_keeps_the_photo(db: Database, data_dir: Path, now) -> None:
    with db.session() as session:
        turn = repository.add_turn(session, None, "user", "look at this!", now)
    kept = add(db, data_dir, now, turn_id=turn)
    assert kept.turn_id == turn
    with db.session() as session:
        session.execute(delete(TurnRow).where(TurnRow.id == turn))
    with db.read_session() as session:
        again = get_keepsake(session, data_dir, kept.id)
    assert again is not None and again.turn_id is None and not again.missing


@pytest.mark.parametrize(
    "stored",
    ["../outside.jpg", "keepsakes/../../outside.jpg", "companion.db", "keepsakes\\..\\x.jpg",
     "", "keepsakes/sub/../../outside.jpg", "keepsakes/link.jpg"],
)  # fmt: skip
def test_paths_leaving_the_keepsakes_folder_read_as_missing(
    db: Database, data_dir: Path, now, stored: str
) -> None:
    outside = data_dir.parent / "outside.jpg"
    outside.write_bytes(b"not yours")
    (data_dir / "keepsakes").mkdir(exist_ok=True)
    (data_dir / "keepsakes" / "link.jpg").symlink_to(outside)
    db_files = {p.name for p in data_dir.iterdir() if p.is_file()}
    with db.session() as session:
        row = KeepsakeRow(
            file_path=stored, thumbnail_path=stored or "/etc/hostname", mime_type="image/jpeg",
            width=1, height=1, note=None, turn_id=None, created_at=now,
        )  # fmt: skip
        session.add(row)
        session.flush()
        kept = get_keepsake(session, data_dir, row.id)
        assert kept is not None and kept.missing
        assert kept.image_path.parent == (data_dir / "keepsakes").resolve()
        assert not kept.thumbnail_path.exists()
        assert delete_keepsake(session, data_dir, row.id)
    assert outside.read_bytes() == b"not yours"
    assert {p.name for p in data_dir.iterdir() if p.is_file()} == db_files


def test_bad_input_is_refused_before_writing(db: Database, data_dir: Path, now) -> None:
    for over, message in [
        ({"mime_type": "image/bmp"}, "JPEG, PNG, GIF or WebP"),
        ({"image": b""}, "needs the image"),
        ({"width": 0}, "1 to 100000 pixels"),
        ({"height": 10**9}, "1 to 100000 pixels"),
    ]:
        with pytest.raises(ValueError, match=message):
            add(db, data_dir, now, **over)
    assert not (data_dir / "keepsakes").exists() or folder_names(data_dir) == set()
    with db.read_session() as session:
        assert keepsake_count(session) == 0


def test_unwritable_folder_gives_a_clear_error(db: Database, data_dir: Path, now) -> None:
    (data_dir / "keepsakes").write_bytes(b"a file where the folder should be")
    with pytest.raises(KeepsakeWriteError, match="couldn't keep that photo") as error:
        add(db, data_dir, now)
    assert isinstance(error.value, StorageError)
    with db.read_session() as session:
        assert keepsake_count(session) == 0


def test_failed_second_write_leaves_nothing(
    db: Database, data_dir: Path, now, monkeypatch: pytest.MonkeyPatch
) -> None:
    from companion_desktop.storage import keepsakes

    real = os.replace
    calls: list[str] = []

    def flaky(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(src, dst)

    monkeypatch.setattr(keepsakes.os, "replace", flaky)
    with pytest.raises(KeepsakeWriteError, match="No space left"):
        add(db, data_dir, now)
    assert folder_names(data_dir) == set()
