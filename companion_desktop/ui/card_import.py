"""Importing a character card from the GUI: Settings > Character's button, or a card
file dropped on the chat window or on her (told apart from a photo by its content,
``storage.card_file.is_card_file``).

The file is read and checked whole first (a refusal is one line, nothing written);
then the user chooses: keep the relationship (her stats and memories stay) or start a
new one (the current one is backed up first); a World Info file is added to her
lorebook. ``CardImporter.imported`` fires after an import with the
``storage.card_store.CardImport``; ``refused`` with the one-line reason.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from companion_desktop.storage.db import Database
from companion_desktop.ui.plain import ask_choice

KEEP, NEW, ADD = "keep", "new", "add"
FILE_FILTER = "Character cards (*.png *.json *.charx);;All files (*)"


class CardImporter(QObject):
    """Reads, asks and imports (see the module). ``ask(name, what)`` returns KEEP, NEW,
    ADD or None (cancelled); ``what`` is "card" or "lorebook". Tests replace it."""

    imported = Signal(object)
    refused = Signal(str)
    working = Signal(str)  # what is under way ("" when done)

    def __init__(self, db: Database, clock: Callable[[], datetime], parent: QWidget) -> None:
        super().__init__(parent)
        self.db = db
        self.clock = clock
        self.window = parent
        self.ask: Callable[[str, str], str | None] = self._ask
        self.busy = False

    def choose(self) -> object | None:
        """Ask for a card file with the system dialog and import it."""
        path, _ = QFileDialog.getOpenFileName(self.window, "Import a character card",
                                              str(Path.home()), FILE_FILTER)
        return self.import_path(Path(path)) if path else None

    def import_path(self, path: Path | str) -> object | None:
        """Import the card at ``path``; the ``CardImport``, or None (refused, cancelled)."""
        from companion_desktop.engine.card import CardError
        from companion_desktop.storage.card_file import read_card_file
        from companion_desktop.storage.card_store import import_card
        from companion_desktop.storage.errors import StorageError

        path = Path(path)
        if self.busy:
            self.refused.emit(f"{path.name} was not imported: another import is under way.")
            return None
        self.busy = True
        try:
            try:
                found = self._off_thread(lambda: read_card_file(path), f"Reading {path.name}…")
            except CardError as error:
                self.refused.emit(f"{path.name} was not imported: {error}")
                return None
            what = "card" if found.card is not None else "lorebook"
            name = found.card.name if found.card is not None else path.name
            choice = self.ask(name, what)
            if choice not in (KEEP, NEW, ADD):
                return None
            doing = "Backing up, then importing…" if choice == NEW else "Importing…"
            try:
                done = self._off_thread(lambda: import_card(
                    self.db, found, choice != NEW, self.clock(), source=path.name), doing)
            except (CardError, StorageError) as error:
                self.refused.emit(f"{path.name} was not imported: {error}")
                return None
        finally:
            self.busy = False
        self.imported.emit(done)
        return done

    def _off_thread(self, work: Callable[[], Any], doing: str) -> Any:
        """``work()`` on a thread of its own while the window goes on drawing (a large
        card, or the backup before a new relationship, takes seconds); what it returns
        or raises. ``working`` says what is under way, then "" when it is done."""
        out: dict[str, Any] = {}
        finished = threading.Event()

        def run() -> None:
            try:
                out["value"] = work()
            except BaseException as error:  # noqa: BLE001 - raised again on this thread
                out["error"] = error
            finally:
                finished.set()

        threading.Thread(target=run, name="card-import", daemon=True).start()
        if not finished.wait(0.1):  # quick work never shows anything
            self.working.emit(doing)
            QApplication.setOverrideCursor(Qt.CursorShape.BusyCursor)
            loop = QEventLoop()
            timer = QTimer(interval=25)
            timer.timeout.connect(lambda: finished.is_set() and loop.quit())
            timer.start()
            try:
                loop.exec()
            finally:
                timer.stop()
                QApplication.restoreOverrideCursor()
                self.working.emit("")
        if "error" in out:
            raise out["error"]
        return out["value"]

    def _ask(self, name: str, what: str) -> str | None:
        title = "Import a character card"
        role = QMessageBox.ButtonRole
        if what == "lorebook":
            chosen = ask_choice(self.window, title, f"Add the lorebook {name} to hers?", "",
                                [("Add to her lorebook", role.AcceptRole)])
            return ADD if chosen == 0 else None
        chosen = ask_choice(
            self.window, title, f"Make her {name}?",
            "Keep our relationship: she becomes this character and keeps your stats, stage "
            "and memories.\nStart a new relationship: you meet for the first time; the "
            "current relationship is backed up first.\nHer 3D avatar stays as it is.",
            [("Keep our relationship", role.AcceptRole),
             ("Start a new relationship", role.DestructiveRole)])
        return {0: KEEP, 1: NEW}.get(chosen) if chosen is not None else None
