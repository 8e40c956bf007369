"""The message box (Enter sends, Shift+Enter starts a new line) and the composer around it.

While a turn runs the box keeps accepting text (the user can write the next
message) but looks dimmed: the ``busy`` property switches its style. Pasting a
photo (an image or an image file) emits ``image_pasted`` instead of inserting
text; a photo dragged over the box is left to the window (its drop highlight).
The composer is the row under the conversation: the staged-photo chip and the
listening line (``ui.voice_in_view``) above, then the paperclip, the eye (show her the
screen: ``ui.chat.screen``), the box, the mic
button (shown while hearing is on), and Send / Stop.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.ui.chat.screen import eye_icon
from companion_desktop.ui.photos import (
    PhotoChip,
    image_from_mime,
    mime_has_image,
    paperclip_icon,
)
from companion_desktop.ui.voice import ListenLine, MicButton

COMPOSER_STYLE = """
#clipButton { background: #ffffff; border: 1px solid #e3d3ee; border-radius: 17px; padding: 0; }
#clipButton:hover { background: #f6ecfb; border-color: #c99ae0; }
#clipButton:pressed { background: #efe2f6; }
#eyeButton { background: #ffffff; border: 1px solid #e3d3ee; border-radius: 17px; padding: 0; }
#eyeButton:hover { background: #f6ecfb; border-color: #c99ae0; }
"""


class ChatInput(QPlainTextEdit):
    """``submitted(text)`` fires on Enter with the whole text (the box is not cleared here)."""

    submitted = Signal(str)
    image_pasted = Signal(object, str)  # (path, bytes or QImage; name)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatInput")
        self.setTabChangesFocus(True)
        self.set_ready(True)
        self.setProperty("busy", False)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def set_ready(self, ready: bool) -> None:
        """The hint in the empty box: how to send, or that a model must be set up first."""
        self.setPlaceholderText(
            "Say something…  (Enter sends, Shift+Enter for a new line)" if ready
            else "Set up a language model in Settings to start talking")

    def set_busy(self, busy: bool) -> None:
        """Dim the box while a turn runs; typing stays possible."""
        if self.property("busy") == busy:
            return
        self.setProperty("busy", busy)
        self.style().unpolish(self)
        self.style().polish(self)
        self.viewport().update()

    def event(self, event) -> bool:  # noqa: ANN001
        # The style sheet's font and padding arrive on polish: measure again then.
        if event.type() in (QEvent.Type.Polish, QEvent.Type.StyleChange, QEvent.Type.FontChange):
            QTimer.singleShot(0, self._fit_height)
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit(self.toPlainText())
            event.accept()
            return
        super().keyPressEvent(event)

    def _fit_height(self) -> None:
        """Grow with the text from one line up to six, then scroll."""
        metrics = self.fontMetrics()
        lines = max(1, min(6, int(self.document().size().height())))
        margins = self.contentsMargins()
        extra = margins.top() + margins.bottom() + 2 * int(self.document().documentMargin()) + 4
        self.setFixedHeight(lines * metrics.lineSpacing() + extra)

    # A photo pasted or dropped is shown to her, not inserted as text.
    def canInsertFromMimeData(self, source: QMimeData) -> bool:  # noqa: N802
        return mime_has_image(source) or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802
        found = image_from_mime(source)
        if found is None:
            super().insertFromMimeData(source)
            return
        self.image_pasted.emit(*found)

    def dragEnterEvent(self, event) -> None:  # noqa: N802, ANN001
        if mime_has_image(event.mimeData()):
            event.ignore()  # the window shows its drop highlight and takes the photo
            return
        super().dragEnterEvent(event)


class Composer(QFrame):
    """The staged-photo chip over a row of paperclip, message box, Send and Stop."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setStyleSheet(COMPOSER_STYLE)
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 10, 12, 12)
        column.setSpacing(8)
        self.chip = PhotoChip()
        column.addWidget(self.chip, 0, Qt.AlignmentFlag.AlignLeft)
        self.listen_line = ListenLine()
        column.addWidget(self.listen_line)
        line = QHBoxLayout()
        line.setSpacing(8)
        self.clip_button = QPushButton(objectName="clipButton")
        self.clip_button.setIcon(paperclip_icon(20))
        self.clip_button.setIconSize(QSize(20, 20))
        self.clip_button.setFixedSize(36, 36)
        self.clip_button.setToolTip("Show her a photo")
        self.eye_button = QToolButton(objectName="eyeButton")
        self.eye_button.setIcon(eye_icon(20))
        self.eye_button.setIconSize(QSize(20, 20))
        self.eye_button.setFixedSize(48, 36)
        self.eye_button.setToolTip("Show her your screen: the window you were in "
                                   "(the arrow: the whole screen). You see it before it goes.")
        self.eye_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        eye_menu = QMenu(self.eye_button)
        self.look_window_action = eye_menu.addAction("Show her the window I was in")
        self.look_full_action = eye_menu.addAction("Show her my whole screen")
        self.eye_button.setMenu(eye_menu)
        self.input = ChatInput()
        self.mic_button = MicButton()
        self.send_button = QPushButton("Send", objectName="sendButton")
        self.stop_button = QPushButton("■  Stop", objectName="stopButton")
        line.addWidget(self.clip_button, 0, Qt.AlignmentFlag.AlignBottom)
        line.addWidget(self.eye_button, 0, Qt.AlignmentFlag.AlignBottom)
        line.addWidget(self.input, 1)
        line.addWidget(self.mic_button, 0, Qt.AlignmentFlag.AlignBottom)
        for button in (self.clip_button, self.eye_button, self.send_button, self.stop_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
        for button in (self.send_button, self.stop_button):
            line.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
        self.stop_button.hide()
        column.addLayout(line)
