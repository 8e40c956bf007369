"""Settings > LLM Model: provider, server URL, API key, model and context window.

The key is written to the system keyring only when the user typed one, and is
never shown back: a saved key reads "•••• saved in the system keyring". Model
lists and the connection test run off the GUI thread (``ui.background``).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.engine.context_window import memory_budget
from companion_desktop.llm import keys
from companion_desktop.llm.base import ProviderConfig
from companion_desktop.llm.registry import SPECS
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import LlmSettings, load_settings, save_settings
from companion_desktop.ui.background import Latest
from companion_desktop.ui.settings.form import (  # noqa: F401 - the pages' helpers, long importable from here
    SettingsProblem,
    call_provider,
    name_labels,
    new_form,
    status,
)
from companion_desktop.ui.settings.held_url import HeldUrlNotice
from companion_desktop.ui.settings.key_field import SAVED_KEY, KeyField
from companion_desktop.ui.switch import Switch

#: Slider stops of the context window, in thousands of tokens (1k = 1024 tokens).
WINDOW_STOPS_K = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)


def window_stop(tokens: int) -> int:
    """The slider index nearest to ``tokens``."""
    k = tokens / 1024
    return min(range(len(WINDOW_STOPS_K)), key=lambda i: abs(WINDOW_STOPS_K[i] - k))


class LlmPage(QWidget):
    """Reads the saved LlmSettings; ``apply()`` writes them (and the key) back."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.local_servers = None  # where "Find a model" looks (None: the usual ports)
        self._model_lists, self._tests = Latest(self), Latest(self)
        with service.db.read_session() as session:
            self.saved = load_settings(session, LlmSettings)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("LLM Model", objectName="pageTitle"))
        layout.addWidget(QLabel(
            "Choose who she thinks with: a model on this computer or a cloud API.",
            objectName="pageHint", wordWrap=True))
        layout.addSpacing(10)
        self.held_notice = HeldUrlNotice(service, "llm", self._shown_saved_url)
        self.held_notice.confirmed.connect(self._held_confirmed)
        layout.addWidget(self.held_notice)
        form = new_form()
        self.provider = QComboBox(objectName="providerCombo")
        if self.saved.provider not in SPECS:
            self.provider.addItem("Choose a provider…", None)
        for spec in SPECS.values():
            where = ("on this computer" if spec.local else "cloud" if spec.needs_key
                     else "any server")
            self.provider.addItem(f"{spec.name}  ·  {where}", spec.id)
        form.addRow("Provider", self.provider)
        self.base_url = QLineEdit(objectName="baseUrl")
        form.addRow("Server URL", self.base_url)
        self.key_field = KeyField(lambda: self.provider_id, self._describe_key, "apiKey")
        self.key_field.held = lambda: self.held_notice.held() is not None
        self.key, self.key_state = self.key_field.key, self.key_field.key_state
        self.forget_key = self.key_field.forget_key
        form.addRow("API key", self.key_field)
        self.model = QComboBox(objectName="modelCombo")
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.lineEdit().setPlaceholderText("model name, e.g. llama3.2")
        self.model.currentTextChanged.connect(
            lambda text: self.mind.show_model(text) if self._builtin else None)
        self._builtin = False
        self.refresh_button = QPushButton("↻  Refresh", objectName="secondaryButton")
        self.refresh_button.clicked.connect(self.refresh_models)
        model_line = QHBoxLayout()
        model_line.addWidget(self.model, 1)
        model_line.addWidget(self.refresh_button)
        self.models_status = QLabel(objectName="statusLine", wordWrap=True)
        model_box = QVBoxLayout()
        model_box.setSpacing(4)
        model_box.addLayout(model_line)
        model_box.addWidget(self.models_status)
        form.addRow("Model", model_box)
        from companion_desktop.ui.settings.mind_section import MindSection

        self.mind = MindSection(service.db.path.parent / "cache", self.saved.mind_idle_minutes)
        form.addRow("Her own mind", self.mind)
        self.form = form
        form.addRow("Context window", self._context_box())
        self.test_button = QPushButton("Test connection", objectName="secondaryButton")
        self.test_button.clicked.connect(self.test_connection)
        self.test_result = QLabel(objectName="statusLine", wordWrap=True)
        self.test_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.find_button = QPushButton("Find a model on this computer…",
                                       objectName="secondaryButton")
        self.find_button.setToolTip("Look for Ollama, LM Studio, llama.cpp, vLLM, Jan, "
                                    "KoboldCpp, LocalAI and GPT4All again, as on the first run")
        self.find_button.clicked.connect(self.find_local)
        buttons = QHBoxLayout()
        buttons.addWidget(self.test_button)
        buttons.addWidget(self.find_button)
        buttons.addStretch(1)
        test_box = QVBoxLayout()
        test_box.addLayout(buttons)
        test_box.addWidget(self.test_result)
        form.addRow("", test_box)
        name_labels(form)
        layout.addLayout(form)
        layout.addStretch(1)
        for label in (self.models_status, self.test_result):
            label.hide()
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.base_url.textChanged.connect(lambda _text: self.held_notice.refresh())
        index = self.provider.findData(self.saved.provider)
        self.provider.setCurrentIndex(max(0, index))
        self._provider_changed()

    def _context_box(self) -> QVBoxLayout:
        box = QVBoxLayout()
        box.setSpacing(4)
        self.scaling = Switch("Scale memory to context window")
        self.scaling.setObjectName("scalingSwitch")
        self.scaling.setChecked(self.saved.context_scaling)
        self.scaling.toggled.connect(self._window_changed)
        box.addWidget(self.scaling)
        line = QHBoxLayout()
        self.window_slider = QSlider(Qt.Orientation.Horizontal, objectName="windowSlider")
        self.window_slider.setRange(0, len(WINDOW_STOPS_K) - 1)
        self.window_slider.setPageStep(2)
        self.window_slider.setValue(window_stop(self.saved.context_window))
        self.window_slider.valueChanged.connect(self._window_changed)
        self.window_label = QLabel(objectName="windowLabel")
        self.window_label.setMinimumWidth(110)
        line.addWidget(self.window_slider, 1)
        line.addWidget(self.window_label)
        box.addLayout(line)
        self.budget_hint = QLabel(objectName="pageHint", wordWrap=True)
        box.addWidget(self.budget_hint)
        self._window_changed()
        return box

    # ---------------------------------------------------------------- values
    @property
    def provider_id(self) -> str | None:
        """The chosen provider; None while the "Choose a provider…" entry is shown."""
        data = self.provider.currentData()
        return str(data) if data else None

    @property
    def context_window(self) -> int:
        """Tokens chosen on the slider (1024..131072)."""
        return WINDOW_STOPS_K[self.window_slider.value()] * 1024

    def config(self) -> ProviderConfig:
        """What the form describes now, with the typed key or else the stored one."""
        pid = self.provider_id or ""
        return ProviderConfig(
            provider_id=pid, base_url=self.base_url.text().strip(),
            model=self.model.currentText().strip(), api_key=self.key_field.value(),
            connect_timeout=5.0, stall_timeout=20.0,
        )

    def _shown_saved_url(self) -> str | None:
        """The address shown, while it is for the saved provider (a held one is its)."""
        same = self.provider_id is not None and self.provider_id == self.saved.provider
        return self.base_url.text() if same else None

    def _held_confirmed(self) -> None:
        self.saved = replace_settings(self.saved, unconfirmed_url=None)
        self.key_field.refresh()

    def _provider_changed(self) -> None:
        self.held_notice.refresh()
        chosen = self.provider_id is not None
        for widget in (self.base_url, self.key, self.model, self.refresh_button, self.test_button):
            widget.setEnabled(chosen)
        status(self.models_status, "", "hint")
        status(self.test_result, "", "hint")
        if not chosen:
            self._show_mind(False)
            self.base_url.clear()
            self.key_field.refresh()  # no provider: blank state, no link
            return
        spec = SPECS[self.provider_id]
        same = spec.id == self.saved.provider
        self.base_url.setText((self.saved.base_url if same else None) or spec.default_base_url)
        self.base_url.setPlaceholderText(spec.default_base_url or "http://127.0.0.1:8080/v1")
        self.model.clear()
        self.model.setEditText((self.saved.model if same else None) or "")
        self.key.clear()
        self.key_field.refresh()
        self._show_mind(spec.kind == "builtin")

    def _show_mind(self, builtin: bool) -> None:
        """Her own mind: no address or key; its installed models, what it is, its idle time."""
        self._builtin = builtin
        self.form.setRowVisible(self.mind, builtin)
        if builtin:  # no address: she runs here (saved as none, read as the preset's)
            self.base_url.clear()
            self.base_url.setPlaceholderText("none needed: she runs on this computer")
        self.base_url.setEnabled(not builtin)
        self.key.setEnabled(not builtin)
        self.window_slider.setEnabled(not builtin)
        if not builtin:
            self._window_changed()
            return
        from companion_desktop.llm.mind.models import installed_models

        current = self.model.currentText()
        ids = [m.id for m in installed_models()]
        self.model.addItems(ids)
        self.model.setEditText(current if current in ids else (ids[0] if ids else current))
        self.mind.show_model(self.model.currentText())
        self.budget_hint.setText("Her own mind runs with the context its model has; this "
                                 "slider is for the other providers.")

    def _describe_key(self, saved: bool) -> str:
        """The key state line (``saved``: a key is stored); asked only while a provider
        is chosen."""
        if keys.env_key() is not None:
            return f"Using the key from {keys.ENV_VAR}."
        if saved:
            return SAVED_KEY
        if SPECS[self.provider_id or ""].kind == "builtin":
            return "Not needed: her own mind runs on this computer."
        if SPECS[self.provider_id or ""].needs_key:
            return "Needed: paste your key; it is kept in the system keyring."
        return "Optional for this provider."

    def _window_changed(self) -> None:
        k = WINDOW_STOPS_K[self.window_slider.value()]
        self.window_label.setText(f"{k}k tokens")
        scaling = self.scaling.isChecked()
        budget = memory_budget(self.context_window, scaling)
        how = "" if scaling else " (scaling is off)"
        self.budget_hint.setText(
            f"She keeps the last {budget.turns} messages and {budget.facts} facts in mind{how}.")

    # ---------------------------------------------------------- background
    def refresh_models(self) -> None:
        """Ask the server for its models (off the GUI thread) and fill the picker."""
        self.refresh_button.setEnabled(False)
        status(self.models_status, "Asking the server for its models…", "hint")
        config = self.config()  # the form as it is now
        self._model_lists.run(lambda: call_provider(config, "list_models"),
                              self._models_found, self._models_failed)

    def _models_found(self, models: list[str]) -> None:
        self.refresh_button.setEnabled(True)
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(models)
        self.model.setEditText(current or (models[0] if models else ""))
        count = f"{len(models)} model{'s' * (len(models) != 1)}"
        found = f"Found {count}." if models else "The server lists no models."
        status(self.models_status, found, "ok")

    def _models_failed(self, error: Exception) -> None:
        self.refresh_button.setEnabled(True)
        status(self.models_status, str(error), "error")

    def test_connection(self) -> None:
        self.test_button.setEnabled(False)
        status(self.test_result, "Testing…", "hint")
        config = self.config()  # the form as it is now
        self._tests.run(lambda: call_provider(config, "test_connection"),
                        self._tested, self._test_failed)

    def _tested(self, line: str) -> None:
        self.test_button.setEnabled(True)
        status(self.test_result, f"✓  {line}", "ok")

    def _test_failed(self, error: Exception) -> None:
        self.test_button.setEnabled(True)
        status(self.test_result, f"✗  {error}", "error")

    # ------------------------------------------------------------ first run
    def find_local(self) -> None:
        """The first run's welcome again; what is picked there shows here at once."""
        # imported here: the welcome loads ui.settings, whose package loads this page
        from companion_desktop.ui.settings.welcome import WelcomeDialog

        self.welcome = WelcomeDialog(self.service, self.local_servers, self)
        self.welcome.chosen.connect(self._welcome_chosen)
        self.welcome.open()

    def _welcome_chosen(self, _provider_id: str, _model: str) -> None:
        with self.service.db.read_session() as session:
            self.saved = load_settings(session, LlmSettings)
        index = self.provider.findData(self.saved.provider)
        if index >= 0 and index != self.provider.currentIndex():
            self.provider.setCurrentIndex(index)  # fills the fields from self.saved
        else:
            self._provider_changed()

    # ----------------------------------------------------------------- save
    def settings(self) -> LlmSettings:
        return replace_settings(self.saved, provider=self.provider_id,
                                base_url=self.base_url.text().strip() or None,
                                model=self.model.currentText().strip() or None,
                                context_window=self.context_window,
                                context_scaling=self.scaling.isChecked(),
                                mind_idle_minutes=self.mind.idle_minutes)

    def check(self) -> None:
        """SettingsProblem when the page cannot be saved as filled in."""
        if self.provider_id is None:
            return
        spec = SPECS[self.provider_id]
        if not (self.base_url.text().strip() or spec.default_base_url):
            raise SettingsProblem(f"{spec.name} needs a server URL, e.g. http://127.0.0.1:8080/v1.")
        problem = self.key_field.problem()
        if problem:
            raise SettingsProblem(problem)

    def apply(self) -> None:
        """Store the key (when one was typed), then the settings. SettingsProblem on failure."""
        try:
            self.key_field.store()
        except keys.KeyStoreError as error:
            raise SettingsProblem(str(error)) from None
        settings = self.settings()
        with self.service.db.session() as session:
            save_settings(session, settings)
        self.saved = settings


def replace_settings(settings: LlmSettings, **changes: object) -> LlmSettings:
    """A validated copy of ``settings`` with ``changes``."""
    return LlmSettings.model_validate({**settings.model_dump(), **changes})

