"""Settings > LLM Model, for her own mind (the "Built-in (offline)" provider): which model
she runs, its size, licence and speed on this computer (measured on her first reply),
and how long it stays loaded without a call before its memory is given back."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from companion_desktop.ui.plain import plain_label

IDLE_RANGE = (1, 240)


def describe(model_id: str, cache_dir: Path) -> str:
    """One paragraph about the model ``model_id`` ("" for an unknown one)."""
    from companion_desktop.llm.mind.models import BY_ID, installed, measured_speed

    model = BY_ID.get(model_id)
    if model is None:
        return ""
    size = f"{model.size / 1e9:.1f} GB" if model.size >= 1e9 else f"{model.size / 1e6:.0f} MB"
    speed = measured_speed(cache_dir, model)
    pace = (f"writes about {speed:.0f} tokens a second on this computer" if speed
            else "her speed here is measured on her first reply")
    there = "" if installed(model) else " Not installed: pip install " + " ".join(model.dists)
    return (f"{model.name}: {size}, {model.context:,} tokens of context; {pace}. "
            f"Licence: {model.licence}. Private and offline; Ollama or a cloud model will "
            f"make her smarter.{there}")


class MindSection(QWidget):
    """The model paragraph and the "unload after" minutes (``idle_minutes``)."""

    def __init__(self, cache_dir: Path, idle_minutes: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("mindSection")
        self.cache_dir = cache_dir
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(4)
        self.info = plain_label(objectName="mindInfo", wordWrap=True)
        box.addWidget(self.info)
        line = QHBoxLayout()
        line.addWidget(QLabel("Give her memory back after", objectName="pageHint"))
        self.idle = QSpinBox(objectName="mindIdle")
        self.idle.setRange(*IDLE_RANGE)
        self.idle.setSuffix(" min without a message")
        self.idle.setValue(max(IDLE_RANGE[0], min(IDLE_RANGE[1], idle_minutes)))
        line.addWidget(self.idle)
        line.addStretch(1)
        box.addLayout(line)

    def show_model(self, model_id: str) -> None:
        self.info.setText(describe(model_id, self.cache_dir))

    @property
    def idle_minutes(self) -> int:
        return int(self.idle.value())
