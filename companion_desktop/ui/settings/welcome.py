"""First run: find a language model for her, or let the user pick a cloud one, or later.

The dialog looks for the usual local servers (Ollama, LM Studio, llama.cpp, vLLM, Jan,
KoboldCpp, LocalAI, GPT4All: ``llm.local_servers``), all at once, off the GUI thread,
with a short timeout, and lists the models they offer; picking one saves it as the
provider (the server's preset, or "openai-compatible" with its address). A cloud
provider can be chosen with a key instead. Where her own mind (the built-in offline
model, ``llm.mind``) is installed, a card offers it in one click: first while no local
server answered, after the servers' models once one did. "Later" closes it; the chat
window then says what to set up, and Settings > LLM Model > "Find a model on this computer" opens it
again. The servers are passed in (``LocalServer``), so tests point them at their own ports.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm import keys
from companion_desktop.llm.base import ProviderConfig
from companion_desktop.llm.local_servers import Found, LocalServer, default_servers, probe_all
from companion_desktop.llm.registry import SPECS
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import LlmSettings, load_settings, save_settings
from companion_desktop.ui.background import Latest, run_in_background
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.settings.form import call_provider, status
from companion_desktop.ui.style import STYLE_SHEET

#: Where "Later" can be undone, as the footer says.
WAY_BACK = "Settings > LLM Model > Find a model on this computer"


def builtin_offer():  # noqa: ANN201 - a MindModel, imported lazily
    """The model her own mind would run (the preferred installed one), or None where the
    runtime or every model is missing."""
    from companion_desktop.llm.mind.models import installed_models, runtime_problem

    found = installed_models()
    return found[0] if found and runtime_problem() is None else None


def gigabytes(size: int) -> str:
    """A model's size as the welcome says it, with the runtime's share: "1.2 GB"."""
    total = size + 60_000_000  # the runtime and its buffers
    return f"{total / 1e9:.1f} GB" if total >= 1e9 else f"{round(total / 1e6, -1):.0f} MB"


def her_name(service: CompanionService) -> str | None:
    """Her saved name (None before the first save or when the database cannot say)."""
    try:
        with service.db.read_session() as session:
            state = repository.load_character(session)
    except StorageError:
        return None
    return state.name if state else None


class WelcomeDialog(QDialog):
    """``chosen(provider_id, model)`` fires after a choice was saved; Later just closes."""

    chosen = Signal(str, str)

    def __init__(self, service: CompanionService, servers: tuple[LocalServer, ...] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.servers = default_servers() if servers is None else servers
        self._cloud_lists = Latest(self)
        self.setObjectName("welcomeDialog")
        self.setWindowTitle("Welcome")
        self.setStyleSheet(STYLE_SHEET)
        self.resize(600, 620)
        name = her_name(service)
        root = QVBoxLayout(self)
        root.setContentsMargins(28, 24, 28, 20)
        root.setSpacing(10)
        title = f"Hello! Let's get {name or 'her'} talking."
        root.addWidget(QLabel(title, objectName="welcomeTitle"))
        root.addWidget(QLabel(
            "She thinks with a language model: one running on this computer keeps "
            "everything here; a cloud one needs an API key.", objectName="pageHint", wordWrap=True))
        self.mind_card = self._mind_card()
        self.local_card = self._local_card()
        if self.mind_card is not None:
            root.addWidget(self.mind_card)
            self.resize(600, 720)
        root.addWidget(self.local_card, 1)
        root.addWidget(self._cloud_card())
        self.cards = root
        footer = QHBoxLayout()
        footer.addWidget(QLabel(f"Not now? {WAY_BACK} brings this back.",
                                objectName="pageHint", wordWrap=True), 1)
        self.later_button = QPushButton("Later", objectName="secondaryButton")
        self.later_button.clicked.connect(self.reject)
        footer.addWidget(self.later_button)
        root.addLayout(footer)
        self.look_again()

    # -------------------------------------------------------------- her own mind
    def _mind_card(self) -> QFrame | None:
        """The built-in mind's card, or None where its runtime or model is not installed."""
        model = builtin_offer()
        if model is None:
            return None
        card = QFrame(objectName="welcomeCard")
        box = QVBoxLayout(card)
        box.addWidget(QLabel("Her own mind", objectName="sectionTitle"))
        box.addWidget(QLabel(
            f"A small model that comes with her: private, offline, slower than a real model; "
            f"about {gigabytes(model.size)}. It wakes with her first reply.",
            objectName="pageHint", wordWrap=True))
        line = QHBoxLayout()
        line.addWidget(QLabel("Ollama or a cloud model will make her smarter; you can switch "
                              "any time in Settings > LLM Model.", objectName="pageHint",
                              wordWrap=True), 1)
        self.mind_button = QPushButton("Use her own mind", objectName="primaryButton")
        self.mind_button.clicked.connect(lambda: self.use_mind(model.id))
        line.addWidget(self.mind_button)
        box.addLayout(line)
        return card

    def use_mind(self, model_id: str) -> None:
        from companion_desktop.llm.registry import BUILTIN_ID

        self._save(BUILTIN_ID, SPECS[BUILTIN_ID].default_base_url, model_id)

    def _mind_after_servers(self, servers_answered: bool) -> None:
        """Her own mind comes first while no server has a model, after them otherwise."""
        if self.mind_card is None:
            return
        self.cards.removeWidget(self.mind_card)
        self.cards.insertWidget(3 if servers_answered else 2, self.mind_card)  # after the hints
        self.mind_button.setObjectName("secondaryButton" if servers_answered
                                       else "primaryButton")
        self.mind_button.style().unpolish(self.mind_button)
        self.mind_button.style().polish(self.mind_button)
        self.use_button.setDefault(servers_answered)

    # -------------------------------------------------------------- local
    def _local_card(self) -> QFrame:
        card = QFrame(objectName="welcomeCard")
        box = QVBoxLayout(card)
        box.addWidget(QLabel("On this computer", objectName="sectionTitle"))
        self.local_status = plain_label(objectName="statusLine", wordWrap=True)  # server errors
        box.addWidget(self.local_status)
        self.found = QListWidget(objectName="foundModels")
        self.found.itemSelectionChanged.connect(self._selection_changed)
        self.found.itemDoubleClicked.connect(lambda _item: self.use_local())
        box.addWidget(self.found, 1)
        line = QHBoxLayout()
        self.again_button = QPushButton("↻  Look again", objectName="secondaryButton")
        self.again_button.clicked.connect(self.look_again)
        self.use_button = QPushButton("Use this model", objectName="primaryButton")
        self.use_button.clicked.connect(self.use_local)
        line.addWidget(self.again_button)
        line.addStretch(1)
        line.addWidget(self.use_button)
        box.addLayout(line)
        return card

    def look_again(self) -> None:
        """Ask every local server again, all at once, off the GUI thread."""
        self.found.clear()
        self.use_button.setEnabled(False)
        status(self.local_status, "Looking for model servers on this computer…", "hint")
        self.again_button.setEnabled(False)
        run_in_background(self, lambda servers=self.servers: probe_all(servers),
                          self._probed, lambda _error: self._probed([]))

    def _probed(self, answered: list[Found]) -> None:
        for server in answered:
            for model in server.models:
                item = QListWidgetItem(f"{model}    ·  {server.name}")
                item.setData(Qt.ItemDataRole.UserRole, (server, model))
                self.found.addItem(item)
        self.again_button.setEnabled(True)
        empty = [s.name for s in answered if not s.models]
        idle = (f" {' and '.join(empty)} answered without a model: load one there and "
                "look again." if empty else "")
        count = self.found.count()
        self._mind_after_servers(count > 0)
        if count:
            status(self.local_status,
                   f"Found {count} model{'s' * (count != 1)}. Pick one.{idle}", "ok")
            if self.found.currentRow() < 0:
                self.found.setCurrentRow(0)
        elif answered:
            status(self.local_status, idle.strip(), "hint")
        else:
            where = ", ".join(s.where for s in self.servers)
            mind = " her own mind above or" if self.mind_card is not None else ""
            status(self.local_status,
                   f"No local model server answered ({where}). Start one and look again, "
                   f"or use{mind} a cloud provider below.", "hint")

    def _selection_changed(self) -> None:
        self.use_button.setEnabled(self.found.currentItem() is not None)

    def use_local(self) -> None:
        item = self.found.currentItem()
        if item is None:
            return
        server, model = item.data(Qt.ItemDataRole.UserRole)
        self._save(server.provider_id, server.base_url, model)

    # -------------------------------------------------------------- cloud
    def _cloud_card(self) -> QFrame:
        card = QFrame(objectName="welcomeCard")
        box = QVBoxLayout(card)
        box.addWidget(QLabel("In the cloud", objectName="sectionTitle"))
        line = QHBoxLayout()
        self.cloud = QComboBox(objectName="cloudCombo")
        for spec in SPECS.values():
            if spec.needs_key and not spec.local:
                self.cloud.addItem(spec.name, spec.id)
        self.key = QLineEdit(objectName="apiKey", placeholderText="API key")
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        line.addWidget(self.cloud)
        line.addWidget(self.key, 1)
        box.addLayout(line)
        line = QHBoxLayout()
        self.cloud_model = QComboBox(objectName="cloudModel")
        self.cloud_model.setEditable(True)
        self.cloud_model.lineEdit().setPlaceholderText("model name")
        self.list_button = QPushButton("List models", objectName="secondaryButton")
        self.list_button.clicked.connect(self.list_cloud_models)
        self.cloud_button = QPushButton("Use this provider", objectName="primaryButton")
        self.cloud_button.clicked.connect(self.use_cloud)
        line.addWidget(self.cloud_model, 1)
        line.addWidget(self.list_button)
        line.addWidget(self.cloud_button)
        box.addLayout(line)
        self.cloud_status = plain_label(objectName="statusLine", wordWrap=True)
        self.cloud_status.hide()
        box.addWidget(self.cloud_status)
        return card

    def _cloud_config(self) -> ProviderConfig:
        pid = str(self.cloud.currentData())
        key = self.key.text().strip() or keys.get_key(pid)
        model = self.cloud_model.currentText().strip()
        return ProviderConfig(pid, SPECS[pid].default_base_url, model, key, connect_timeout=5.0)

    def list_cloud_models(self) -> None:
        self.list_button.setEnabled(False)
        status(self.cloud_status, "Asking for the models…", "hint")
        config = self._cloud_config()  # the form as it is now
        self._cloud_lists.run(lambda: call_provider(config, "list_models"),
                              self._cloud_models, self._cloud_failed)

    def _cloud_models(self, models: list[str]) -> None:
        self.list_button.setEnabled(True)
        current = self.cloud_model.currentText()
        self.cloud_model.clear()
        self.cloud_model.addItems(models)
        self.cloud_model.setEditText(current or (models[0] if models else ""))
        status(self.cloud_status, f"{len(models)} models available.", "ok")

    def _cloud_failed(self, error: Exception) -> None:
        self.list_button.setEnabled(True)
        status(self.cloud_status, str(error), "error")

    def use_cloud(self) -> None:
        pid = str(self.cloud.currentData())
        model = self.cloud_model.currentText().strip()
        key = self.key.text().strip()
        if not key and keys.get_key(pid) is None:
            status(self.cloud_status, f"{SPECS[pid].name} needs an API key.", "error")
            return
        if not model:
            status(self.cloud_status, "Enter a model name (or List models).", "error")
            return
        if key:
            try:
                keys.set_key(pid, key)
            except keys.KeyStoreError as error:
                status(self.cloud_status, str(error), "error")
                return
        self._save(pid, SPECS[pid].default_base_url, model)

    # --------------------------------------------------------------- save
    def _save(self, provider_id: str, base_url: str, model: str) -> None:
        try:
            with self.service.db.session() as session:
                current = load_settings(session, LlmSettings)
                settings = LlmSettings.model_validate(
                    {**current.model_dump(), "provider": provider_id, "base_url": base_url,
                     "model": model})
                save_settings(session, settings)
        except StorageError as error:
            status(self.local_status, str(error), "error")
            return
        self.chosen.emit(provider_id, model)
        self.accept()
