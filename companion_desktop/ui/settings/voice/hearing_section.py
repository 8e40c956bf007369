"""Settings > Voice > Hearing: whether and how she listens.

Mode (off, push-to-talk, hands-free), the microphone, a live level meter, the
sensitivity, the silence that ends an utterance, the longest utterance, the recogniser
(local Whisper, or an OpenAI-compatible ``/audio/transcriptions`` server with its URL,
model and key; the key goes to the system keyring under ``HEARING_KEY_ID``), the
language and the push-to-talk key. The meter opens the microphone only while this
section is on screen; with no microphone (a machine without one, Xvfb) the section
says so and everything else still saves.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QProgressBar,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm import keys
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import (
    HEARING_KEY_ID,
    HearingSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.settings.held_url import HeldUrlNotice
from companion_desktop.ui.settings.key_field import SAVED_KEY, KeyField
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form, status
from companion_desktop.ui.voice import key_of

MODES = {"off": "Off: she does not listen",
         "push_to_talk": "Push-to-talk (hold the mic button or key)",
         "hands_free": "Hands-free (she hears when you speak)"}
RECOGNISERS = {"local": "On this computer (Whisper, offline)",
               "server": "Speech-to-text server (OpenAI-compatible)"}
LANGUAGES = {"": "Detect automatically", "en": "English", "de": "German", "fr": "French",
             "es": "Spanish", "it": "Italian", "pt": "Portuguese", "nl": "Dutch",
             "ja": "Japanese", "zh": "Chinese", "ko": "Korean", "ru": "Russian"}
DEFAULT_MIC = "System default microphone"
#: What each option does, under its field.
HINTS = {
    "sensitivity": "Higher hears softer speech; lower ignores more background noise.",
    "silence": "How long you pause before what you said is sent (0.7 s suits most people).",
    "max_length": "She stops listening to one long sentence after this and sends it.",
    "language": "Detect automatically suits most people; choose yours if a short phrase "
                "comes out in another language.",
    "ptt_key": "Hold it while her window or the chat has the focus. For a key that works "
               "in every program, see Display > Global hotkeys.",
}


def key_state(key_id: str) -> Callable[[bool], str]:
    """The state line of a server's optional key kept under ``key_id`` (``saved``: stored)."""
    def describe(saved: bool) -> str:
        if keys.env_key(key_id) is not None:
            return f"Using the key from {keys.env_var(key_id)}."
        return SAVED_KEY if saved else ("Only if the server needs one; it is kept in the "
                                        "system keyring.")

    return describe


