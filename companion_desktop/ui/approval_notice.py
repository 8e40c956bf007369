"""The tool-approval question in the transcript: Allow / Deny for one pipeline ticket.

A tool that needs the user's yes asks inline: the question names the tool, its
server and the model's arguments (all untrusted: plain, bounded text). Answering
hides the buttons and says the choice; a ticket the pipeline cancelled (the turn
ended or was stopped) only disables them.
"""

from __future__ import annotations

import json
from typing import Any

from companion_desktop.ui.transcript import Notice

#: Characters of a tool's arguments shown in an approval question.
ARGS_SHOWN = 300
NAME_SHOWN = 80


def short_json(value: Any, limit: int = ARGS_SHOWN) -> str:
    """``value`` as one line of JSON, cut to ``limit`` characters with an ellipsis."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(name: object) -> str:
    text = " ".join(str(name).split())
    return text if len(text) <= NAME_SHOWN else text[: NAME_SHOWN - 1] + "…"


def approval_text(request: Any) -> str:
    """The question for a tool run that needs the user's yes (tool and server names and
    the model's arguments are untrusted: shown as plain, bounded text)."""
    arguments = getattr(request, "arguments", None) or {}
    return (f"She wants to use {_short(request.tool)} from {_short(request.server)} "
            f"with {short_json(arguments)}")


class ApprovalNotice(Notice):
    """Allow / Deny for one ticket (``.request``, ``.answer(allowed)``, ``.cancelled``).

    Answering hides the buttons and says the choice; a ticket the pipeline
    cancelled (the turn ended or was stopped) only disables them.
    """

    def __init__(self, ticket: Any) -> None:
        self.ticket = ticket
        self.question = approval_text(ticket.request)
        super().__init__(self.question, "ask", [("Allow", lambda: self.answer(True)),
                                                ("Deny", lambda: self.answer(False))])
        self.open = True

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
