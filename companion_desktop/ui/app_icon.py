"""The app's icon: a speech bubble with a heart, drawn as SVG here (one source for the
window icon and for the desktop icons that ``tools/make_icons.py`` writes)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

#: The icon's sizes in the desktop's icon theme (hicolor), in pixels.
ICON_SIZES = (16, 32, 48, 64, 128, 256, 512)

ICON_SVG = """\
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
  <title>companion-desktop</title>
  <defs>
    <linearGradient id="tile" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#f59ac0"/>
      <stop offset="1" stop-color="#9a5fd1"/>
    </linearGradient>
    <linearGradient id="heart" x1="0" y1="0" x2="0" y2="1">
      <stop offset="0" stop-color="#ff77a6"/>
      <stop offset="1" stop-color="#de3f7b"/>
    </linearGradient>
  </defs>
  <rect x="12" y="12" width="232" height="232" rx="56" fill="url(#tile)"/>
  <path fill="#ffffff" d="M128 46 C78 46 40 77 40 117 C40 140 52 160 71 173 L62 205
    C61 209 65 212 69 210 L108 189 C115 190 121 191 128 191 C178 191 216 158 216 117
    C216 77 178 46 128 46 Z"/>
  <path fill="url(#heart)" d="M128 162 C120 156 87 135 81 111 C76 92 89 79 103 79
    C115 79 123 87 128 96 C133 87 141 79 153 79 C167 79 180 92 175 111
    C169 135 136 156 128 162 Z"/>
</svg>
"""


def icon_image(size: int) -> QImage:
    """The icon at ``size`` x ``size`` pixels (transparent corners)."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(QByteArray(ICON_SVG.encode()))
    if not renderer.isValid():
        raise ValueError("the app icon's SVG does not parse")
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def app_icon() -> QIcon:
    """The window and tray icon, with a picture for each theme size."""
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addPixmap(QPixmap.fromImage(icon_image(size)))
    return icon
