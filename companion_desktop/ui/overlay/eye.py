"""The small eye on her while she glances at the user's screen (so a glance is never
unseen): a round badge near her head, shown for a few seconds."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QTimer
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QLabel, QWidget

from companion_desktop.ui.drawn import INK, drawn, paint_eye

EYE_PX = 34  # the badge's edge, logical pixels
SHOW_MS = 5000  # how long it stays after a glance starts


def eye_badge(size: int = EYE_PX, color: str = INK) -> QPixmap:
    """A drawn eye on a white disc."""

    def paint(painter: QPainter) -> None:
        painter.setPen(QPen(QColor(color), 1.0))
        painter.setBrush(QColor(255, 255, 255, 235))
        painter.drawEllipse(QRectF(0.5, 0.5, 23, 23))
        paint_eye(painter, color, 5, 19, 1.6, 5)

    return drawn(size, paint)


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
