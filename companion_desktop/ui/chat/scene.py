"""The scene window: an event plays as intro, her dialogue, choices, her response, outro.

Picking a choice records the event (its changes, markers such as
``confession_accepted``, and the completion) through ``CompanionService``; closing
without choosing records it as seen without a choice. While it is open her face
shows the scene's expression override (the emote layer).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from companion_desktop.engine.mood_expression import MOOD_EXPRESSION_TABLE, pick_expression
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.style import STYLE_SHEET

SCENE_STYLE = """
#sceneNarration { color: #7a6d85; font-style: italic; font-size: 13px; }
#sceneDialogue { color: #3a3340; font-size: 15px; background: #ffffff; border: 1px solid #eadff0;
  border-radius: 14px; padding: 12px; }
#sceneChoice { text-align: left; padding: 10px 14px; border-radius: 12px; border: 1px solid #d9c4e6;
  background: #faf5fd; color: #5b3a6e; font-size: 13px; }
#sceneChoice:hover { background: #f1e4fa; }
"""


class SceneDialog(QDialog):
    """Plays ``event``; ``finished_with`` carries the new state after it is recorded."""

    finished_with = Signal(object)

    def __init__(self, event, service: CompanionService, clock: Callable[[], datetime],  # noqa: ANN001
                 host=None, parent: QWidget | None = None) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.moment, self.service, self.clock, self.host = event, service, clock, host
        self.recorded = False
        self.setWindowTitle(event.name)
        self.setStyleSheet(STYLE_SHEET + SCENE_STYLE)
        self.resize(520, 460)
        scene = event.scene
        layout = QVBoxLayout(self)
        layout.setSpacing(12)
        self.intro = self._label(scene.intro if scene else "", "sceneNarration")
        self.dialogue = self._label(scene.dialogue if scene else event.name, "sceneDialogue")
        layout.addWidget(self.intro)
        layout.addWidget(self.dialogue)
        self.choices: list[QPushButton] = []
        for index, choice in enumerate(scene.choices if scene else []):
            button = QPushButton(choice.text, objectName="sceneChoice")
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.clicked.connect(lambda _c=False, i=index: self.choose(i))
            layout.addWidget(button)
            self.choices.append(button)
        self.response = self._label("", "sceneDialogue")
        self.outro = self._label("", "sceneNarration")
        self.response.hide()
        self.outro.hide()
        layout.addWidget(self.response)
        layout.addWidget(self.outro)
        layout.addStretch(1)
        self.close_button = QPushButton("Close", objectName="secondaryButton")
        self.close_button.clicked.connect(self.accept)
        layout.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignRight)
        self._face(scene.expression_override if scene else None)

    @staticmethod
    def _label(text: str, name: str) -> QLabel:
        label = plain_label(text or "", objectName=name)  # model-written: plain text
        label.setWordWrap(True)
        label.setVisible(bool(text))
        return label

    def _face(self, name: str | None) -> None:
        runtime = getattr(self.host, "runtime", None)
        if runtime is None:
            return
        if not name:
            runtime.set_emote(None)
            return
        available = getattr(runtime, "available", set())
        candidates = MOOD_EXPRESSION_TABLE.get(name, ((name,), 1.0))[0]
        expression = pick_expression((name, *candidates), available)
        runtime.set_emote({expression: 0.8} if expression else None)

    def choose(self, index: int) -> None:
        if self.recorded:
            return
        choice = self.moment.scene.choices[index]
        for button in self.choices:
            button.setEnabled(False)
        self.choices[index].setProperty("chosen", True)
        self.response.setText(choice.response)
        self.response.show()
        if self.moment.scene.outro:
            self.outro.setText(self.moment.scene.outro)
            self.outro.show()
        self._record(index)

    def _record(self, index: int | None) -> None:
        try:
            state = self.service.complete_event(self.moment, index, self.clock())
        except StorageError as error:
            self.outro.setText(f"This moment could not be saved: {error}")
            self.outro.show()
            return
        self.recorded = True
        self.finished_with.emit(state)

    def done(self, result: int) -> None:  # noqa: D401 - Qt override
        if not self.recorded:
            self._record(None)  # seen, no choice made
        self._face(None)
        super().done(result)
