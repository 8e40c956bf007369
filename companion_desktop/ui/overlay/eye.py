"""The small eye on her while she glances at the user's screen (so a glance is never
unseen): a round badge near her head, shown for a few seconds."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPixmap
from PySide6.QtWidgets import QLabel, QWidget

EYE_PX = 34  # the badge's edge, logical pixels
SHOW_MS = 5000  # how long it stays after a glance starts


def eye_badge(size: int = EYE_PX, color: str = "#7a3ea1") -> QPixmap:
    """A drawn eye on a white disc (no emoji font needed)."""
    scale = 2
    pixmap = QPixmap(size * scale, size * scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size * scale / 24, size * scale / 24)
    painter.setPen(QPen(QColor(color), 1.0))
    painter.setBrush(QColor(255, 255, 255, 235))
    painter.drawEllipse(QRectF(0.5, 0.5, 23, 23))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(QColor(color), 1.6))
    path = QPainterPath()
    path.moveTo(5, 12)
    path.quadTo(12, 5, 19, 12)
    path.quadTo(12, 19, 5, 12)
    painter.drawPath(path)
    painter.setBrush(QColor(color))
    painter.drawEllipse(QRectF(9.5, 9.5, 5, 5))
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return pixmap


class GlanceEye(QLabel):
    """The badge, a child of the overlay; :meth:`flash` shows it for ``ms``."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("glanceEye")
        self.setPixmap(eye_badge())
        self.setFixedSize(EYE_PX, EYE_PX)
        self.setToolTip("She is glancing at your screen")
        self._timer = QTimer(self, singleShot=True, timeout=self.hide)
        self.hide()

    def flash(self, ms: int = SHOW_MS) -> None:
        parent = self.parentWidget()
        self.move(parent.width() - EYE_PX - 10, 10)
        self.show()
        self.raise_()
        self._timer.start(max(1, ms))
