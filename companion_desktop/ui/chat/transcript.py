"""The conversation view: message bubbles (user right, her left), centred notices.

Rows stack at the bottom of a scroll area like a messenger. Her streamed reply is
one bubble whose text is replaced as it grows. Notices are plain ("info"), errors
("error", with optional action buttons such as Retry) or the relationship card
("card", monospace). The view follows new rows when the user is already at the bottom.
A user bubble may carry the photo shown with it (its thumbnail above the text; a
photo shown without words gets a muted caption instead). A tool-approval question
("ask") has Allow and Deny buttons and answers the pipeline's ticket.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.ui.chat.approval_notice import ApprovalNotice
from companion_desktop.ui.chat.notice import Notice, fit_label, text_label
from companion_desktop.ui.photos import rounded_pixmap
from companion_desktop.ui.shimmer import ShimmerLabel

#: Bubbles take at most this share of the transcript's width.
BUBBLE_SHARE = 0.72
#: The longest edge of a photo in a bubble, in pixels.
PHOTO_EDGE = 240
PHOTO_CAPTION = "You showed her this photo"
PHOTO_MISSING = "You showed her a photo (no longer kept)"
class Bubble(QFrame):
    """One message; ``role`` is "user" or "her".

    ``photo`` (encoded image bytes, a thumbnail) shows above the text; with
    ``photo_only`` the text is replaced by a muted caption (``text()`` still gives
    the message). ``has_photo`` says whether a picture is shown.
    """

    def __init__(self, role: str, text: str, photo: bytes | None = None,
                 photo_only: bool = False) -> None:
        super().__init__()
        self.role = role
        self._message = text
        self.setObjectName("userBubble" if role == "user" else "herBubble")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(14, 9, 14, 9)
        self.photo: QLabel | None = None
        self._photo_data = photo
        if photo is not None:
            self.photo = QLabel(objectName="bubblePhoto")
            layout.addWidget(self.photo)
            if rounded_pixmap(photo, 4, 4) is None:
                self.photo = None  # undecodable: no picture, the caption says so
                self._photo_data = None
        caption = PHOTO_CAPTION if self.photo is not None else PHOTO_MISSING
        self.label = text_label(caption if photo_only else text, "bubbleText")
        if photo_only:
            self.label.setStyleSheet("color: rgba(255, 255, 255, 205); font-style: italic;"
                                     " font-size: 12px;")
        layout.addWidget(self.label)
        self._max_width = 10_000

    @property
    def has_photo(self) -> bool:
        return self.photo is not None

    def text(self) -> str:
        return self._message

    def set_text(self, text: str) -> None:
        self._message = text
        self.label.setText(text)
        self.fit(self._max_width)

    def fit(self, max_width: int) -> None:
        """Size the bubble to its text (and photo), at most ``max_width`` pixels wide."""
        self._max_width = max_width
        margins = self.layout().contentsMargins()
        inner = max_width - margins.left() - margins.right()
        if self.photo is not None:
            edge = max(40, min(PHOTO_EDGE, inner))
            pixmap = rounded_pixmap(self._photo_data, edge, edge, 10)
            if pixmap is not None:
                self.photo.setPixmap(pixmap)
                self.photo.setFixedSize(pixmap.size())
        fit_label(self.label, inner)


class Transcript(QScrollArea):
    """Holds the rows; ``rows`` lists the bubbles and notices, oldest first.
    ``added`` fires with each row added."""

    added = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("transcript")
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget(objectName="transcriptBody")
        self._layout = QVBoxLayout(body)
        self._layout.setContentsMargins(18, 14, 18, 14)
        self._layout.setSpacing(8)
        self._layout.addStretch(1)
        self.phase = ShimmerLabel()
        self.phase.hide()
        self._layout.addWidget(self.phase, 0, Qt.AlignmentFlag.AlignLeft)
        self.setWidget(body)
        self.rows: list[QFrame] = []
        self._wrappers: dict[int, QWidget] = {}
        self._last_day: date | None = None
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._stick = True
        self.verticalScrollBar().valueChanged.connect(self._note_position)

    # ------------------------------------------------------------------ rows
    def add_user(self, text: str, photo: bytes | None = None, photo_only: bool = False) -> Bubble:
        """The user's message; ``photo`` a thumbnail (encoded bytes) shown with it."""
        self._stick = True  # what the user just sent is always brought into view
        return self._add(Bubble("user", text, photo, photo_only), Qt.AlignmentFlag.AlignRight)

    def add_her(self, text: str) -> Bubble:
        return self._add(Bubble("her", text), Qt.AlignmentFlag.AlignLeft)

    def add_notice(self, text: str, kind: str = "info",
                   actions: list[tuple[str, Callable[[], None]]] | None = None) -> Notice:
        return self._add(Notice(text, kind, actions), Qt.AlignmentFlag.AlignHCenter)

    def add_approval(self, ticket: Any) -> ApprovalNotice:
        """The question for a tool run that needs the user's yes (see ``ApprovalNotice``)."""
        return self._add(ApprovalNotice(ticket), Qt.AlignmentFlag.AlignHCenter)

    def add_day(self, day: date) -> Notice | None:
        """A day separator, when ``day`` differs from the last one shown."""
        if day == self._last_day:
            return None
        self._last_day = day
        return self.add_notice(day.strftime("%A, %d %B %Y"), "day")

    def add_row(self, row: QFrame, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft) -> QFrame:
        """Any other row (it has ``fit(max_width)``), such as the greeting's arrows."""
        return self._add(row, align)

    def clear(self) -> None:
        """Remove every row (a new relationship begins)."""
        for row in list(self.rows):
            self.remove(row)
        self._last_day = None

    def remove(self, row: QFrame | None) -> None:
        if row is None or row not in self.rows:
            return
        self.rows.remove(row)
        wrapper = self._wrappers.pop(id(row))
        self._layout.removeWidget(wrapper)
        wrapper.deleteLater()

    def bubbles(self, role: str | None = None) -> list[Bubble]:
        return [r for r in self.rows if isinstance(r, Bubble) and (role is None or r.role == role)]

    def notices(self, kind: str | None = None) -> list[Notice]:
        return [r for r in self.rows if isinstance(r, Notice) and (kind is None or r.kind == kind)]

    # ----------------------------------------------------------------- phase
    def show_phase(self, text: str) -> None:
        self.phase.setText(text)
        self.phase.show()
        self._stick = True
        QTimer.singleShot(0, self.scroll_to_bottom)

    def hide_phase(self) -> None:
        self.phase.hide()

    # ---------------------------------------------------------------- layout
    def scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        width = self._bubble_width()
        for row in self.rows:
            self._fit(row, width)

    def _add(self, row: QFrame, align: Qt.AlignmentFlag) -> QFrame:
        wrapper = QWidget(objectName="transcriptRow")
        line = QHBoxLayout(wrapper)
        line.setContentsMargins(0, 0, 0, 0)
        if align != Qt.AlignmentFlag.AlignLeft:
            line.addStretch(1)
        line.addWidget(row)
        if align != Qt.AlignmentFlag.AlignRight:
            line.addStretch(1)
        self._layout.insertWidget(self._layout.count() - 1, wrapper)
        self._fit(row, self._bubble_width())
        self.rows.append(row)
        self._wrappers[id(row)] = wrapper
        self._stick = self._stick or self._at_bottom()
        self.added.emit(row)
        return row

    def _bubble_width(self) -> int:
        return max(220, int(self.viewport().width() * BUBBLE_SHARE))

    def _fit(self, row: Any, width: int) -> None:
        if isinstance(row, Notice) and row.kind in ("card", "error", "ask"):
            width = max(width, min(560, self.viewport().width() - 40))
        row.fit(width)

    def _at_bottom(self) -> bool:
        bar = self.verticalScrollBar()
        return bar.value() >= bar.maximum() - 24

    def _note_position(self, _value: int) -> None:
        self._stick = self._at_bottom()

    def _follow(self, _low: int, high: int) -> None:
        if self._stick:
            self.verticalScrollBar().setValue(high)
