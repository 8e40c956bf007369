"""Settings > Memory > Settings > Memory model: the embedding model, chosen and explained.

A choice is saved at once and switches the model on a background thread; the facts are
then re-embedded with the new model (the status line counts them). The section says
which model is in use and why, e.g. that the multilingual model cannot run on this
computer and the English one serves instead.
"""

from __future__ import annotations

import threading
from datetime import datetime, timezone

from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout, QWidget

from companion_desktop.memory.e5 import E5_MODEL
from companion_desktop.memory.embeddings import FALLBACK_MODEL, MULTILINGUAL_MODEL
from companion_desktop.pipeline.fact_model import LOADING, READY, EmbeddingStatus
from companion_desktop.pipeline.facts import FactService
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.memory_settings import MemorySettings
from companion_desktop.storage.settings import save_settings
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.settings.llm_page import status
from companion_desktop.ui.shutdown import quit_requested

__all__ = ["CHOICES", "ModelSection", "model_title"]

#: (setting value, what the list shows)
CHOICES = (
    ("auto", "Automatic (multilingual when available)"),
    ("multilingual", "Multilingual: memories in any language"),
    ("english", "English only (all-MiniLM-L6-v2)"),
)
HINT = ("The model that finds memories by their meaning. The multilingual one matches a "
        "question in one language with a memory written in another (Japanese, Spanish, "
        "German and about 100 more). Changing it re-reads every memory in the background; "
        "she keeps remembering meanwhile.")
TITLES = {
    E5_MODEL: "multilingual-e5-small (multilingual)",
    MULTILINGUAL_MODEL: "paraphrase-multilingual-MiniLM-L12-v2 (multilingual)",
    FALLBACK_MODEL: "all-MiniLM-L6-v2 (English)",
}
#: Facts re-embedded between two looks at a quit.
BATCH = 8


def model_title(name: str | None) -> str:
    """A model's name as the page shows it."""
    if not name:
        return "none"
    return TITLES.get(name, name.rstrip("/").rsplit("/", 1)[-1])


def in_use_text(state: EmbeddingStatus) -> str:
    """"In use: ..." for a ready model, what happens meanwhile otherwise."""
    if state.state == READY:
        return f"In use: {model_title(state.model_name)}"
    if state.state == LOADING:
        return "Loading the memory model…"
    if state.detail:
        return f"No memory model could load ({state.detail}); she finds memories by words."
    return "No memory model loaded yet; she finds memories by words meanwhile."


class ModelSection(QWidget):
    """The model choice, what it means, the model in use and the reason for it."""

    def __init__(self, facts: FactService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.facts = facts
        self.switching: threading.Thread | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 4)
        layout.addWidget(QLabel("Memory model", objectName="sectionTitle"))
        layout.addWidget(QLabel(HINT, objectName="pageHint", wordWrap=True))
        self.combo = QComboBox(objectName="memoryModelCombo")
        for value, text in CHOICES:
            self.combo.addItem(text, value)
        try:
            current = facts.preference()
        except StorageError:
            current = "auto"
        self.combo.setCurrentIndex(max(0, self.combo.findData(current)))
        layout.addWidget(self.combo)
        self.in_use = plain_label(objectName="memoryModelInUse", wordWrap=True)
        self.reason = plain_label(objectName="memoryModelReason", wordWrap=True)
        self.reason.setStyleSheet("color: #6f5f7a;")
        self.message = plain_label(objectName="statusLine", wordWrap=True)
        self.message.hide()
        for label in (self.in_use, self.reason, self.message):
            layout.addWidget(label)
        self.combo.currentIndexChanged.connect(lambda _: self.choose(self.combo.currentData()))
        self.refresh()

    def refresh(self) -> None:
        state = self.facts.status()
        self.in_use.setText(in_use_text(state))
        self.reason.setText(state.reason if state.state == READY else "")
        self.reason.setVisible(bool(self.reason.text()))

    def choose(self, value: str) -> None:
        """Save the choice and switch to it in the background (the re-embedding follows)."""
        try:
            with self.facts.db.session() as session:
                save_settings(session, MemorySettings(model=value), datetime.now(timezone.utc))
        except StorageError as error:
            status(self.message, f"✗  The choice could not be saved: {error}", "error")
            return
        self.message.hide()
        self.switching = threading.Thread(target=self._switch, args=(value,),
                                          name="memory-model-switch", daemon=True)
        self.switching.start()
        self.refresh()

    def _switch(self, value: str) -> None:
        if quit_requested():
            return
        try:
            if self.facts.load_model(preference=value):
                self.facts.backfill_all(batch=BATCH, should_stop=quit_requested)
        except StorageError:
            pass  # the data folder went away (quit): nothing to re-embed into
