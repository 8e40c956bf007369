"""A small on/off switch (a checkable button painted as a pill with a knob)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent
from PySide6.QtWidgets import QAbstractButton, QSizePolicy, QWidget

ON = QColor("#b86ad6")
OFF = QColor("#d9cfe0")
KNOB = QColor("#ffffff")


class Switch(QAbstractButton):
    """Checkable; ``text`` is drawn to the right of the pill."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCheckable(True)
        self.setText(text)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:  # noqa: N802
        metrics = self.fontMetrics()
        width = 46 + metrics.horizontalAdvance(self.text()) + 10
        return QSize(width, max(26, metrics.height() + 8))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        track = QRectF(1, (self.height() - 22) / 2, 42, 22)
        colour = ON if self.isChecked() else OFF
        if not self.isEnabled():
            colour = colour.lighter(120)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(colour)
        painter.drawRoundedRect(track, 11, 11)
        knob_x = track.right() - 20 if self.isChecked() else track.left() + 2
        painter.setBrush(KNOB)
        painter.drawEllipse(QRectF(knob_x, track.top() + 2, 18, 18))
        painter.setPen(self.palette().color(self.foregroundRole()))
        painter.drawText(
            QRectF(track.right() + 10, 0, self.width() - track.right() - 10, self.height()),
            Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, self.text(),
        )
        painter.end()
