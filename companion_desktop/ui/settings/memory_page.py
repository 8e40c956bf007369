"""Settings > Memory: what she remembers, in four tabs (spec "Inspecting Memory").

Graph: the facts as a map. Facts: search, filter, add, edit, delete (additions and
edits go through ``FactService``, so dedup and embedding apply). Sessions: this
run's turns and the saved session summaries. Settings: the way to Settings > Data,
and an Advanced section with her state (read-only) and a parser test that saves
nothing. A status line names the embedding model and the re-embedding progress.
Changes on this page take effect at once; Save has nothing to write here.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.engine.parse import parse_response
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.facts import (
    CATEGORIES,
    CATEGORY_NAMES,
    LOADING,
    READY,
    UNAVAILABLE,
    EmbeddingStatus,
    FactProblem,
    FactService,
)
from companion_desktop.storage import repository as repo
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.records import FactRecord
from companion_desktop.storage.savefile import character_to_json
from companion_desktop.ui.plain import ask_yes_no, plain_label, plain_tip
from companion_desktop.ui.settings.llm_page import status
from companion_desktop.ui.settings.memory_graph import MemoryGraph

MERGED = "Merged with an existing memory"
PAGE_STYLE = """
QTabWidget::pane { border: none; border-top: 1px solid #eadff0; }
QTabBar::tab { background: transparent; color: #8a7d93; padding: 7px 16px; border: none;
  border-bottom: 2px solid transparent; font-weight: 600; }
QTabBar::tab:selected { color: #7a3ea1; border-bottom: 2px solid #b86ad6; }
QTabBar::tab:hover:!selected { color: #5b3a6e; }
QTableWidget { border: 1px solid #eadff0; border-radius: 10px; gridline-color: #f3ecf6;
  selection-background-color: #f3e6fb; selection-color: #3a3340; }
QHeaderView::section { background: #fbf7fb; color: #5b3a6e; border: none;
  border-bottom: 1px solid #eadff0; padding: 5px 6px; font-weight: 600; }
"""
SAMPLE_REPLY = ('That sounds lovely! Tell me more about the hike.\n'
                '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5},\n'
                ' "affection_delta": 2, "new_memory": "User went hiking on Sunday."}\n```')


def model_label(name: str | None) -> str:
    return (name or "").rstrip("/").rsplit("/", 1)[-1] or "none"


def status_text(state: EmbeddingStatus) -> str:
    """"Memory model: all-MiniLM-L6-v2 (ready)" and the re-embedding progress when running."""
    name = model_label(state.model_name)
    if state.state == LOADING:
        text = f"Memory model: {name} (loading…)"
    elif state.state == READY:
        text = f"Memory model: {name} (ready)"
    elif state.state == UNAVAILABLE:
        text = f"Memory model: {name} (not available: keyword search)"
    else:
        text = "Memory model: not loaded (keyword search)"
    if state.backfilling:
        text += f" · Re-embedding {state.done}/{state.total}"
    return text


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


class SessionsTab(QWidget):
    """This run's turns and the saved session summaries, newest first."""

    def __init__(self, service: CompanionService,
                 current_session: Callable[[], int | None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.current_session = current_session or self._latest_open_session
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        layout.addWidget(QLabel("This session", objectName="sectionTitle"))
        self.turns = QPlainTextEdit(objectName="sessionTurns", readOnly=True)
        layout.addWidget(self.turns, 1)
        layout.addWidget(QLabel("Past sessions", objectName="sectionTitle"))
        self.table = QTableWidget(0, 4, objectName="sessionsTable")
        self.table.setHorizontalHeaderLabels(("Started", "Messages", "Topics", "Summary"))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)
        self.reload()

    def _latest_open_session(self) -> int | None:
        with self.service.db.read_session() as session:
            sessions = repo.list_sessions(session)
        open_ones = [s for s in sessions if s.ended_at is None]
        return open_ones[-1].id if open_ones else None

    def reload(self) -> None:
        current = self.current_session()
        with self.service.db.read_session() as session:
            turns = repo.session_turns(session, current) if current is not None else []
            sessions = [s for s in repo.list_sessions(session) if s.id != current]
        lines = []
        for turn in turns:
            when = turn.created_at.astimezone().strftime("%H:%M")
            who = {"user": "You", "assistant": "Her", "system": "Event"}.get(turn.role, turn.role)
            lines.append(f"[{when}] {who}: {turn.content}")
        self.turns.setPlainText("\n\n".join(lines) if lines else "Nothing said yet in this "
                                                                "session.")
        sessions.reverse()
        self.table.setRowCount(len(sessions))
        for row, item in enumerate(sessions):
            started = item.started_at.astimezone().strftime("%Y-%m-%d %H:%M")
            summary = item.summary or "(summary made when the app next starts)"
            for column, value in enumerate((started, str(item.message_count),
                                            ", ".join(item.key_topics), summary)):
                cell = QTableWidgetItem(value)
                cell.setToolTip(plain_tip(value))
                self.table.setItem(row, column, cell)


class AdvancedTab(QWidget):
    """The way to Settings > Data, her state as JSON, and the parser test."""

    open_data_page = Signal()

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        line = QHBoxLayout()
        line.addWidget(QLabel("Export, import or replace everything she remembers:",
                              objectName="pageHint"))
        self.data_button = QPushButton("Open Settings › Data", objectName="linkButton")
        self.data_button.clicked.connect(self.open_data_page.emit)
        line.addWidget(self.data_button)
        line.addStretch(1)
        layout.addLayout(line)
        layout.addWidget(QLabel("Advanced", objectName="sectionTitle"))
        layout.addWidget(QLabel("Her state, as the save file writes it (read-only)",
                                objectName="formLabel"))
        self.state = QPlainTextEdit(objectName="characterState", readOnly=True)
        self.state.setMinimumHeight(120)
        layout.addWidget(self.state, 2)
        layout.addWidget(QLabel("Parser test: paste a model reply to see what the app reads "
                                "from it. Nothing is saved.", objectName="formLabel",
                                wordWrap=True))
        columns = QHBoxLayout()
        left = QVBoxLayout()
        self.sample = QPlainTextEdit(SAMPLE_REPLY, objectName="parserInput")
        self.sample.setMinimumHeight(150)
        left.addWidget(self.sample, 1)
        row = QHBoxLayout()
        self.parse_button = QPushButton("Parse", objectName="secondaryButton")
        self.parse_button.clicked.connect(self.parse)
        row.addWidget(self.parse_button)
        row.addStretch(1)
        left.addLayout(row)
        columns.addLayout(left, 1)
        self.result = QPlainTextEdit(objectName="parserResult", readOnly=True)
        self.result.setPlaceholderText("Press Parse to see the visible reply, the JSON block "
                                       "found and what the app would apply.")
        self.result.setMinimumHeight(150)
        columns.addWidget(self.result, 1)
        layout.addLayout(columns, 3)
        self.reload()

    def reload(self) -> None:
        try:
            with self.service.db.read_session() as session:
                state = repo.load_character(session)
        except StorageError as error:
            self.state.setPlainText(f"Her state could not be read: {error}")
            return
        self.state.setPlainText(json.dumps(character_to_json(state), indent=2, ensure_ascii=False)
                                if state else "She has not been met yet.")

    def parse(self) -> dict[str, Any]:
        """Parse the sample and show the visible text, the block and the sanitized suggestion."""
        name = self._name()
        parsed = parse_response(self.sample.toPlainText(), name)
        suggestion = {k: v for k, v in dataclasses.asdict(parsed.suggestion).items()
                      if v is not None}
        shown = {
            "visible text": parsed.text,
            "JSON block found": parsed.block,
            "what the app would apply": suggestion,
            "reminders": [{"in seconds": r.seconds, "text": r.text} for r in parsed.reminders],
        }
        parts = [f"What she says:\n{parsed.text or '(nothing)'}",
                 "JSON block found:\n" + (json.dumps(parsed.block, indent=2, ensure_ascii=False)
                                          if parsed.has_block else "none"),
                 "Sanitized suggestion (what the app would apply):\n"
                 + (json.dumps(suggestion, indent=2, ensure_ascii=False) if suggestion
                    else "nothing")]
        if parsed.reminders:
            parts.append("Reminders:\n" + "\n".join(f"in {r.seconds} s: {r.text}"
                                                   for r in parsed.reminders))
        self.result.setPlainText("\n\n".join(parts))
        return shown

    def _name(self) -> str:
        try:
            with self.service.db.read_session() as session:
                state = repo.load_character(session)
        except StorageError:
            return ""
        return state.name if state else ""


class _Tabs(QTabWidget):
    """Tabs that take the height the settings page has instead of growing the page (and its
    scroll area) to their tallest tab: no height-for-width, an ignored vertical hint."""

    def hasHeightForWidth(self) -> bool:
        return False


class MemoryPage(QWidget):
    """The Memory page. ``open_data_page`` asks the dialog to show Settings > Data."""

    open_data_page = Signal()
    TABS = ("Graph", "Facts", "Sessions", "Settings")

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 facts: FactService | None = None,
                 current_session: Callable[[], int | None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.facts = facts or getattr(service, "facts", None) or FactService(service.db)
        self.setStyleSheet(PAGE_STYLE)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Memory", objectName="pageTitle"))
        layout.addWidget(QLabel("What she remembers about you and the two of you, and the "
                                "conversations so far.", objectName="pageHint", wordWrap=True))
        self.status = plain_label(objectName="memoryStatus")
        self.status.setStyleSheet("color: #6f5f7a;")
        layout.addWidget(self.status)
        self.tabs = _Tabs(objectName="memoryTabs")
        self.graph = MemoryGraph()
        self.facts_tab = FactsTab(self.facts, clock)
        self.sessions_tab = SessionsTab(service, current_session)
        self.advanced_tab = AdvancedTab(service)
        advanced = QScrollArea(objectName="advancedScroll")
        advanced.setWidgetResizable(True)
        advanced.setFrameShape(QFrame.Shape.NoFrame)
        advanced.setStyleSheet("#advancedScroll, #advancedTab { background: #ffffff; }")
        self.advanced_tab.setObjectName("advancedTab")
        advanced.setWidget(self.advanced_tab)
        for tab, title in zip((self.graph, self.facts_tab, self.sessions_tab, advanced),
                              self.TABS, strict=True):
            self.tabs.addTab(tab, title)
        self.tabs.setMinimumHeight(380)
        self.tabs.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Ignored)
        layout.addWidget(self.tabs, 1)
        self.facts_tab.changed.connect(self.reload_graph)
        self.advanced_tab.open_data_page.connect(self.open_data_page.emit)
        self._graph_stale = True
        self.tabs.currentChanged.connect(self._tab_changed)
        self.timer = QTimer(self, interval=1000)
        self.timer.timeout.connect(self.refresh_status)
        self.timer.start()
        self.refresh_status()
        self.reload_graph()

    def show_tab(self, title: str) -> None:
        self.tabs.setCurrentIndex(self.TABS.index(title))

    def _tab_changed(self, index: int) -> None:
        if index == 0 and self._graph_stale:
            self.reload_graph()

    def refresh_status(self) -> None:
        state = self.facts.status()
        self.status.setText(status_text(state))
        self.status.setToolTip(plain_tip(state.detail))

    def reload_graph(self) -> None:
        """Redraw the graph now when it shows, else when its tab is next opened."""
        if self.tabs.currentIndex() != 0:
            self._graph_stale = True
            return
        try:
            data = self.facts.graph_facts()
        except StorageError:
            return
        self.graph.set_graph(data.facts, data.vectors)
        self._graph_stale = False

    def reload(self) -> None:
        """Reread everything (after an import)."""
        self.facts_tab.reload()
        self.sessions_tab.reload()
        self.advanced_tab.reload()
        self._graph_stale = True
        self.reload_graph()
        self.refresh_status()

    def check(self) -> None:
        """Nothing to check: changes here are written at once."""

    def apply(self) -> None:
        """Nothing to save: changes here are written at once."""
