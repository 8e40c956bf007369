"""Settings > Data > Backups: the archives in the data folder, with Restore, and the space
they take; "Back up now"; restoring from any archive file.

Backups and restores run off the GUI thread with a progress bar. The app holds the
database open, so a restore here is checked and unpacked now and swapped in when the
app next starts (``storage.backup_restore``, ``pending=True``); the page then offers
to quit. Until then she keeps the current data, and what is said meanwhile is not
kept.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.key_hold import restore_lines
from companion_desktop.storage import backup
from companion_desktop.storage.backup import BackupInfo
from companion_desktop.storage.backup_restore import Restored, pending_restore, restore_backup
from companion_desktop.storage.backup_text import made_text, size_text, when_text
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.plain import ask_yes_no, plain, plain_tip
from companion_desktop.ui.settings.llm_page import status

#: Backups listed without scrolling: the seven automatic ones kept, and one more.
ROWS_SHOWN = 8
ARCHIVE_FILTER = "Backups (*.zip);;All files (*)"
HINT = ("A backup is the full copy: her database with your settings, the kept photos, "
        "uploaded animation clips and her model (never API keys; those stay in the system "
        "keyring). One is made each day at start, before a replace import and before an "
        "update changes the database; the newest 7 of those are kept.")
REASONS = {"manual": "Made by you", "daily": "Daily", "before replace import":
           "Before a replace import", "before migration": "Before an update",
           "before restore": "Before a restore", "before a new character":
           "Before a new character", "before a new relationship": "Before a new relationship"}
DAMAGED = "Damaged: cannot be restored"


class _Progress(QObject):
    """Carries progress from the working thread to the GUI thread (queued)."""

    moved = Signal(int, int)


class BackupsSection(QWidget):
    """The list of backups with Restore buttons; ``restored(Restored)`` after a restore."""

    restored = Signal(object)

    def __init__(self, data_dir: Path, clock: Callable[[], datetime],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data_dir = Path(data_dir)
        self.clock = clock
        #: Dialogs (tests replace them): confirm a restore, offer to quit, pick an archive.
        self.confirm_restore: Callable[[str], bool] = self._confirm
        self.offer_quit: Callable[[], bool] = self._offer_quit
        self.choose_archive: Callable[[], Path | None] = self._archive_path
        self.busy_now = False
        self._progress = _Progress(self)
        self._progress.moved.connect(self._moved)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Backups", objectName="sectionTitle"))
        layout.addWidget(QLabel(HINT, objectName="pageHint", wordWrap=True))
        self.create_button = QPushButton("Back up now", objectName="secondaryButton")
        self.create_button.clicked.connect(self.create)
        self.file_button = QPushButton("Restore from a file…", objectName="secondaryButton")
        self.file_button.clicked.connect(self.restore_file)
        line = QHBoxLayout()
        line.addWidget(self.create_button)
        line.addWidget(self.file_button)
        line.addStretch(1)
        layout.addLayout(line)
        self.table = QTableWidget(0, 4, objectName="backupList")
        self.table.setHorizontalHeaderLabels(["Made", "Why", "Size", ""])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        for column in (0, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table)
        self.space = plain(QLabel(objectName="pageHint", wordWrap=True))  # the folder's path
        self.space.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.space)
        self.bar = QProgressBar(objectName="backupProgress")
        self.bar.setMaximumHeight(10)
        self.bar.setTextVisible(False)
        self.bar.hide()
        layout.addWidget(self.bar)
        self.status = plain(QLabel(objectName="statusLine", wordWrap=True))  # file names
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.hide()
        layout.addWidget(self.status)
        self.refresh()

    # --------------------------------------------------------------- the list
    def refresh(self) -> list[BackupInfo]:
        found = backup.list_backups(self.data_dir)
        self.table.setRowCount(len(found))
        for row, item in enumerate(found):
            why = DAMAGED if item.problem else REASONS.get(item.reason, item.reason)
            cells = (when_text(item.created_at), why, size_text(item.size))
            for column, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setToolTip(plain_tip(item.problem or item.path))
                self.table.setItem(row, column, cell)
            button = QPushButton("Restore", objectName="secondaryButton")
            button.setEnabled(not self.busy_now and item.problem is None)
            button.setProperty("damaged", item.problem is not None)
            button.clicked.connect(lambda _=False, path=item.path: self.restore(path))
            self.table.setCellWidget(row, 3, button)
        self._fit_height()
        total = backup.space_used(self.data_dir)
        count = f"{len(found)} backup{'s' * (len(found) != 1)}" if found else "No backups yet"
        self.space.setText(f"{count} · {size_text(total)} in {backup.backup_dir(self.data_dir)}")
        if pending_restore(self.data_dir) is not None:
            status(self.status, "A restore is waiting: it is swapped in when the app starts "
                                "again.", "hint")
        return found

    def _fit_height(self) -> None:
        """Tall enough for every row up to ``ROWS_SHOWN`` (the list scrolls beyond)."""
        table = self.table
        table.resizeRowsToContents()
        for row, button in enumerate(self.restore_buttons()):  # the button is not a cell
            table.setRowHeight(row, max(table.rowHeight(row), button.sizeHint().height()))
        rows = sum(table.rowHeight(r) for r in range(min(table.rowCount(), ROWS_SHOWN)))
        room = table.horizontalHeader().sizeHint().height() + rows + 2 * table.frameWidth() + 2
        table.setFixedHeight(max(150, room))

    def restore_buttons(self) -> list[QPushButton]:
        return [self.table.cellWidget(row, 3) for row in range(self.table.rowCount())]

    # --------------------------------------------------------------- work
    def _busy(self, on: bool, text: str = "") -> None:
        self.busy_now = on
        self.bar.setVisible(on)
        self.bar.setRange(0, 0)
        for button in (self.create_button, self.file_button, *self.restore_buttons()):
            button.setEnabled(not on and not button.property("damaged"))
        if text:
            status(self.status, text, "hint")

    def _moved(self, done: int, total: int) -> None:
        if total > 0:
            self.bar.setRange(0, 1000)
            self.bar.setValue(int(1000 * done / total))

    def create(self) -> bool:
        """Make a backup into backups/ off the GUI thread."""
        if self.busy_now:
            return False
        self._busy(True, "Backing up…")
        now = self.clock()
        job = lambda: backup.create_backup(self.data_dir, now=now,  # noqa: E731
                                           progress=self._progress.moved.emit)
        run_in_background(self, job, self._created, self._failed)
        return True

    def _created(self, made: BackupInfo) -> None:
        self._busy(False)
        self.refresh()
        status(self.status, f"✓  Backed up to {made.path.name} ({size_text(made.size)}).", "ok")

    def _failed(self, error: Exception) -> None:
        self._busy(False)
        self.refresh()
        status(self.status, f"✗  {error}", "error")

    def restore(self, path: Path) -> bool:
        """Check and stage ``path``; it is swapped in at the next start. False if not started."""
        if self.busy_now or not self.confirm_restore(Path(path).name):
            return False
        self._busy(True, f"Checking {Path(path).name}…")
        now = self.clock()
        job = lambda: restore_backup(self.data_dir, path, now=now, pending=True,  # noqa: E731
                                     progress=self._progress.moved.emit)
        run_in_background(self, job, self._restored, self._failed)
        return True

    def restore_file(self) -> bool:
        path = self.choose_archive()
        return self.restore(path) if path is not None else False

    def _restored(self, done: Restored) -> None:
        self._busy(False)
        self.refresh()
        held = " ".join(restore_lines(done.review))
        held = (f" For your safety: {held} Check Settings after the restart." if held else "")
        status(self.status, f"✓  The backup from {made_text(done.manifest)} is ready. It "
                            "takes her place when the app starts again; what is said until "
                            f"then is not kept.{held}", "ok")
        self.restored.emit(done)
        if self.offer_quit():
            QApplication.quit()

    # --------------------------------------------------------------- dialogs
    def _confirm(self, name: str) -> bool:
        return ask_yes_no(  # the file's name is shown as written
            self, "Restore a backup",
            f"Replace everything here with {name}?\n\nHer state, memories, messages, photos, "
            "clips and settings become what they were then. What is here now is backed up "
            "first. The backup takes effect when the app starts again.")

    def _offer_quit(self) -> bool:
        answer = QMessageBox.question(
            self, "Restore a backup", "Quit now, so the backup is in place when you start "
            "her again?")
        return answer == QMessageBox.StandardButton.Yes

    def _archive_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self, "Restore a backup", str(Path.home()),
                                              ARCHIVE_FILTER)
        return Path(path) if path else None
