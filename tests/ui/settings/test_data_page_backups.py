"""Settings > Data over real data folders: a replace while she runs leaves her working, and
the backups list (make one, restore one, the space they take)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import backup
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.ui.settings.data_page import DataPage
from tests.conftest import T0
from tests.pipeline.test_runner import BLOCK, Scripted, no_moments
from tests.pipeline.test_runner_replace import IMPORTED, OLD_WORDS, save_file

pytestmark = pytest.mark.qt

WAIT_MS = 15000


@pytest.fixture
def folder(tmp_path):
    db = Database.open(tmp_path / "data")
    service = CompanionService(db)
    no_moments(service)
    yield service
    db.close()


def contents(service) -> list[str]:
    with service.db.read_session() as session:
        return [t.content for t in repo.recent_turns(session, 1000)]


def test_a_replace_from_settings_leaves_her_working(qtbot, folder, tmp_path):
    provider = Scripted("Hello!\n" + BLOCK, "I remember rain.\n" + BLOCK)
    runner = TurnRunner(folder, provider, lambda: T0)
    runner.run(OLD_WORDS)
    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    page.choose_import_path = lambda: save_file(tmp_path / "save.json")
    page.ask_mode = lambda path, counts: "replace"
    with qtbot.waitSignal(page.imported, timeout=WAIT_MS):
        assert page.import_() is True
    assert "What was here before is in a backup" in page.import_status.text()
    assert page.backups.table.rowCount() == 1  # the backup made before the replace
    result = runner.run("what do you remember?")  # the next typed turn
    assert result.reply == "I remember rain."
    saved = contents(folder)
    assert "what do you remember?" in saved and "I remember rain." in saved
    assert OLD_WORDS not in saved and IMPORTED in saved
    with folder.db.read_session() as session:
        turn = [t for t in repo.recent_turns(session, 1000) if t.content == "I remember rain."][0]
        started = {s.id: s.started_at for s in repo.list_sessions(session)}
    assert started[turn.session_id] == T0  # today's session, not an imported one
    assert OLD_WORDS not in " ".join(m.content for m in provider.calls[1][1])
    runner.close()


def test_back_up_now_and_restore_at_the_next_start(qtbot, folder, tmp_path):
    data_dir = Path(folder.db.path).parent
    with folder.db.session() as session:
        repo.add_fact(session, "User has a cat named Miso.", "user", T0)
    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    section = page.backups
    assert section.table.rowCount() == 0 and section.space.text().startswith("No backups yet")
    seen = []
    section._progress.moved.connect(lambda done, total: seen.append((done, total)))
    qtbot.waitUntil(lambda: not section.busy_now, timeout=WAIT_MS)
    assert section.create() is True
    assert section.busy_now and not section.create_button.isEnabled()
    qtbot.waitUntil(lambda: not section.busy_now, timeout=WAIT_MS)
    assert "Backed up to" in section.status.text()
    assert section.table.rowCount() == 1 and section.table.item(0, 1).text() == "Made by you"
    assert seen and seen[-1][0] == seen[-1][1]  # progress reached the end
    assert section.space.text().startswith("1 backup · ")
    assert str(data_dir / "backups") in section.space.text()

    with folder.db.session() as session:
        repo.add_fact(session, "User moved to Lisbon.", "user", T0)
    asked = []
    section.confirm_restore = lambda name: asked.append(name) or True
    section.offer_quit = lambda: False
    button = section.restore_buttons()[0]
    with qtbot.waitSignal(section.restored, timeout=WAIT_MS):
        button.click()
    assert asked and asked[0].endswith(".zip")
    assert "takes her place when the app starts again" in section.status.text()
    with folder.db.read_session() as session:  # the app keeps running on what it has
        assert len(repo.list_facts(session)) == 2
    folder.db.close()  # quit
    db = Database.open(data_dir)  # start again
    try:
        with db.read_session() as session:
            assert [f.content for f in repo.list_facts(session)] == ["User has a cat named Miso."]
    finally:
        db.close()
    reasons = sorted(b.reason for b in backup.list_backups(data_dir))
    assert reasons == ["before restore", "manual"]


@pytest.fixture
def far_zone(monkeypatch):
    """Local time 12 hours ahead of UTC, so a time shown in UTC reads differently."""
    monkeypatch.setenv("TZ", "XYZ-12")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_restore_message_gives_the_time_the_list_shows(qtbot, folder, far_zone):
    made = backup.create_backup(Path(folder.db.path).parent, now=T0)
    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    section = page.backups
    shown = section.table.item(0, 0).text()
    assert shown == T0.astimezone().strftime("%Y-%m-%d %H:%M")
    section.confirm_restore = lambda name: True
    section.offer_quit = lambda: False
    with qtbot.waitSignal(section.restored, timeout=WAIT_MS):
        section.restore(made.path)
    assert f"The backup from {shown} is ready" in section.status.text()


def test_a_damaged_file_is_refused_with_a_message(qtbot, folder, tmp_path):
    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    page.backups.choose_archive = lambda: bad
    page.backups.confirm_restore = lambda name: True
    assert page.backups.restore_file() is True
    qtbot.waitUntil(lambda: not page.backups.busy_now, timeout=WAIT_MS)
    assert "is damaged or not a backup" in page.backups.status.text()
    assert not list(Path(folder.db.path).parent.glob(".restore-*"))


def test_screenshot(qtbot, folder, tmp_path):
    """The page with a few backups, saved for a look (SHOT_DIR or tmp_path)."""
    data_dir = Path(folder.db.path).parent
    for reason in (backup.REASON_DAILY, backup.REASON_REPLACE):
        backup.auto_backup(data_dir, reason, T0)
    backup.create_backup(data_dir, now=T0)
    from companion_desktop.ui.style import STYLE_SHEET

    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    page.setStyleSheet(STYLE_SHEET)
    page.resize(720, 900)
    page.show()
    qtbot.waitExposed(page)
    assert page.backups.table.rowCount() == 3
    shot = Path(os.environ.get("SHOT_DIR", tmp_path)) / "data_page.png"
    assert page.grab().save(str(shot))


def test_file_names_and_file_text_show_literally(qtbot, folder, tmp_path):
    """A file's name and what it holds are not ours: the status lines and the restore
    question show them as written (plain text), never as markup."""
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

    name = "<b>x"  # a tag that fits in a file name (no slash)

    def literal(label: QLabel, text: str) -> None:
        assert text in label.text() and label.textFormat() == Qt.TextFormat.PlainText

    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    save = tmp_path / f"{name}.json"
    save.write_text('{"version": "2.0", "data": {"character": {"name": "<b>Hana"', encoding="utf-8")
    page.choose_import_path = lambda: save
    assert page.import_() is False
    literal(page.import_status, f"{name}.json was not imported")

    archive = tmp_path / f"{name}.zip"
    archive.write_bytes(b"not a zip")
    asked = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        literal(box.findChild(QLabel, "qt_msgbox_label"), f"{name}.zip")
        asked.append(box)
        box.button(QMessageBox.StandardButton.Yes).click()

    page.backups.choose_archive = lambda: archive
    QTimer.singleShot(100, answer)
    assert page.backups.restore_file() is True
    assert asked
    qtbot.waitUntil(lambda: not page.backups.busy_now, timeout=WAIT_MS)
    literal(page.backups.status, f"{name}.zip is damaged or not a backup")


def test_the_list_shows_eight_backups_without_scrolling(qtbot, folder):
    """The seven automatic backups kept and one more fit; beyond that the list scrolls."""
    from datetime import timedelta

    from companion_desktop.ui.settings.data_backups import ROWS_SHOWN

    data_dir = Path(folder.db.path).parent
    for n in range(ROWS_SHOWN):
        backup.create_backup(data_dir, now=T0 + timedelta(minutes=n))
    page = DataPage(folder, lambda: T0)
    qtbot.addWidget(page)
    page.resize(720, 1400)
    page.show()
    qtbot.waitExposed(page)
    table = page.backups.table
    assert table.rowCount() == ROWS_SHOWN
    qtbot.waitUntil(lambda: table.verticalScrollBar().maximum() == 0, timeout=5000)
    for n in range(ROWS_SHOWN, ROWS_SHOWN + 3):
        backup.create_backup(data_dir, now=T0 + timedelta(minutes=n))
    page.backups.refresh()
    qtbot.waitUntil(lambda: table.verticalScrollBar().maximum() > 0, timeout=5000)
