"""Small icons drawn with QPainter (no emoji font needed): a picture ``size`` logical
pixels square, drawn at twice that for sharp edges on any screen, in a 24 x 24 space."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPixmap

#: The colour of the app's drawn icons (the style sheet's plum).
INK = "#7a3ea1"


def drawn(size: int, paint: Callable[[QPainter], None]) -> QPixmap:
    """``paint(painter)`` on a transparent picture: antialiased, coordinates 0-24."""
    scale = 2
    pixmap = QPixmap(size * scale, size * scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.scale(size * scale / 24, size * scale / 24)
    paint(painter)
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return pixmap


def paint_eye(painter: QPainter, color: str, left: float, right: float, width: float,
              pupil: float) -> None:
    """An eye from x ``left`` to ``right`` across the middle (y 12), outlined ``width``
    thick, with a round pupil ``pupil`` wide."""
    half = (right - left) / 2
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(QColor(color), width))
    path = QPainterPath()
    path.moveTo(left, 12)
    path.quadTo(12, 12 - half, right, 12)
    path.quadTo(12, 12 + half, left, 12)
    painter.drawPath(path)
    painter.setBrush(QColor(color))
    painter.drawEllipse(QRectF(12 - pupil / 2, 12 - pupil / 2, pupil, pupil))
