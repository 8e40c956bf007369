"""Settings > Data: export a save file, import one by merging or replacing (spec "Data
Export and Import").

Import reads and validates the whole file first; a refusal is shown and nothing
changes. Then a confirmation names the mode and the counts, the import runs off
the GUI thread in one transaction with a busy indicator, and a summary follows.
Save files carry no embeddings: after an import ``rebuild_requested`` fires so the
app's background backfill re-embeds the facts (and the fact index is reloaded).
A replace is backed up first; the running turn pipeline notices the replace and
continues in a new session on the new data. Backups: ``data_backups``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import savefile
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.savefile import ExportSummary, ImportSummary, SaveFile, SaveFileError
from companion_desktop.storage.savefile_text import describe_counts, export_text, import_text
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.plain import ask_choice, plain
from companion_desktop.ui.settings.data_backups import BackupsSection
from companion_desktop.ui.settings.llm_page import status

FILE_FILTER = "Save files (*.json);;All files (*)"
EMBEDDING_NOTE = ("Save files leave out the memory embeddings. After an import they are "
                  "rebuilt in the background; until then memory search uses keywords.")


def save_counts(save: SaveFile) -> dict[str, int]:
    """What a save file holds, by ``savefile.KINDS``."""
    data = save.data
    return {"character": int(data.character is not None),
            "relationship": int(data.relationship is not None),
            "facts": len(data.facts), "sessions": len(data.sessions),
            "turns": len(data.conversation_turns), "completed_events": len(data.completed_events)}


class DataPage(QWidget):
    """Export and import. ``imported(summary)`` and ``rebuild_requested`` fire after an
    import; ``facts`` (a ``FactService``, optional) gets its index reloaded."""

    imported = Signal(object)
    rebuild_requested = Signal()

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 facts: object | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.clock = clock
        self.facts = facts if facts is not None else getattr(service, "facts", None)
        #: The file pickers and the merge/replace question (tests replace them).
        self.choose_export_path: Callable[[], Path | None] = self._export_path
        self.choose_import_path: Callable[[], Path | None] = self._import_path
        self.ask_mode: Callable[[Path, dict[str, int]], str | None] = self._ask_mode
        self.busy_now = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Data", objectName="pageTitle"))
        layout.addWidget(QLabel("Everything she knows lives in a database on this computer. "
                                "A save file (JSON, version 2.0) holds her state, memories, "
                                "sessions, messages and events.", objectName="pageHint",
                                wordWrap=True))
        layout.addSpacing(10)
        layout.addWidget(QLabel("Export", objectName="sectionTitle"))
        layout.addWidget(QLabel("Reminders, avatars, animations, photos and settings are not in "
                                "the save file.", objectName="pageHint", wordWrap=True))
        self.export_button = QPushButton("Export a save file…", objectName="secondaryButton")
        self.export_button.clicked.connect(self.export)
        layout.addLayout(self._line(self.export_button))
        self.export_status = plain(QLabel(objectName="statusLine", wordWrap=True))  # file names
        self.export_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_status.hide()
        layout.addWidget(self.export_status)
        layout.addSpacing(12)
        layout.addWidget(QLabel("Import", objectName="sectionTitle"))
        layout.addWidget(QLabel("Merge adds what is new and keeps what is here. Replace "
                                "deletes her state, memories, sessions and messages here first.",
                                objectName="pageHint", wordWrap=True))
        layout.addWidget(QLabel(EMBEDDING_NOTE, objectName="pageHint", wordWrap=True))
        self.import_button = QPushButton("Import a save file…", objectName="secondaryButton")
        self.import_button.clicked.connect(self.import_)
        layout.addLayout(self._line(self.import_button))
        self.busy = QProgressBar(objectName="importBusy")
        self.busy.setRange(0, 0)
        self.busy.setMaximumHeight(8)
        self.busy.setTextVisible(False)
        self.busy.hide()
        layout.addWidget(self.busy)
        self.import_status = plain(QLabel(objectName="statusLine", wordWrap=True))  # and file text
        self.import_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.import_status.hide()
        layout.addWidget(self.import_status)
        layout.addSpacing(12)
        self.backups = BackupsSection(Path(service.db.path).parent, clock)
        layout.addWidget(self.backups)
        layout.addStretch(1)

    @staticmethod
    def _line(button: QPushButton) -> QHBoxLayout:
        line = QHBoxLayout()
        line.addWidget(button)
        line.addStretch(1)
        return line

    # --------------------------------------------------------------- export
    def _export_path(self) -> Path | None:
        stamp = self.clock().strftime("%Y-%m-%d")
        start = str(Path.home() / f"companion-save-{stamp}.json")
        path, _ = QFileDialog.getSaveFileName(self, "Export a save file", start, FILE_FILTER)
        return Path(path) if path else None

    def export(self) -> ExportSummary | None:
        """Ask for a file and write the save file there; the outcome shows below."""
        path = self.choose_export_path()
        if path is None:
            return None
        try:
            summary = savefile.write_save_file(self.service.db, path, self.clock())
        except (SaveFileError, StorageError) as error:
            status(self.export_status, f"✗  {error}", "error")
            return None
        status(self.export_status, f"✓  {export_text(summary)}", "ok")
        return summary

    # --------------------------------------------------------------- import
    def _import_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self, "Import a save file", str(Path.home()),
                                              FILE_FILTER)
        return Path(path) if path else None

    def _ask_mode(self, path: Path, counts: dict[str, int]) -> str | None:
        role = QMessageBox.ButtonRole  # the text names the user's file: shown literally
        chosen = ask_choice(
            self, "Import a save file", f"{path.name} holds {describe_counts(counts)}.",
            "Merge adds what is new and keeps everything here.\nReplace deletes her state, "
            "memories, sessions, messages and events here and puts the file's in their place.",
            [("Merge", role.AcceptRole), ("Replace everything", role.DestructiveRole)])
        return {0: "merge", 1: "replace"}.get(chosen) if chosen is not None else None

    def import_(self) -> bool:
        """Ask for a file, validate it, confirm, then import off the GUI thread.

        False when nothing was started (cancelled or refused)."""
        path = self.choose_import_path()
        if path is None:
            return False
        try:
            save = savefile.read_save_file(path)
        except SaveFileError as error:
            status(self.import_status, f"✗  {path.name} was not imported: {error}", "error")
            return False
        counts = save_counts(save)
        mode = self.ask_mode(path, counts)
        if mode not in ("merge", "replace"):
            status(self.import_status, "Import cancelled; nothing changed.", "hint")
            return False
        self._busy(True)
        first = " (backing up first)" if mode == "replace" else ""
        status(self.import_status, f"Importing {path.name} ({mode}){first}…", "hint")
        now = self.clock()
        run_in_background(self, lambda: savefile.import_save(self.service.db, save, mode, now),
                          self._imported, self._failed)
        return True

    def _busy(self, on: bool) -> None:
        self.busy_now = on
        self.busy.setVisible(on)
        self.import_button.setEnabled(not on)
        self.export_button.setEnabled(not on)

    def _imported(self, summary: ImportSummary) -> None:
        self._busy(False)
        self.backups.refresh()
        rebuild = getattr(self.facts, "rebuild_index", None)
        if callable(rebuild):
            rebuild()
        text = f"✓  {import_text(summary)}"
        if summary.mode == "replace":
            text = text[:-1] + " (below)."
        if summary.imported.get("facts"):
            text += " Memory embeddings are being rebuilt in the background."
        status(self.import_status, text, "ok")
        self.imported.emit(summary)
        self.rebuild_requested.emit()

    def _failed(self, error: Exception) -> None:
        self._busy(False)
        status(self.import_status, f"✗  The import failed and nothing changed: {error}",
               "error")

    def check(self) -> None:
        """Nothing to check: export and import happen at once."""

    def apply(self) -> None:
        """Nothing to save: export and import happen at once."""
