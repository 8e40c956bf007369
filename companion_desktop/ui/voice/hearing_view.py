"""Her hearing on screen: the mic button, the listening line and the chat window's wiring.

:class:`MicButton` is held for push-to-talk and toggles listening in hands-free (hidden
while hearing is off). :class:`ListenLine` sits over the chat's input row: "Listening…"
with the level, "Hearing you…", "Recognising…", the model's first-time preparation, and
any problem (no microphone, a damaged model, a server error) in the error colour.
:class:`ChatHearing` connects a ``Hearing`` to the chat window: a recognised utterance
is sent through the window's own ``submit`` (the staged photo, tools and reminders
work as for typed text); when a turn is still running, it is stopped first and the
new one starts when it has ended. The push-to-talk key (``HearingSettings.ptt_key``,
F9 by default) works while the chat window (or the overlay) has the focus.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QKeySequence, QPainter, QPen
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from companion_desktop.ui.drawn import INK, drawn

BUTTON_STYLE = """
#micButton { background: #ffffff; border: 1px solid #e3d3ee; border-radius: RADIUSpx; padding: 0; }
#micButton:hover { background: #f6ecfb; border-color: #c99ae0; }
#micButton[state="listening"], #micButton[state="hearing"] { background: #f3dcfb;
  border: 2px solid #b46fd6; }
