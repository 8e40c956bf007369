"""Tools in the chat window: approval questions and the phase line while a tool runs.

A tool that needs the user's yes asks inline (Allow / Deny, see
``ui.approval_notice``); the answer goes back to the pipeline's ticket. A question
still open when the turn ends, or whose ticket the pipeline cancelled (it timed out
and she went on without it), is expired: its buttons stay, disabled. While a tool
runs the phase line says "Using <tool>…"; when it ends the line goes back to
thinking (or hides once her reply is showing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion_desktop.ui.chat.approval_notice import ApprovalNotice
from companion_desktop.ui.chat.transcript import Transcript

#: Characters of a tool's label shown in the phase line.
LABEL_SHOWN = 60


class ToolActivity:
    """The tool side of a turn in ``transcript``.

    ``still_thinking()`` says whether a running turn has no reply shown yet (then a
    finished tool puts ``thinking_text`` back on the phase line).
    """

    def __init__(self, transcript: Transcript, still_thinking: Callable[[], bool],
                 thinking_text: str) -> None:
        self.transcript = transcript
        self.still_thinking = still_thinking
        self.thinking_text = thinking_text
        self.approvals: list[ApprovalNotice] = []

    def ask(self, ticket: Any) -> None:
        """A tool needs the user's yes: ask inline; the answer goes back to the ticket."""
        self.approvals = [a for a in self.approvals if a.open]
        self.approvals.append(self.transcript.add_approval(ticket))

    def expire(self) -> None:
        """The turn ended: questions still open no longer wait for an answer."""
        for notice in self.approvals:
            notice.expire()
        self.approvals = []

    def activity(self, label: str, status: str) -> None:
        """A tool runs ("running") or ended ("done", "declined", "failed"): the phase line."""
        label = " ".join(label.split())[:LABEL_SHOWN] or "a tool"
        for notice in self.approvals:
            if getattr(notice.ticket, "cancelled", False):
                notice.expire()  # it timed out: she went on without it
        if status == "running":
            self.transcript.show_phase(f"Using {label}…")
        elif self.still_thinking():
            self.transcript.show_phase(self.thinking_text)
        else:
            self.transcript.hide_phase()
