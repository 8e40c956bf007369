"""Settings > Memory: what she remembers, in four tabs (spec "Inspecting Memory").

Graph: the facts as a map. Facts: search, filter, add, edit, delete (additions and
edits go through ``FactService``, so dedup and embedding apply). Sessions: this
run's turns and the saved session summaries. Settings: the way to Settings > Data,
the memory model (``memory_model_section``), and an Advanced section with her state
(read-only) and a parser test that saves nothing. A status line names the embedding
model and the re-embedding progress.
Changes on this page take effect at once; Save has nothing to write here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.facts import (
    LOADING,
    READY,
    UNAVAILABLE,
    EmbeddingStatus,
    FactService,
)
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.plain import plain_label, plain_tip
from companion_desktop.ui.settings.memory.facts_tab import (
    MERGED,
    FactDialog,
    FactsTab,
    category_combo,
    model_label,
)
from companion_desktop.ui.settings.memory.graph import MemoryGraph
from companion_desktop.ui.settings.memory.model_section import ModelSection
from companion_desktop.ui.settings.memory.tabs import AdvancedTab, SessionsTab

__all__ = ["MERGED", "FactDialog", "FactsTab", "MemoryPage", "category_combo", "model_label",
           "status_text"]

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
        self.model_section = ModelSection(self.facts)
        self.advanced_tab.layout().insertWidget(1, self.model_section)
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
        self._seen_model: tuple[str | None, bool] | None = None
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
        self.status.setToolTip(plain_tip(state.detail or state.reason))
        self.model_section.refresh()
        seen = (state.model_name if state.state == READY else None, state.backfilling)
        if self._seen_model is not None and seen != self._seen_model:
            self.reload_graph()  # another model, or its re-embedding finished: new links
        self._seen_model = seen

    def reload_graph(self) -> None:
        """Redraw the graph now when it shows, else when its tab is next opened."""
        if self.tabs.currentIndex() != 0:
            self._graph_stale = True
            return
        try:
            data = self.facts.graph_facts()
        except StorageError:
            return
        if data.thresholds is not None:
            self.graph.set_graph(data.facts, data.vectors, data.thresholds.graph_edge,
                                 data.thresholds.graph_hint)
        else:
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
