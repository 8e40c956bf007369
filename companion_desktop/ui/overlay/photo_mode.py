"""Photo mode: pose the camera around her, pick a face, save a transparent PNG.

While it is open her photo-mode face wins over everything else (tap reactions,
emotes, the model's flashes); closing it gives her face back.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.avatar.render.camera import Camera
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.avatar.view import AvatarView
from companion_desktop.ui.plain import plain_label

FACES = ("neutral", "happy", "relaxed", "surprised", "sad", "angry", "blink")


def orbit(base: Camera, yaw_deg: float, pitch_deg: float, zoom: float) -> Camera:
    """``base`` turned around its target by yaw/pitch (degrees) and moved in by ``zoom`` (>0)."""
    eye, target = np.asarray(base.eye, np.float32), np.asarray(base.target, np.float32)
    offset = eye - target
    distance = float(np.linalg.norm(offset)) / max(zoom, 0.1)
    yaw = math.atan2(offset[0], offset[2]) + math.radians(yaw_deg)
    pitch = math.asin(max(-1.0, min(1.0, offset[1] / max(np.linalg.norm(offset), 1e-6))))
    pitch += math.radians(pitch_deg)
    new = np.array([
        math.sin(yaw) * math.cos(pitch), math.sin(pitch), math.cos(yaw) * math.cos(pitch),
    ], np.float32) * distance
    return Camera(eye=target + new, target=target, fov_y=base.fov_y,
                  near=max(0.01, base.near / max(zoom, 0.1)), far=base.far)


class PhotoDialog(QDialog):
    def __init__(self, host: AvatarHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Photo mode")
        self.host = host
        self.resize(560, 760)
        layout = QVBoxLayout(self)
        self.view = AvatarView(host, "full", self, follow_pointer=False)
        self.view.setMinimumSize(360, 520)
        layout.addWidget(self.view, 1)
        form = QFormLayout()
        self.yaw = self._slider(-180, 180, 0)
        self.pitch = self._slider(-60, 60, 0)
        self.zoom = self._slider(50, 300, 100)
        form.addRow("Turn", self.yaw)
        form.addRow("Tilt", self.pitch)
        form.addRow("Zoom", self.zoom)
        self.face = QComboBox()
        self.face.addItems(FACES)
        self.face.currentTextChanged.connect(self._face)
        form.addRow("Face", self.face)
        layout.addLayout(form)
        row = QHBoxLayout()
        self.status = plain_label(wordWrap=True)
        row.addWidget(self.status, 1)
        save = QPushButton("Save PNG…", objectName="primaryButton")
        save.clicked.connect(self.save)
        row.addWidget(save)
        layout.addLayout(row)
        self._face(self.face.currentText())

    def _slider(self, low: int, high: int, value: int) -> QSlider:
        slider = QSlider(Qt.Orientation.Horizontal)
        slider.setRange(low, high)
        slider.setValue(value)
        slider.valueChanged.connect(self._pose)
        return slider

    def _pose(self) -> None:
        base = self.view.camera
        if base is None:
            return
        self.view.camera_override = orbit(base, self.yaw.value(), self.pitch.value(),
                                          self.zoom.value() / 100)

    def _face(self, name: str) -> None:
        runtime = self.host.runtime
        if runtime is not None:
            runtime.set_photo({"neutral": 0.0} if name == "neutral" else {name: 1.0})

    def save(self, path: str | None = None) -> Path | None:
        """Save what the view shows, with a transparent background."""
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self, "Save photo", str(Path.home() / "hana.png"),
                                                  "PNG image (*.png)")
            if not path:
                return None
        image = self.view.picture()
        if not image.save(path, "PNG"):
            self.status.setText(f"Could not write {path}.")
            return None
        self.status.setText(f"Saved {Path(path).name}.")
        return Path(path)

    def done(self, result: int) -> None:  # noqa: D401 - Qt override
        if self.host.runtime is not None:
            self.host.runtime.set_photo(None)
        super().done(result)