class HearingSection(QWidget):
    """Reads the saved HearingSettings; ``check()`` then ``apply()`` write them back."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            self.saved = load_settings(session, HearingSettings)
        self.meter_source = None
        self.hints: dict[str, QLabel] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 18, 0, 0)
        layout.addWidget(QLabel("Hearing", objectName="pageTitle"))
        layout.addWidget(QLabel("Talk to her instead of typing. What you say is recognised "
                                "and sent like a typed message; speaking while she talks "
                                "interrupts her.", objectName="pageHint", wordWrap=True))
        layout.addSpacing(6)
        self.form = form = new_form()
        self.mode = self._combo("hearingMode", MODES, self.saved.mode)
        form.addRow("Listening", self.mode)
        form.addRow("Microphone", self._mic_box())
        self.sensitivity = QSlider(Qt.Orientation.Horizontal, objectName="hearingSensitivity")
        self.sensitivity.setRange(0, 100)
        self.sensitivity.setValue(round(self.saved.sensitivity * 100))
        form.addRow("Sensitivity", self._hinted(self.sensitivity, "sensitivity"))
        self.silence = self._seconds("hearingSilence", 0.2, 3.0, 0.1, self.saved.silence_s)
        form.addRow("Pause that ends", self._hinted(self.silence, "silence"))
        self.max_length = self._seconds("hearingMax", 2.0, 120.0, 1.0, self.saved.max_s)
        form.addRow("Longest utterance", self._hinted(self.max_length, "max_length"))
        self.backend = self._combo("hearingBackend", RECOGNISERS, self.saved.backend)
        form.addRow("Recognised by", self.backend)
        self._server_rows(form)
        self.language = self._combo("hearingLanguage", LANGUAGES, self.saved.language)
        self.language.setEditable(True)
        self.language.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        if self.language.currentIndex() < 0:
            self.language.setEditText(self.saved.language)
        form.addRow("Language", self._hinted(self.language, "language"))
        self.ptt_key = QLineEdit(self.saved.ptt_key, objectName="hearingKey")
        self.ptt_key.setPlaceholderText("F9")
        form.addRow("Push-to-talk key", self._hinted(self.ptt_key, "ptt_key"))
        name_labels(form)
        layout.addLayout(form)
        self.backend.currentIndexChanged.connect(self._backend_changed)
        self._backend_changed()
        self.fill_microphones()

    # ---------------------------------------------------------------- build
    @staticmethod
    def _combo(name: str, items: dict[str, str], current: str) -> QComboBox:
        combo = QComboBox(objectName=name)
        for key, label in items.items():
            combo.addItem(label, key)
        combo.setCurrentIndex(combo.findData(current))
        return combo

    def _hinted(self, field: QWidget, name: str) -> QVBoxLayout:
        """``field`` with the line that explains it (kept in ``self.hints``) under it."""
        hint = QLabel(HINTS[name], objectName="pageHint", wordWrap=True)
        self.hints[name] = hint
        box = QVBoxLayout()
        box.setSpacing(4)
        box.addWidget(field)
        box.addWidget(hint)
        return box

    @staticmethod
    def _seconds(name: str, low: float, high: float, step: float, value: float) -> QDoubleSpinBox:
        box = QDoubleSpinBox(objectName=name, suffix=" s", decimals=1)
        box.setRange(low, high)
        box.setSingleStep(step)
        box.setValue(value)
        return box

    def _mic_box(self) -> QVBoxLayout:
        self.device = QComboBox(objectName="hearingDevice")
        self.meter = QProgressBar(objectName="hearingLevel", textVisible=False)
        self.meter.setRange(0, 100)
        self.meter.setFixedHeight(8)
        self.mic_status = QLabel(objectName="statusLine", wordWrap=True)
        box = QVBoxLayout()
        box.setSpacing(4)
        box.addWidget(self.device)
        box.addWidget(self.meter)
        box.addWidget(self.mic_status)
        self.device.currentIndexChanged.connect(self._device_changed)
        return box

    def _server_rows(self, form) -> None:  # noqa: ANN001 - a QFormLayout
        self.base_url = QLineEdit(self.saved.base_url or "", objectName="hearingUrl")
        self.base_url.setPlaceholderText("http://127.0.0.1:8000/v1")
        self.model = QLineEdit(self.saved.model, objectName="hearingModel")
        self.model.setPlaceholderText("whisper-1")
        self.key_field = KeyField(lambda: HEARING_KEY_ID, key_state(HEARING_KEY_ID),
                                  "hearingKeyField", wrap_state=True)
        self.held_notice = HeldUrlNotice(self.service, "hearing", self.base_url.text)
        self.held_notice.confirmed.connect(self._held_confirmed)
        self.held_notice.applies = lambda: self.backend.currentData() == "server"
        self.key_field.held = lambda: self.held_notice.held() is not None
        self.base_url.textChanged.connect(lambda _text: self.held_notice.refresh())
        url_box = QVBoxLayout()
        url_box.setSpacing(4)
        url_box.addWidget(self.held_notice)
        url_box.addWidget(self.base_url)
        form.addRow("Server URL", url_box)
        form.addRow("Model", self.model)
        form.addRow("API key", self.key_field)
        self.server_rows = [url_box, self.model, self.key_field]
        self.key_field.refresh()

    def _held_confirmed(self) -> None:
        self.saved = self.saved.model_copy(update={"unconfirmed_url": None})
        self.key_field.refresh()

    def _backend_changed(self, _index: int = 0) -> None:
        server = self.backend.currentData() == "server"
        for row in self.server_rows:
            self.form.setRowVisible(row, server)
        self.held_notice.refresh()  # the row's widgets were all shown

    # ---------------------------------------------------------------- microphone
    def fill_microphones(self) -> None:
        """List the inputs; with none, say so (the rest of the section still works)."""
        from companion_desktop.ui.voice import NO_MICROPHONE, device_key, microphones

        self.device.blockSignals(True)
        self.device.clear()
        inputs = microphones()
        if inputs:
            self.device.addItem(DEFAULT_MIC, None)
            for device in inputs:
                self.device.addItem(device.description(), device_key(device))
            index = self.device.findData(self.saved.device_id)
            self.device.setCurrentIndex(max(0, index))
            status(self.mic_status, "" if index >= 0 or not self.saved.device_id else
                   "The saved microphone is not connected; the default is used.", "hint")
        else:
            self.device.addItem("No microphone found", self.saved.device_id)
            status(self.mic_status, NO_MICROPHONE, "error")
        self.device.setEnabled(bool(inputs))
        self.meter.setVisible(bool(inputs))
        self.device.blockSignals(False)

    def _device_changed(self, _index: int = 0) -> None:
        if self.meter_source is not None:
            self.stop_meter()
            self.start_meter()

    def start_meter(self) -> None:
        """Open the chosen microphone for the level meter (only while on screen)."""
        from companion_desktop.ui.voice import MicSource, microphones

        if self.meter_source is not None or not microphones():
            return
        self.meter_source = MicSource(self.device.currentData(), self)
        self.meter_source.chunk.connect(self._level)
        self.meter_source.failed.connect(lambda message: status(self.mic_status, message, "error"))
        if not self.meter_source.start():
            self.stop_meter()

    def stop_meter(self) -> None:
        source, self.meter_source = self.meter_source, None
        if source is not None:
            source.stop()
            source.deleteLater()
        self.meter.setValue(0)

    def _level(self, samples) -> None:  # noqa: ANN001 - float32 array
        rms = float((samples.astype("float64") ** 2).mean() ** 0.5) if samples.size else 0.0
        self.meter.setValue(max(0, min(100, round(300 * rms))))

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
        super().showEvent(event)
        self.start_meter()

    def hideEvent(self, event: QHideEvent) -> None:  # noqa: N802
        self.stop_meter()
        super().hideEvent(event)

    # ---------------------------------------------------------------- values
    def language_code(self) -> str:
        text = self.language.currentText().strip()
        index = self.language.currentIndex()
        if index >= 0 and text == self.language.itemText(index):
            return str(self.language.itemData(index))
        return text.lower()

    def settings(self) -> HearingSettings:
        """What the section describes (ValueError / ValidationError when out of range)."""
        return HearingSettings(
            mode=self.mode.currentData(), device_id=self.device.currentData(),
            sensitivity=self.sensitivity.value() / 100, silence_s=round(self.silence.value(), 1),
            max_s=round(self.max_length.value(), 1), backend=self.backend.currentData(),
            base_url=self.base_url.text().strip() or None,
            model=self.model.text().strip() or "whisper-1", language=self.language_code(),
            ptt_key=self.ptt_key.text().strip() or "F9",
            unconfirmed_url=self.saved.unconfirmed_url)

    def check(self) -> None:
        """SettingsProblem when the section cannot be saved as filled in."""
        code = self.language_code()
        if code and not (2 <= len(code) <= 3 and code.isalpha() and code.isascii()):
            raise SettingsProblem(f"Hearing: “{code}” is not a language code (two letters "
                                  "like en, or Detect automatically).")
        if key_of(self.ptt_key.text().strip() or "F9") is None:
            raise SettingsProblem("Hearing: the push-to-talk key should be a key name like F9.")
        if self.backend.currentData() == "server":
            url = self.base_url.text().strip()
            if not url.startswith(("http://", "https://")):
                raise SettingsProblem("Hearing: enter the speech-to-text server's address, "
                                      "starting with http:// or https://.")
            problem = self.key_field.problem()
            if problem:
                raise SettingsProblem(f"Hearing: {problem}")

    def apply(self) -> None:
        """Store a typed key, then the settings (call ``check`` first)."""
        self.check()
        settings = self.settings()
        if settings.backend == "server":
            try:
                self.key_field.store()
            except keys.KeyStoreError as error:
                raise SettingsProblem(f"Hearing: {error}") from None
        with self.service.db.session() as session:
            save_settings(session, settings)
        self.saved = settings
