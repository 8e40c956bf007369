"""The window she opens with: the chat window's frame, shown before storage is open.

Opening her memories needs SQLAlchemy, the pipeline and the database, most of a second
on a slow machine. So the app shows this first, within a few tenths of a second of
launch: the chat window's size, colours and columns (her place, the side panel, the
header, the conversation and the message box) with a line saying she is waking up.
It has nothing to type into or press: nothing can be sent before storage is open. The
chat window takes its place (same position and size) once it has painted, and this one
closes. Only PySide6 and the style sheet are imported here.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QMainWindow, QVBoxLayout, QWidget

from companion_desktop.ui.style import STYLE_SHEET

#: The chat window's first size, its side column's width and her place's height (the
#: same numbers as ui.chat.window: the test holds them together).
SIZE = (1040, 700)
SIDE_WIDTH = 280
AVATAR_HEIGHT = 300
AVATAR_RGB = (246, 238, 250)
WAKING_TEXT = "She is waking up…"


def chat_column() -> tuple[QFrame, QVBoxLayout, QHBoxLayout]:
    """The chat window's right column: its frame, its layout (with the header added) and
    the header's layout, empty (the chat window's and this one's)."""
    column = QFrame(objectName="chatColumn")
    inner = QVBoxLayout(column)
    inner.setContentsMargins(0, 0, 0, 0)
    inner.setSpacing(0)
    header = QFrame(objectName="chatHeader")
    top = QHBoxLayout(header)
    top.setContentsMargins(18, 10, 12, 10)
    inner.addWidget(header)
    return column, inner, top


class FirstWindow(QMainWindow):
    """The chat window's frame while storage opens (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        self.gone = False
        self.setWindowTitle("companion-desktop")
        self.setStyleSheet(STYLE_SHEET)
        self.resize(*SIZE)
        central = QWidget(objectName="chatRoot")
        row = QHBoxLayout(central)
        row.setContentsMargins(14, 14, 14, 14)
        row.setSpacing(14)
        left = QVBoxLayout()
        left.setSpacing(10)
        place = QFrame(objectName="chatAvatarSlot")
        place.setStyleSheet("#chatAvatarSlot { background: rgb(%d, %d, %d); }" % AVATAR_RGB)
        place.setFixedSize(SIDE_WIDTH, AVATAR_HEIGHT)
        left.addWidget(place)
        panel = QFrame(objectName="statePanel")
        panel.setFixedWidth(SIDE_WIDTH)
        left.addWidget(panel, 1)
        row.addLayout(left)
        column, inner, top = chat_column()
        top.addWidget(QLabel("companion-desktop", objectName="chatTitle"))
        top.addStretch(1)
        self.line = QLabel(WAKING_TEXT, objectName="phaseLabel")
        self.line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.line.setStyleSheet("color: #8a7d93; font-size: 15px;")
        inner.addWidget(self.line, 1)
        composer = QFrame(objectName="composer")
        composer.setFixedHeight(64)
        inner.addWidget(composer)
        row.addWidget(column, 1)
        self.setCentralWidget(central)

    def go(self) -> None:
        """Hidden and let go (hidden, not closed: closing the last window would end the
        app while she starts in the tray). Once only."""
        if not self.gone:
            self.gone = True
            self.hide()
            self.deleteLater()

    def hand_over(self, window: QMainWindow) -> None:
        """``window`` takes this one's place: call before showing it."""
        if self.isVisible():
            window.resize(self.size())
            window.move(self.pos())
            if self.isMaximized():
                window.setWindowState(Qt.WindowState.WindowMaximized)