#micButton[state="recognising"] { background: #f6ecfb; border: 2px dashed #b46fd6; }
"""
MIC_STYLE = """
#listenLine QLabel { color: #7a3ea1; }
#listenLine[kind="error"] QLabel { color: #a3263f; }
#listenLevel { background: #efe2f6; border: none; border-radius: 3px; }
#listenLevel::chunk { background: #b46fd6; border-radius: 3px; }
"""
STATE_TEXT = {
    "listening": "Listening…",
    "hearing": "Hearing you…",
    "recognising": "Recognising what you said…",
    "paused": "Not listening (click the mic to listen again).",
}
NOT_READY = "Set up a language model first; what you said was not sent."


def mic_icon(size: int = 20, color: str = INK) -> QIcon:
    """A drawn microphone."""

    def paint(painter: QPainter) -> None:
        painter.setPen(QPen(QColor(color), 1.8, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
        painter.drawRoundedRect(QRectF(9, 3, 6, 11), 3, 3)
        painter.drawArc(QRectF(6, 6, 12, 11), 200 * 16, 140 * 16)
        painter.drawLine(12, 17, 12, 21)
        painter.drawLine(9, 21, 15, 21)

    return QIcon(drawn(size, paint))


class MicButton(QPushButton):
    """``held``/``let_go`` in push-to-talk; ``toggled_listening(on)`` in hands-free."""

    held = Signal()
    let_go = Signal()
    toggled_listening = Signal(bool)

    def __init__(self, size: int = 36, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("micButton")
        self.setStyleSheet(BUTTON_STYLE.replace("RADIUS", str(size // 2 - 1)))
        self.setIcon(mic_icon(20))
        self.setIconSize(QSize(20, 20))
        self.setFixedSize(size, size)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.mode = "off"
        self.key_name = "F9"
        self.pressed.connect(lambda: self.mode == "push_to_talk" and self.held.emit())
        self.released.connect(lambda: self.mode == "push_to_talk" and self.let_go.emit())
        self.clicked.connect(self._clicked)
        self.set_mode("off")

    def set_mode(self, mode: str, key_name: str | None = None) -> None:
        self.mode = mode
        self.key_name = key_name or self.key_name
        self.setVisible(mode != "off")
        self.setToolTip(f"Hold to talk (or hold {self.key_name})" if mode == "push_to_talk"
                        else "Listening hands-free: click to stop or start listening")

    def set_state(self, state: str) -> None:
        if self.property("state") == state:
            return
        self.setProperty("state", state)
        self.style().unpolish(self)
        self.style().polish(self)

    def _clicked(self) -> None:
        if self.mode == "hands_free":
            self.toggled_listening.emit(self.property("state") == "paused")


class ListenLine(QFrame):
    """A line over the input row: what her hearing is doing, or what went wrong."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("listenLine")
        self.setStyleSheet(MIC_STYLE)
        row = QHBoxLayout(self)
        row.setContentsMargins(4, 0, 4, 0)
        self.label = QLabel(objectName="listenText", wordWrap=True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # error texts may quote a server
        self.meter = QProgressBar(objectName="listenLevel", textVisible=False)
        self.meter.setRange(0, 100)
        self.meter.setFixedSize(90, 6)
        row.addWidget(self.label, 1)
        row.addWidget(self.meter, 0, Qt.AlignmentFlag.AlignVCenter)
        self.hide()

    @property
    def text(self) -> str:
        return self.label.text() if self.isVisible() else ""

    def show_state(self, state: str) -> None:
        text = STATE_TEXT.get(state)
        self._set(text or "", "")
        self.meter.setVisible(state in ("listening", "hearing"))

    def show_problem(self, message: str) -> None:
        self._set(message, "error")
        self.meter.hide()

    def show_message(self, text: str) -> None:
        self._set(text, "")
        self.meter.hide()

    def show_level(self, rms: float) -> None:
        self.meter.setValue(max(0, min(100, round(300 * rms))))

    def _set(self, text: str, kind: str) -> None:
        self.label.setText(text)
        if self.property("kind") != kind:
            self.setProperty("kind", kind)
            self.style().unpolish(self)
            self.style().polish(self)
        self.setVisible(bool(text))


def key_of(name: str) -> int | None:
    """The Qt key of a key name ("F9"), None when it names none."""
    sequence = QKeySequence(name)
    key = sequence[0].key() if sequence.count() else Qt.Key.Key_unknown
    return None if key == Qt.Key.Key_unknown else key.value


class PushToTalkKey(QObject):
    """Holding the key on ``widget`` (or a child that ignores it) presses ``hearing``."""

    def __init__(self, hearing, widget: QWidget) -> None:  # noqa: ANN001
        super().__init__(widget)
        self.hearing = hearing
        widget.installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802, ANN001
        kind = event.type()
        if kind not in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            return False
        if (self.hearing.mode != "push_to_talk"
                or event.key() != key_of(self.hearing.settings.ptt_key)):
            return False
        if not event.isAutoRepeat():
            (self.hearing.press if kind == QEvent.Type.KeyPress else self.hearing.release)()
        return True


class ChatHearing(QObject):
    """Connects ``hearing`` to the chat ``window`` (its mic button and listen line)."""

    def __init__(self, window, hearing) -> None:  # noqa: ANN001
        super().__init__(window)
        self.window = window
        self.hearing = hearing
        self.waiting: str | None = None  # heard while a turn ran: sent once it has stopped
        self.button: MicButton = window.mic_button
        self.line: ListenLine = window.listen_line
        self.key = PushToTalkKey(hearing, window)
        self.button.held.connect(hearing.press)
        self.button.let_go.connect(hearing.release)
        self.button.toggled_listening.connect(lambda on: hearing.set_paused(not on))
        hearing.state_changed.connect(self._state)
        hearing.level.connect(self.line.show_level)
        hearing.problem.connect(self.line.show_problem)
        hearing.progress.connect(self._progress)
        hearing.heard.connect(self.heard)
        hearing.changed.connect(self.show_mode)
        self.show_mode()

    def show_mode(self) -> None:
        self.button.set_mode(self.hearing.mode, self.hearing.settings.ptt_key)
        self._state(self.hearing.state)
        if self.hearing.last_problem:  # said before this view was made ("No microphone")
            self.line.show_problem(self.hearing.last_problem)

    def _state(self, state: str) -> None:
        self.button.set_state(state)
        if self.line.property("kind") != "error" or state in ("listening", "hearing"):
            self.line.show_state(state)
        self.window.input.setProperty("listening", state in ("listening", "hearing"))

    def _progress(self, text: str) -> None:
        """The model's preparation ("" once ready); a problem on the line stays."""
        if self.line.property("kind") == "error":
            return
        if text:
            self.line.show_message(text)
        else:
            self.line.show_state(self.hearing.state)

    def heard(self, text: str) -> None:
        """A recognised utterance: a turn, as if typed (after stopping a running one)."""
        window = self.window
        if not window.backend.ready:
            self.line.show_problem(NOT_READY)
            return
        if window.busy:
            if self.waiting is None:
                window.backend.controller.busy_changed.connect(self._turn_ended)
            self.waiting = text
            window.stop()
            return
        window.submit(text, spoken=True)

    def _turn_ended(self, busy: bool) -> None:
        if busy or self.waiting is None:
            return
        controller = self.window.backend.controller
        controller.busy_changed.disconnect(self._turn_ended)
        text, self.waiting = self.waiting, None
        self.window.submit(text, spoken=True)
