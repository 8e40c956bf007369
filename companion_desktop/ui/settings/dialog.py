"""The one Settings window: a page list on the left, the page on the right, Save/Cancel."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QListWidget,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.facts import FactService
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.settings.animations_page import AnimationsPage
from companion_desktop.ui.settings.character_page import CharacterPage
from companion_desktop.ui.settings.data_page import DataPage
from companion_desktop.ui.settings.desktop.page import DesktopPage
from companion_desktop.ui.settings.display_page import DisplayPage
from companion_desktop.ui.settings.llm_page import LlmPage, SettingsProblem
from companion_desktop.ui.settings.memory.page import MemoryPage
from companion_desktop.ui.settings.tools.page import McpPage
from companion_desktop.ui.settings.voice.page import VoicePage
from companion_desktop.ui.style import STYLE_SHEET

PAGES = ("LLM Model", "Character", "Display", "Desktop", "Voice", "Animations", "Tools", "Memory",
         "Data")


class SettingsDialog(QDialog):
    """``saved`` fires after Save wrote every page; the dialog then closes.

    ``rebuild_requested`` fires after an import on the Data page (connect it to the
    embedding backfill). ``facts`` is the app's ``FactService`` (one is made when absent);
    ``current_session`` returns the id of this run's session for the Memory page.
    """

    saved = Signal()
    rebuild_requested = Signal()

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 parent: QWidget | None = None, page: str = "LLM Model",
                 host: object | None = None, facts: object | None = None,
                 current_session: Callable[[], int | None] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle("Settings")
        self.setStyleSheet(STYLE_SHEET)
        self.resize(820, 600)
        self.llm = LlmPage(service)
        self.character = CharacterPage(service, clock, host=host)
        self.display = DisplayPage(service)
        self.desktop = DesktopPage(service)
        self.voice = VoicePage(service)
        self.animations = AnimationsPage(service, host=host)
        self.tools = McpPage(service)
        if facts is None:
            facts = getattr(service, "facts", None) or FactService(service.db)
        self.memory = MemoryPage(service, clock, facts=facts, current_session=current_session)
        self.data = DataPage(service, clock, facts=facts)
        self.memory.open_data_page.connect(lambda: self.show_page("Data"))
        self.data.imported.connect(lambda _summary: self.memory.reload())
        self.data.rebuild_requested.connect(self.rebuild_requested.emit)
        root = QVBoxLayout(self)
        root.setContentsMargins(0, 0, 0, 0)
        root.setSpacing(0)
        body = QHBoxLayout()
        body.setSpacing(0)
        self.nav = QListWidget(objectName="settingsNav")
        self.nav.addItems(PAGES)
        self.nav.setFixedWidth(180)
        self.stack = QStackedWidget(objectName="settingsStack")
        for widget in (self.llm, self.character, self.display, self.desktop, self.voice,
                       self.animations, self.tools, self.memory, self.data):
            scroll = QScrollArea(objectName="pageScroll")
            scroll.setWidgetResizable(True)
            holder = QWidget(objectName="settingsPage")
            inner = QVBoxLayout(holder)
            inner.setContentsMargins(28, 22, 28, 22)
            inner.addWidget(widget)
            scroll.setWidget(holder)
            self.stack.addWidget(scroll)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        body.addWidget(self.nav)
        body.addWidget(self.stack, 1)
        root.addLayout(body, 1)
        footer = QWidget(objectName="settingsFooter")
        line = QHBoxLayout(footer)
        line.setContentsMargins(20, 10, 20, 12)
        self.problem = plain_label(objectName="statusLine", wordWrap=True)
        self.problem.setProperty("kind", "error")
        line.addWidget(self.problem, 1)
        self.cancel_button = QPushButton("Cancel", objectName="secondaryButton")
        self.save_button = QPushButton("Save", objectName="primaryButton")
        self.save_button.setDefault(True)
        self.cancel_button.clicked.connect(self.reject)
        self.save_button.clicked.connect(self.save)
        line.addWidget(self.cancel_button)
        line.addWidget(self.save_button)
        root.addWidget(footer)
        self.show_page(page)

    def show_page(self, title: str) -> None:
        self.nav.setCurrentRow(PAGES.index(title) if title in PAGES else 0)

    def save(self) -> bool:
        """Write every page; on a problem, show it and stay open. True when saved."""
        self.problem.clear()
        pages = (self.llm, self.character, self.display, self.desktop, self.voice,
                 self.animations, self.tools)
        applied = 0
        try:
            for page in pages:
                page.check()
            for page in pages:
                page.apply()
                applied += 1
        except (SettingsProblem, StorageError) as error:
            self.nav.setCurrentRow(pages.index(page))
            self.problem.setText(str(error))
            if applied:
                self.saved.emit()  # what was written already takes effect
            return False
        self.saved.emit()
        self.accept()
        return True
