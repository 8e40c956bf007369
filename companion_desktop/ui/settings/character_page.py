"""Settings > Character: her name, persona prompt, the app mode and relationship tracking,
and her character card (``card_section``: import, export, portrait, lorebook)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.ui.settings.card_section import CardSection, host_render
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form
from companion_desktop.ui.switch import Switch

MODE_HINTS = {
    "dating_sim": "Eight stages from Stranger to Soulmate; all five stats move; events fire.",
    "companion": "A plain companion: mood and energy change, the relationship stays where it is.",
}


class CharacterPage(QWidget):
    """Reads her state; ``apply()`` saves what changed."""

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 parent: QWidget | None = None, host: object | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.clock = clock
        state = service.load(clock()).state
        self.saved_mode = state.app_mode
        self.saved_tracking = service.tracking_enabled()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Character", objectName="pageTitle"))
        layout.addWidget(QLabel("Who she is, and how your relationship works.",
                                objectName="pageHint", wordWrap=True))
        layout.addSpacing(10)
        form = new_form()
        self.name = QLineEdit(state.name, objectName="nameEdit")
        self.name.setMaxLength(60)
        form.addRow("Name", self.name)
        self.prompt = QPlainTextEdit(objectName="personaEdit")
        self.prompt.setPlainText(state.system_prompt)
        self.prompt.setMinimumHeight(150)
        form.addRow("Persona", self.prompt)
        self.mode_group = QButtonGroup(self)
        self.mode_buttons = {
            "dating_sim": QRadioButton("Dating Sim Mode"),
            "companion": QRadioButton("Companion Mode"),
        }
        modes = QHBoxLayout()
        modes.setSpacing(8)
        for button in self.mode_buttons.values():
            button.setObjectName("modeChoice")
            self.mode_group.addButton(button)
            modes.addWidget(button)
            button.toggled.connect(self._show_mode_hint)
        modes.addStretch(1)
        self.mode_hint = QLabel(objectName="pageHint", wordWrap=True)
        self.mode_buttons[state.app_mode].setChecked(True)
        mode_box = QVBoxLayout()
        mode_box.addLayout(modes)
        mode_box.addWidget(self.mode_hint)
        form.addRow("Mode", mode_box)
        self.tracking = Switch("Relationship tracking")
        self.tracking.setObjectName("trackingSwitch")
        self.tracking.setChecked(self.saved_tracking)
        tracking_box = QVBoxLayout()
        tracking_box.addWidget(self.tracking)
        tracking_box.addWidget(QLabel(
            "How well she knows you (familiarity) grows as you talk, in both modes.",
            objectName="pageHint", wordWrap=True))
        form.addRow("", tracking_box)
        self.model_section = None
        if host is not None:
            from companion_desktop.ui.settings.model_section import ModelSection

            self.model_section = ModelSection(service, host)
            form.addRow("Model", self.model_section)
        self.card = CardSection(service, clock, self,
                                render=host_render(host) if host is not None else None)
        self.card.imported.connect(self._card_imported)
        form.addRow("Character card", self.card)
        self.prompt.setToolTip("{{char}} is her name and {{user}} what she calls you.")
        name_labels(form)
        layout.addLayout(form)
        layout.addStretch(1)
        self._show_mode_hint()

    def _card_imported(self, _done: object) -> None:
        """She is the card's character now: show her name and persona as saved."""
        state = self.service.load(self.clock()).state
        self.name.setText(state.name)
        self.prompt.setPlainText(state.system_prompt)

    @property
    def mode(self) -> str:
        return next(m for m, b in self.mode_buttons.items() if b.isChecked())

    def _show_mode_hint(self) -> None:
        self.mode_hint.setText(MODE_HINTS[self.mode])

    def check(self) -> None:
        """SettingsProblem when the page cannot be saved as filled in."""
        if not self.name.text().strip():
            raise SettingsProblem("Her name cannot be empty.")
        if not self.prompt.toPlainText().strip():
            raise SettingsProblem("The persona prompt cannot be empty.")

    def apply(self) -> None:
        """Save name, persona, mode and tracking (only what changed)."""
        self.check()
        name = self.name.text().strip()
        prompt = self.prompt.toPlainText().strip()
        now = self.clock()
        with self.service.db.session() as session:
            state = repository.load_or_create_character(session, now)
            if (state.name, state.system_prompt) != (name, prompt):
                state.name, state.system_prompt = name, prompt
                repository.save_character(session, state)
        if self.mode != self.saved_mode:
            self.service.set_mode(self.mode, now)
            self.saved_mode = self.mode
        if self.tracking.isChecked() != self.saved_tracking:
            self.service.set_tracking(self.tracking.isChecked())
            self.saved_tracking = self.tracking.isChecked()
        self.card.apply()
