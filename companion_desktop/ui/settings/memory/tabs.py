"""Settings > Memory > Sessions and Settings: this run's turns and the saved session
summaries; the way to Settings > Data, her state and the parser test.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.engine.parse import parse_response
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository as repo
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.savefile import character_to_json
from companion_desktop.ui.plain import plain_tip

__all__ = ["SAMPLE_REPLY", "AdvancedTab", "SessionsTab"]

SAMPLE_REPLY = ('That sounds lovely! Tell me more about the hike.\n'
                '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5},\n'
                ' "affection_delta": 2, "new_memory": "User went hiking on Sunday."}\n```')



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
