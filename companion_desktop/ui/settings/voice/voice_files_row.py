"""Settings > Voice > "Add a voice file…": bring a Kokoro or Piper voice into her data folder.

A Kokoro voice is one ``.npy`` or ``.bin`` file; a Piper voice is its ``.onnx`` model with
the ``.onnx.json`` beside it (the user picks the ``.onnx``). The file is checked and
copied off the GUI thread (``llm.neural_voice.import_voice``: shapes, sample rate, phoneme
set, size limits; nothing is run or downloaded); a refused file gives its one-line reason
here and nothing is kept. ``added(voice_id)`` fires once a voice is in.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.ui.background import Latest
from companion_desktop.ui.settings.form import status

FILTER = "Voice files (*.onnx *.npy *.bin);;Piper voice (*.onnx);;Kokoro voice (*.npy *.bin)"
HINT = ("A Kokoro voice (.npy or .bin) or a Piper voice (.onnx with its .onnx.json beside "
        "it). Piper voices speak dozens of languages: each is used for text in its language.")


class VoiceFilesRow(QWidget):
    """The "Add a voice file…" button, its hint and the result line."""

    added = Signal(str)

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.data_dir = service.db.path.parent
        self._imports = Latest(self)
        self.add_button = QPushButton("+  Add a voice file…", objectName="secondaryButton")
        self.add_button.clicked.connect(self.choose)
        line = QHBoxLayout()
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.add_button)
        line.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 4, 0, 0)
        box.setSpacing(4)
        box.addLayout(line)
        box.addWidget(QLabel(HINT, objectName="pageHint", wordWrap=True))
        self.result = QLabel(objectName="statusLine", wordWrap=True)
        self.result.hide()
        box.addWidget(self.result)

    def choose(self) -> None:
        path, _kind = QFileDialog.getOpenFileName(self, "Add a voice file", str(Path.home()),
                                                  FILTER)
        if path:
            self.add(Path(path))

    def add(self, path: Path) -> None:
        """Check and copy ``path`` off the GUI thread; the line says how it went."""
        from companion_desktop.llm.neural_voice import import_voice

        self.add_button.setEnabled(False)
        status(self.result, f"Checking {path.name}…", "hint")
        self._imports.run(lambda: import_voice(self.data_dir, path), self._added,
                          self._refused)

    def _added(self, voice) -> None:  # noqa: ANN001 - a NeuralVoice
        self.add_button.setEnabled(True)
        status(self.result, f"✓  {voice.name} is one of her voices now.", "ok")
        self.added.emit(voice.id)

    def _refused(self, error: Exception) -> None:
        self.add_button.setEnabled(True)
        status(self.result, f"✗  {error}", "error")
