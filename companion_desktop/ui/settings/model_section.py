"""Settings > Character > Model: load a .vrm, see its report, keep the last good one.

Loading runs on a worker thread with a busy indicator. A file that fails to load
shows the reason and leaves her current model in place; a good one is shown at
once, its report listed, and remembered for the next start.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.avatar.vrm.report import format_report, inspect
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.resources import default_avatar_path
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import AvatarSettings, load_settings, save_settings
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.plain import escape, plain_label

FILE_FILTER = "VRM and glTF models (*.vrm *.glb *.gltf);;All files (*)"


class ModelSection(QWidget):
    """Her 3D model: which file, its report, and buttons to change it."""

    def __init__(self, service: CompanionService, host: AvatarHost,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.host = host
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.current = QLabel(objectName="modelCurrent", wordWrap=True)
        layout.addWidget(self.current)
        buttons = QHBoxLayout()
        self.choose = QPushButton("Choose a model file…", objectName="secondaryButton")
        self.builtin = QPushButton("Use the built-in Hana", objectName="secondaryButton")
        self.choose.clicked.connect(self.choose_file)
        self.builtin.clicked.connect(lambda: self.load(default_avatar_path()))
        buttons.addWidget(self.choose)
        buttons.addWidget(self.builtin)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.busy = QProgressBar(objectName="modelBusy")
        self.busy.setRange(0, 0)  # indeterminate while loading
        self.busy.setMaximumHeight(8)
        self.busy.setTextVisible(False)
        self.busy.hide()
        layout.addWidget(self.busy)
        self.status = plain_label(objectName="statusLine", wordWrap=True)
        layout.addWidget(self.status)
        self.report = QPlainTextEdit(objectName="modelReport")
        self.report.setReadOnly(True)
        self.report.setMinimumHeight(160)
        layout.addWidget(self.report)
        host.model_changed.connect(self._model_changed)
        host.load_failed.connect(self._failed)
        host.loading.connect(self._loading)
        self._show_current()

    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose her model", str(Path.home()),
                                              FILE_FILTER)
        if path:
            self.load(Path(path))

    def load(self, path: Path) -> None:
        self._pending = str(path)
        self.host.load_async(path)

    def _loading(self, path: str) -> None:
        self.busy.show()
        self.choose.setEnabled(False)
        self.builtin.setEnabled(False)
        self._set_status(f"Loading {Path(path).name}…", "hint")

    def _failed(self, message: str) -> None:
        self._done()
        self._set_status(f"{message}\nHer current model stays.", "error")

    def _model_changed(self) -> None:
        self._done()
        path = self.host.model_path
        builtin = path is not None and Path(path) == default_avatar_path()
        try:
            with self.service.db.session() as session:
                settings = load_settings(session, AvatarSettings)
                settings.model_path = None if builtin else path
                save_settings(session, settings)
        except StorageError as error:
            self._set_status(f"Loaded, but could not remember it: {error}", "error")
        else:
            if path is not None:
                self._set_status(f"Loaded {Path(path).name}.", "ok")
        self._show_current()

    def _done(self) -> None:
        self.busy.hide()
        self.choose.setEnabled(True)
        self.builtin.setEnabled(True)

    def _set_status(self, text: str, kind: str) -> None:
        self.status.setText(text)
        self.status.setProperty("kind", kind)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)

    def _show_current(self) -> None:
        model = self.host.model
        if model is None:
            self.current.setText("No model loaded yet.")
            self.report.clear()
            return
        name = model.meta.name or Path(model.source or "model").stem
        self.current.setText(f"<b>{escape(name)}</b> · VRM {escape(model.version)} · "
                             f"{escape(Path(model.source).name)}")
        self.report.setPlainText(format_report(inspect(model)))
