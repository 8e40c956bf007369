"""Settings > Memory > Facts: search, filter, add, edit and delete what she remembers.

Additions and edits go through ``FactService``, so dedup and embedding apply.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.facts import CATEGORIES, CATEGORY_NAMES, FactProblem, FactService
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.records import FactRecord
from companion_desktop.ui.plain import ask_yes_no, plain_label, plain_tip
from companion_desktop.ui.settings.llm_page import status

__all__ = ["MERGED", "FactDialog", "FactsTab", "category_combo", "model_label"]

MERGED = "Merged with an existing memory"


def model_label(name: str | None) -> str:
    """A model's short name: the last part of its id, without the engine tag."""
    return (name or "").rstrip("/").rsplit("/", 1)[-1].split("@", 1)[0] or "none"


class FactDialog(QDialog):
    """Asks for a memory's text and category."""

    def __init__(self, title: str, content: str = "", category: str = "user",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.resize(440, 220)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Write it as she would remember it, in one short sentence "
                                "(e.g. “User has a cat named Miso.”).", objectName="pageHint",
                                wordWrap=True))
        self.content = QPlainTextEdit(content, objectName="factContent")
        layout.addWidget(self.content, 1)
        self.category = category_combo(with_all=False)
        self.category.setCurrentIndex(max(0, self.category.findData(category)))
        layout.addWidget(self.category)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    @staticmethod
    def ask(parent: QWidget, title: str, content: str, category: str) -> tuple[str, str] | None:
        dialog = FactDialog(title, content, category, parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        return dialog.content.toPlainText(), str(dialog.category.currentData())


def category_combo(with_all: bool) -> QComboBox:
    combo = QComboBox(objectName="categoryCombo")
    if with_all:
        combo.addItem("All categories", None)
    for category in CATEGORIES:
        combo.addItem(CATEGORY_NAMES[category], category)
    return combo


def _number_item(value: float) -> QTableWidgetItem:
    item = QTableWidgetItem()
    item.setData(Qt.ItemDataRole.DisplayRole, int(round(value)))
    item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
    return item


class FactsTab(QWidget):
    """Search, filter, add, edit and delete facts. ``changed`` fires after every write."""

    changed = Signal()
    COLUMNS = ("Memory", "Category", "Importance", "Referenced", "Embedding")

    def __init__(self, facts: FactService, clock: Callable[[], datetime],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facts = facts
        self.clock = clock
        #: Ask a yes/no question; ask for (content, category). Tests replace both.
        self.confirm: Callable[[str], bool] = self._confirm
        self.ask_fact: Callable[[str, str, str], tuple[str, str] | None] = (
            lambda title, content, category: FactDialog.ask(self, title, content, category))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        bar = QHBoxLayout()
        self.search = QLineEdit(objectName="factSearch", placeholderText="Search memories…")
        self.search.setClearButtonEnabled(True)
        self.category = category_combo(with_all=True)
        bar.addWidget(self.search, 1)
        bar.addWidget(self.category)
        layout.addLayout(bar)
        self.table = QTableWidget(0, len(self.COLUMNS), objectName="factsTable")
        self.table.setHorizontalHeaderLabels(self.COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(30)
        self.table.setWordWrap(False)  # long memories are elided; the tooltip has them whole
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(self.COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSortIndicator(2, Qt.SortOrder.DescendingOrder)  # most important first
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.add_button = QPushButton("Add a memory…", objectName="secondaryButton")
        self.edit_button = QPushButton("Edit…", objectName="secondaryButton")
        self.delete_button = QPushButton("Delete", objectName="secondaryButton")
        self.count = plain_label(objectName="pageHint")
        for button in (self.add_button, self.edit_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.count)
        layout.addLayout(buttons)
        self.message = plain_label(objectName="statusLine", wordWrap=True)
        self.message.hide()
        layout.addWidget(self.message)
        self.search.textChanged.connect(lambda _: self.reload())
        self.category.currentIndexChanged.connect(lambda _: self.reload())
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.table.cellDoubleClicked.connect(lambda *_: self.edit_selected())
        self.add_button.clicked.connect(self.add)
        self.edit_button.clicked.connect(self.edit_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.shown: list[FactRecord] = []
        self.reload()

    def reload(self) -> None:
        """Show the facts matching the search box and category."""
        try:
            self.shown = self.facts.list(self.search.text() or None, self.category.currentData())
        except StorageError as error:
            status(self.message, f"The memories could not be read: {error}", "error")
            return
        self.table.setSortingEnabled(False)
        self.table.clearSelection()
        self.table.setRowCount(len(self.shown))
        for row, fact in enumerate(self.shown):
            content = QTableWidgetItem(fact.content)
            content.setData(Qt.ItemDataRole.UserRole, fact.id)
            content.setToolTip(plain_tip(fact.content))
            self.table.setItem(row, 0, content)
            self.table.setItem(row, 1, QTableWidgetItem(CATEGORY_NAMES.get(fact.category,
                                                                           fact.category)))
            self.table.setItem(row, 2, _number_item(fact.importance))
            self.table.setItem(row, 3, _number_item(fact.reference_count))
            model = model_label(fact.embedding_model) if fact.has_embedding else "—"
            self.table.setItem(row, 4, QTableWidgetItem(model))
        self.table.setSortingEnabled(True)
        self.table.clearSelection()
        self.count.setText(f"{len(self.shown)} memor{'y' if len(self.shown) == 1 else 'ies'}")
        self._selection_changed()

    def _selection_changed(self) -> None:
        chosen = self.selected_id() is not None
        self.edit_button.setEnabled(chosen)
        self.delete_button.setEnabled(chosen)

    def selected_id(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.table.item(rows[0].row(), 0)
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def select(self, fact_id: int) -> None:
        for row in range(self.table.rowCount()):
            if self.table.item(row, 0).data(Qt.ItemDataRole.UserRole) == fact_id:
                self.table.selectRow(row)
                return

    def add(self) -> None:
        answer = self.ask_fact("Add a memory", "", self.category.currentData() or "user")
        if answer is None:
            return
        try:
            fact_id, merged = self.facts.add(answer[0], answer[1], self.clock(), source="manual")
        except (FactProblem, StorageError) as error:
            status(self.message, f"✗  {error}", "error")
            return
        self._written(fact_id, MERGED + "." if merged else "✓  Memory added.")

    def edit_selected(self) -> None:
        fact_id = self.selected_id()
        fact = self.facts.get(fact_id) if fact_id is not None else None
        if fact is None:
            return
        answer = self.ask_fact("Edit memory", fact.content, fact.category)
        if answer is None:
            return
        try:
            new_id, merged = self.facts.edit(fact.id, answer[0], answer[1])
        except (FactProblem, StorageError) as error:
            status(self.message, f"✗  {error}", "error")
            return
        self._written(new_id, MERGED + "." if merged else "✓  Memory saved.")

    def delete_selected(self) -> None:
        fact_id = self.selected_id()
        fact = self.facts.get(fact_id) if fact_id is not None else None
        if fact is None:
            return
        if not self.confirm(f"Forget this memory?\n\n“{fact.content}”"):
            return
        try:
            self.facts.delete(fact.id)
        except StorageError as error:
            status(self.message, f"✗  {error}", "error")
            return
        self._written(None, "Memory deleted.")

    def _written(self, fact_id: int | None, text: str) -> None:
        self.reload()
        if fact_id is not None:
            self.select(fact_id)
        status(self.message, text, "ok")
        self.changed.emit()

    def _confirm(self, text: str) -> bool:
        return ask_yes_no(self, "Delete memory", text)
