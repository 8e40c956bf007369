"""A label whose text shimmers: a soft highlight sweeps across it while it is shown.

Used for the turn phase ("Remembering…", "Seeing…", "Thinking…") instead of
anonymous typing dots. One QTimer drives it, running only while the label is visible.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QSize, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFontMetrics, QLinearGradient, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

FRAME_MS = 33
#: Seconds for the highlight to cross the text once.
SWEEP_S = 1.6

#: What each turn phase says in the shimmer (chat window and overlay bubble alike).
PHASE_TEXT = {"remembering": "Remembering…", "seeing": "Seeing…", "thinking": "Thinking…",
              "waking": "Waking her mind…"}


def phase_text(phase: str) -> str:
    """The shimmer line for a turn phase (unknown phases read as "Phase…")."""
    name, _, percent = phase.partition(":")
    if name == "preparing" and percent.isdigit():  # her own mind's first use
        return f"Preparing her mind (first use): {percent}%"
    return PHASE_TEXT.get(phase, phase.capitalize() + "…")


class ShimmerLabel(QWidget):
    """Text painted in ``base`` with a moving ``glow`` band; ``phase_offset`` is 0..1."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("phaseLabel")
        self._text = text
        self.base = QColor("#a493b0")
        self.glow = QColor("#6a3d8a")
        self.phase_offset = 0.0
        self._timer = QTimer(self, interval=FRAME_MS, timeout=self._tick)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        font = self.font()
        font.setItalic(True)
        font.setPointSizeF(font.pointSizeF() * 1.05)
        self.setFont(font)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - Qt naming
        self._text = text
        self.updateGeometry()
        self.update()

    @property
    def animating(self) -> bool:
        return self._timer.isActive()

    def sizeHint(self) -> QSize:  # noqa: N802
        metrics = QFontMetrics(self.font())
        return QSize(metrics.horizontalAdvance(self._text) + 24, metrics.height() + 12)

    def showEvent(self, event) -> None:  # noqa: N802, ANN001
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event) -> None:  # noqa: N802, ANN001
        self._timer.stop()
        super().hideEvent(event)

    def _tick(self) -> None:
        self.phase_offset = (self.phase_offset + FRAME_MS / 1000 / SWEEP_S) % 1.0
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        width = max(1, self.width())
        # The band travels from before the left edge to past the right edge.
        centre = -0.3 * width + self.phase_offset * 1.6 * width
        band = width * 0.25
        gradient = QLinearGradient(QPointF(centre - band, 0), QPointF(centre + band, 0))
        gradient.setColorAt(0.0, self.base)
        gradient.setColorAt(0.5, self.glow)
        gradient.setColorAt(1.0, self.base)
        painter.setPen(QPen(QBrush(gradient), 1))
        painter.setFont(self.font())
        rect = self.rect().adjusted(12, 0, -12, 0)
        align = Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft
        painter.drawText(rect, align, self._text)
        painter.end()
