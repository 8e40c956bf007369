"""The side panel with her name, mode, stage, mood, energy and (Dating Sim) stats."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFormLayout, QFrame, QProgressBar, QVBoxLayout, QWidget

from companion_desktop.engine.character import RELATIONSHIP_STATS, STAT_RANGES, CharacterState
from companion_desktop.pipeline.companion import MODE_NAMES, STAGE_NAMES
from companion_desktop.ui.plain import plain_label

MOOD_EMOJI = {
    "happy": "😊", "sad": "😢", "excited": "🤩", "anxious": "😟", "content": "😌",
    "frustrated": "😤", "curious": "🤔", "affectionate": "🥰", "playful": "😜",
    "melancholy": "🥀", "flustered": "😳", "neutral": "🙂",
}
STAT_COLOURS = {
    "energy": "#f2b705", "affection": "#e8578d", "trust": "#3d8bfd",
    "intimacy": "#a66cff", "comfort": "#2bb673", "respect": "#ff8c42",
}


class StatePanel(QFrame):
    """Shows one ``CharacterState``; call ``show_state`` whenever it changes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("statePanel")
        self.setMinimumWidth(280)
        layout = QVBoxLayout(self)
        self.name = plain_label(objectName="companionName")  # her name, the mood's cause:
        self.mode = plain_label(objectName="companionMode")  # model or file text, shown plain
        self.stage = plain_label(objectName="stageBadge")
        self.mood = plain_label(objectName="moodLine", wordWrap=True)
        self.days = plain_label(objectName="daysLine", wordWrap=True)
        for widget in (self.name, self.mode, self.stage, self.mood):
            layout.addWidget(widget)
        self.form = QFormLayout()
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.bars: dict[str, QProgressBar] = {}
        for stat in ("energy", *RELATIONSHIP_STATS):
            bar = QProgressBar(objectName=f"{stat}Bar")
            bar.setRange(*STAT_RANGES[stat])
            bar.setFormat(f"%v / {STAT_RANGES[stat][1]}")
            bar.setStyleSheet(
                f"QProgressBar::chunk {{ background: {STAT_COLOURS[stat]}; border-radius: 4px; }}"
            )
            self.bars[stat] = bar
            self.form.addRow(stat.capitalize(), bar)
        layout.addLayout(self.form)
        layout.addWidget(self.days)
        layout.addStretch(1)

    def show_state(self, state: CharacterState) -> None:
        self.name.setText(state.name)
        self.mode.setText(MODE_NAMES[state.app_mode])
        self.stage.setText(STAGE_NAMES[state.relationship_stage])
        mood = state.mood
        why = f" · {mood.causes[-1]}" if mood.causes else ""
        self.mood.setText(f"{MOOD_EMOJI.get(mood.primary, '')} {mood.primary} "
                          f"({mood.intensity}){why}")
        dating = state.app_mode == "dating_sim"
        for stat, bar in self.bars.items():
            bar.setValue(getattr(state, stat))
            visible = stat == "energy" or dating
            bar.setVisible(visible)
            self.form.labelForField(bar).setVisible(visible)
        self.days.setText(
            f"Known {state.days_known} day{'s' * (state.days_known != 1)} · "
            f"{state.total_interactions} talks · streak {state.current_streak} "
            f"(best {state.longest_streak})"
        )
