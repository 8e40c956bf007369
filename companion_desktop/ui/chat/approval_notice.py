"""The tool-approval question in the transcript: Allow / Deny for one pipeline ticket.

A tool that needs the user's yes asks inline. The question names the tool and its
server (and says when the tool is new or changed since the user reviewed it); below
it the whole call (tool, server, what the tool says it does, every argument pretty
printed) sits in a scrollable, read-only plain-text box: nothing is cut, so the
dangerous part of a long argument cannot hide after a cut. All of it is model or
server output: shown as plain text, with invisible and direction-changing characters
written as escapes. Answering hides the buttons and says the choice; a ticket the
pipeline cancelled (the turn ended or was stopped) only disables them.
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QPlainTextEdit

from companion_desktop.ui.chat.notice import Notice
from companion_desktop.ui.style import fixed_font

#: Characters of a tool or server name in the question line (the box below has all).
NAME_SHOWN = 80
#: The call box grows with its text up to this height, then scrolls (pixels).
CALL_BOX_MAX_HEIGHT = 240
_KEEP = {"\n", "\t"}


def visible(text: object) -> str:
    """``text`` with control, format (bidi overrides, zero-width) and separator
    characters other than newline and tab written as ``\\uXXXX``: what is shown is
    what the tool gets."""
    return "".join(
        f"\\u{ord(c):04x}" if c not in _KEEP and unicodedata.category(c) in
        ("Cc", "Cf", "Cs", "Co", "Zl", "Zp") else c
        for c in str(text))


def pretty_json(value: Any) -> str:
    """``value`` as indented JSON (all of it), or its text when it is not JSON-able."""
    try:
        text = json.dumps(value, ensure_ascii=False, indent=2, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return visible(text)


def _short(name: object) -> str:
    text = " ".join(visible(name).split())
    return text if len(text) <= NAME_SHOWN else text[: NAME_SHOWN - 1] + "…"


def approval_text(request: Any) -> str:
    """The question line: which tool of which server, and why it asks when the tool is
    not reviewed (``request.note``)."""
    line = f"She wants to use {_short(request.tool)} from {_short(request.server)}."
    note = getattr(request, "note", "")
    return f"{line}\n{visible(note)}" if note else line


def call_text(request: Any) -> str:
    """The whole call, for the box under the question: nothing is cut."""
    lines = [f"Tool: {visible(request.tool)}", f"Server: {visible(request.server)}"]
    description = getattr(request, "description", "")
    if description:
        lines.append(f"What it does: {visible(description)}")
    arguments = getattr(request, "arguments", None) or {}
    lines += ["Arguments:", pretty_json(arguments)]
    return "\n".join(lines)


class ApprovalNotice(Notice):
    """Allow / Deny for one ticket (``.request``, ``.answer(allowed)``, ``.cancelled``).

    ``label`` holds the question, ``details`` the whole call (scrollable). Answering
    hides the buttons and says the choice; a ticket the pipeline cancelled (the turn
    ended or was stopped) only disables them.
    """

    def __init__(self, ticket: Any) -> None:
        self.ticket = ticket
        self.question = approval_text(ticket.request)
        super().__init__(self.question, "ask", [("Allow", lambda: self.answer(True)),
                                                ("Deny", lambda: self.answer(False))])
        # Left-aligned like the call under it (a centred question looked indented).
        self.label.setAlignment(Qt.AlignmentFlag.AlignLeft)
        self.details = QPlainTextEdit(objectName="approvalCall")
        self.details.setReadOnly(True)
        self.details.setFrameShape(QFrame.Shape.StyledPanel)
        self.details.setFont(fixed_font(9))
        self.details.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.details.setPlainText(call_text(ticket.request))
        self.layout().insertWidget(1, self.details)
        self.open = True

    def text(self) -> str:
        """The question, then the whole call."""
        return f"{self.label.text()}\n{self.details.toPlainText()}"

    def fit(self, max_width: int) -> None:
        super().fit(max_width)
        margins = self.layout().contentsMargins()
        inner = max(120, max_width - margins.left() - margins.right())
        self.details.setFixedWidth(inner)
        metrics = self.details.fontMetrics()
        usable = max(40, inner - 24)  # the frame, the document margin, a scroll bar
        rows = sum(max(1, math.ceil(metrics.horizontalAdvance(line) / usable))
                   for line in self.details.toPlainText().split("\n"))
        height = rows * metrics.lineSpacing() + 16
        self.details.setFixedHeight(min(CALL_BOX_MAX_HEIGHT, height))

    def answer(self, allowed: bool) -> None:
        if not self.open:
            return
        if getattr(self.ticket, "cancelled", False):
            self.expire()
            return
        self.open = False
        self.ticket.answer(allowed)
        for button in self.buttons.values():
            button.hide()
        choice = "\n✓ You allowed it." if allowed else "\n✕ You said no."
        self.label.setText(self.question + choice)
        self._refit()

    def expire(self) -> None:
        """The question no longer stands: the buttons stay visible but disabled."""
        if not self.open:
            return
        self.open = False
        for button in self.buttons.values():
            button.setEnabled(False)
        self.label.setText(self.question + "\n(No longer waiting for an answer.)")
        self._refit()

    def _refit(self) -> None:
        self.fit(getattr(self, "_max_width", 560))
