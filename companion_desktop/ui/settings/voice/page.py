"""Settings > Voice: whether she speaks her replies, with which backend, voice and speed.

Backends: her natural voice (Kokoro and the voices the user brings, offline:
``llm.neural_voice``; where its packages are missing a line says why and espeak-ng speaks),
the offline espeak-ng program, or any OpenAI-compatible speech server
(``/v1/audio/speech``, cloud or on this computer). The server's API key goes to the
system keyring (under ``VOICE_KEY_ID``) and is never shown back. The voice list is read
off the GUI thread; "Hear her" speaks a short line with the form's current values;
"Add a voice file…" brings a Kokoro or Piper voice (``voice_files_row``).
"""

from __future__ import annotations

import httpx
from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
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

from companion_desktop.engine.speech import SpokenPart
from companion_desktop.llm import keys
from companion_desktop.llm.neural_voice.catalog import DEFAULT_VOICE
from companion_desktop.llm.tts import EspeakBackend, Voice, natural_voice_problem
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import (
    VOICE_KEY_ID,
    VoiceSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.background import Latest
from companion_desktop.ui.settings.held_url import HeldUrlNotice
from companion_desktop.ui.settings.key_field import KeyField
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form, status
from companion_desktop.ui.settings.voice.hearing_section import HearingSection, key_state
from companion_desktop.ui.switch import Switch
from companion_desktop.ui.voice import BoundVoice, VoiceOut

BACKENDS = {"neural": "Natural voice (offline)", "espeak": "Robot voice (espeak-ng, offline)",
            "openai": "Speech server (OpenAI-compatible)"}
TRY_LINE = "Hello! This is how I sound when I read my replies to you."
NO_ESPEAK = ("espeak-ng is not installed, so the offline voice cannot speak. Install the "
             "espeak-ng package, or choose a speech server.")
DEFAULT_PLACEHOLDER = "default voice (or type a voice id)"
#: The speed slider runs in hundredths: 50..200 is 0.5x..2.0x.
SPEED_MIN, SPEED_MAX = 50, 200


def list_voices(settings: VoiceSettings, api_key: str | None) -> list[Voice]:
    """The voices the chosen backend offers (call off the GUI thread; TtsError on failure)."""
    if settings.backend == "neural" and natural_voice_problem() is None:
        from companion_desktop.llm.neural_voice import list_voices as natural_voices
        from companion_desktop.llm.neural_voice.speaking import home

        return list(natural_voices(home()))
    if settings.backend in ("espeak", "neural"):  # neural: espeak-ng speaks meanwhile
        backend = EspeakBackend()
        if not backend.available():
            raise RuntimeError(NO_ESPEAK)
        return backend.voices()
    with httpx.Client(timeout=httpx.Timeout(10.0, connect=5.0)) as client:
        return BoundVoice.from_settings(settings, api_key, client).voices()


def voice_label(voice: Voice) -> str:
    """How the picker names a voice: "Gongitsune (Kokoro) · female · reads en, ja"."""
    kind = getattr(voice, "kind", None)
    if kind is None:
        return f"{voice.name} · {voice.id}"
    gender = getattr(voice, "gender", "")
    reads = "en, ja" if kind != "piper" else (voice.language or "?")
    return " · ".join(p for p in (voice.name, gender, f"reads {reads}") if p)


#: The voice key's state line (``saved``: a key is stored).
describe_key = key_state(VOICE_KEY_ID)


class VoicePage(QWidget):
    """Reads the saved VoiceSettings; ``apply()`` writes them (and a typed key) back."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        from companion_desktop.llm.neural_voice.speaking import configure

        configure(service.db.path.parent)  # her natural voice's files (the app's folder too)
        with service.db.read_session() as session:
            self.saved = load_settings(session, VoiceSettings)
        self.trial: VoiceOut | None = None
        self._trial_client: httpx.Client | None = None
        self._voices_loaded = False
        self._voice_lists = Latest(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Voice", objectName="pageTitle"))
        layout.addWidget(QLabel("She can say her replies out loud, and her lips move with "
                                "her words.", objectName="pageHint", wordWrap=True))
        layout.addSpacing(10)
        self.form = form = new_form()
        self.enabled = Switch("Speak her replies aloud")
        self.enabled.setObjectName("voiceSwitch")
        self.enabled.setChecked(self.saved.enabled)
        form.addRow("Voice output", self.enabled)
        self.backend = QComboBox(objectName="voiceBackend")
        for key, label in BACKENDS.items():
            self.backend.addItem(label, key)
        self.backend.setCurrentIndex(self.backend.findData(self.saved.backend))
        form.addRow("Speaks with", self.backend)
        self.fallback = QLabel(objectName="pageHint", wordWrap=True)  # natural voice missing
        form.addRow("", self.fallback)
        self._server_rows(form)
        form.addRow("Voice", self._voice_box())
        form.addRow("Speed", self._speed_box())
        self.try_button = QPushButton("▶  Hear her", objectName="secondaryButton")
        self.try_button.clicked.connect(self.try_voice)
        self.try_status = QLabel(objectName="statusLine", wordWrap=True)
        try_box = QVBoxLayout()
        try_box.addWidget(self.try_button, 0, Qt.AlignmentFlag.AlignLeft)
        try_box.addWidget(self.try_status)
        form.addRow("", try_box)
        name_labels(form)
        layout.addLayout(form)
        self.hearing = HearingSection(service)  # how she listens (ui.settings.hearing_section)
        layout.addWidget(self.hearing)
        layout.addStretch(1)
        self.try_status.hide()
        self.backend.currentIndexChanged.connect(self._backend_changed)
        self._backend_changed(load=False)

    def _server_rows(self, form) -> None:  # noqa: ANN001 - a QFormLayout
        self.base_url = QLineEdit(self.saved.base_url or "", objectName="voiceUrl")
        self.base_url.setPlaceholderText("https://api.openai.com/v1")
        url_box = QVBoxLayout()
        url_box.setSpacing(4)
        url_box.addWidget(self.base_url)
        url_box.addWidget(QLabel("The API root ending in /v1. Speech servers on this computer "
                                 "work too, e.g. http://127.0.0.1:8880/v1.",
                                 objectName="pageHint", wordWrap=True))
        self.model = QLineEdit(self.saved.model, objectName="voiceModel")
        self.model.setPlaceholderText("tts-1")
        self.key_field = KeyField(lambda: VOICE_KEY_ID, describe_key, "voiceKey",
                                  wrap_state=True)
        self.key, self.key_state = self.key_field.key, self.key_field.key_state
        self.forget_key = self.key_field.forget_key
        self.held_notice = HeldUrlNotice(self.service, "voice", self.base_url.text)
        self.held_notice.confirmed.connect(self._held_confirmed)
        self.held_notice.applies = lambda: self.backend_id == "openai"
        self.key_field.held = lambda: self.held_notice.held() is not None
        self.base_url.textChanged.connect(lambda _text: self.held_notice.refresh())
        url_box.insertWidget(0, self.held_notice)
        form.addRow("Server URL", url_box)
        form.addRow("Model", self.model)
        form.addRow("API key", self.key_field)
        self.server_rows = [url_box, self.model, self.key_field]
        self.key_field.refresh()

    def _voice_box(self) -> QVBoxLayout:
        from companion_desktop.ui.settings.voice.voice_files_row import VoiceFilesRow

        self.voice = QComboBox(objectName="voiceCombo")
        self.voice.setEditable(True)
        self.voice.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.voice.lineEdit().setPlaceholderText(DEFAULT_PLACEHOLDER)
        self.voice.setEditText(self.saved.voice or "")
        self.refresh_button = QPushButton("↻  Refresh", objectName="secondaryButton")
        self.refresh_button.clicked.connect(self.load_voices)
        line = QHBoxLayout()
        line.addWidget(self.voice, 1)
        line.addWidget(self.refresh_button)
        self.voice_status = QLabel(objectName="statusLine", wordWrap=True)
        self.voice_status.hide()
        self.voice_files = VoiceFilesRow(self.service, self)
        self.voice_files.added.connect(self._voice_added)
        box = QVBoxLayout()
        box.setSpacing(4)
        box.addLayout(line)
        box.addWidget(self.voice_status)
        box.addWidget(self.voice_files)
        return box

    def _voice_added(self, voice_id: str) -> None:
        """A voice file was brought in: choose it and list the voices again."""
        self.voice.setEditText(voice_id)
        self.load_voices()

    def _speed_box(self) -> QHBoxLayout:
        self.speed = QSlider(Qt.Orientation.Horizontal, objectName="voiceSpeed")
        self.speed.setRange(SPEED_MIN, SPEED_MAX)
        self.speed.setSingleStep(5)
        self.speed.setPageStep(25)
        self.speed.setValue(round(self.saved.rate * 100))
        self.speed_label = QLabel(objectName="windowLabel")
        self.speed_label.setMinimumWidth(60)
        self.speed.valueChanged.connect(lambda v: self.speed_label.setText(f"{v / 100:.2f}×"))
        self.speed_label.setText(f"{self.speed.value() / 100:.2f}×")
        line = QHBoxLayout()
        line.addWidget(self.speed, 1)
        line.addWidget(self.speed_label)
        return line

    # ---------------------------------------------------------------- values
    @property
    def backend_id(self) -> str:
        return str(self.backend.currentData())

    def voice_id(self) -> str | None:
        """The chosen voice's id: a listed voice's, else the typed text (None: default)."""
        text = self.voice.currentText().strip()
        index = self.voice.currentIndex()
        if index >= 0 and text == self.voice.itemText(index):
            return str(self.voice.itemData(index))
        return text or None

    def settings(self) -> VoiceSettings:
        """What the form describes now (validated; ValueError when out of range)."""
        return VoiceSettings(
            enabled=self.enabled.isChecked(), backend=self.backend_id, voice=self.voice_id(),
            base_url=self.base_url.text().strip() or None,
            model=self.model.text().strip() or "tts-1", rate=self.speed.value() / 100,
            unconfirmed_url=self.saved.unconfirmed_url)

    def _held_confirmed(self) -> None:
        self.saved = self.saved.model_copy(update={"unconfirmed_url": None})
        self.key_field.refresh()
        self.load_voices()

    def api_key(self) -> str | None:
        """The typed key, else the stored one."""
        return self.key_field.value()

    def _backend_changed(self, _index: int = 0, load: bool = True) -> None:
        server = self.backend_id == "openai"
        for row in self.server_rows:
            self.form.setRowVisible(row, server)
        problem = natural_voice_problem() if self.backend_id == "neural" else None
        self.fallback.setText(f"{problem} The robot voice (espeak-ng) speaks until then."
                              if problem else "")
        self.form.setRowVisible(self.fallback, bool(problem))
        self.voice_files.setVisible(self.backend_id == "neural" and not problem)
        self.held_notice.refresh()  # the row's widgets were all shown
        self.key_field.refresh()
        self.voice.lineEdit().setPlaceholderText(DEFAULT_PLACEHOLDER)
        if load:
            self.voice.clear()
            same = self.backend_id == self.saved.backend
            self.voice.setEditText((self.saved.voice or "") if same else "")
            self.load_voices()

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        if not self._voices_loaded:
            self.load_voices()

    # ---------------------------------------------------------- background
    def load_voices(self) -> None:
        """Fill the voice picker from the chosen backend, off the GUI thread."""
        self._voices_loaded = True
        self.refresh_button.setEnabled(False)
        status(self.voice_status, "Looking for voices…", "hint")
        settings, key = self.settings(), self.api_key()
        self._voice_lists.run(lambda: list_voices(settings, key),
                              lambda voices: self._voices_found(settings.backend, voices),
                              self._voices_failed)

    def _voices_found(self, backend: str, voices: list[Voice]) -> None:
        self.refresh_button.setEnabled(True)
        if backend != self.backend_id:
            return
        chosen = self.voice_id()
        self.voice.clear()
        for voice in voices:
            self.voice.addItem(voice_label(voice), voice.id)
        index = self.voice.findData(chosen)
        if index >= 0:
            self.voice.setCurrentIndex(index)
        else:
            self.voice.setEditText(chosen or "")
        if backend == "neural" and not chosen:  # say which voice "default" is
            default = next((v for v in voices if v.id == DEFAULT_VOICE), None)
            if default is not None:
                self.voice.lineEdit().setPlaceholderText(f"her default voice: {default.name}")
        status(self.voice_status, f"{len(voices)} voices to choose from.", "ok")

    def _voices_failed(self, error: Exception) -> None:
        self.refresh_button.setEnabled(True)
        status(self.voice_status, str(error), "error")

    def try_voice(self) -> None:
        """Say a short line with the form's current values (synthesis off the GUI thread)."""
        self._end_trial()
        settings, key = self.settings(), self.api_key()
        self._trial_client = client = httpx.Client(timeout=httpx.Timeout(60.0, connect=5.0))
        self.trial = VoiceOut(lambda: BoundVoice.from_settings(settings, key, client), self)
        self.trial.started.connect(lambda: status(self.try_status, "Speaking…", "hint"))
        self.trial.finished.connect(lambda: self._trial_done("✓  That is her voice.", "ok"))
        self.trial.failed.connect(lambda message: self._trial_done(f"✗  {message}", "error"))
        status(self.try_status, "Preparing her voice…", "hint")
        self.trial.say([SpokenPart(TRY_LINE)])

    def _trial_done(self, text: str, kind: str) -> None:
        status(self.try_status, text, kind)
        self._end_trial()

    def _end_trial(self) -> None:
        trial, self.trial = self.trial, None
        if trial is not None:
            trial.blockSignals(True)
            trial.stop()
            trial.deleteLater()
        if self._trial_client is not None:
            self._trial_client.close()
            self._trial_client = None

    # ----------------------------------------------------------------- save
    def check(self) -> None:
        """SettingsProblem when the page cannot be saved as filled in."""
        url = self.base_url.text().strip()
        if self.backend_id == "openai" and (url or self.enabled.isChecked()) \
                and not url.startswith(("http://", "https://")):
            raise SettingsProblem("Voice: enter the speech server's address, starting with "
                                  "http:// or https:// (e.g. https://api.openai.com/v1).")
        problem = self.key_field.problem() if self.backend_id == "openai" else None
        if problem:
            raise SettingsProblem(f"Voice: {problem}")
        self.hearing.check()

    def apply(self) -> None:
        """Store a typed key, then the settings. SettingsProblem on failure."""
        self.check()
        try:
            self.key_field.store()
        except keys.KeyStoreError as error:
            raise SettingsProblem(f"Voice: {error}") from None
        settings = self.settings()
        with self.service.db.session() as session:
            save_settings(session, settings)
        self.saved = settings
        self.hearing.apply()
