"""The tools of one MCP server on Settings > Tools, each with the user's review.

A tool asks before every run until the user reviews it: "Ask each time" or "Allow
without asking". The review remembers the tool as it was (``tool_fingerprint``): a
tool whose name, description or input schema changed since shows as changed and asks
again. Each row shows the tool's name and first description line (server text:
escaped), whether it is reviewed, and the choice. At most ``MAX_SHOWN_TOOLS`` rows.
"""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QVBoxLayout

from companion_desktop.llm.mcp_client import McpTool
from companion_desktop.pipeline.tools import review_state, tool_fingerprint
from companion_desktop.storage.settings import ToolReview
from companion_desktop.ui.plain import escape, plain_label
from companion_desktop.ui.settings.tools.editor import Draft
from companion_desktop.ui.settings.tools.tools_list import MAX_SHOWN_TOOLS

#: The review choices, in the order the box lists them after its first item.
CHOICES = {"ask": "Ask each time", "allow": "Allow without asking"}
#: The box's first item and the row's state line, by review state.
UNREVIEWED = {"new": "Not reviewed: asks each time", "changed": "Changed: asks each time"}
STATE_TEXT = {**UNREVIEWED, "ask": "Reviewed", "allow": "Reviewed"}


def show_tools(box: QVBoxLayout, title: QLabel, draft: Draft | None,
               tools: list[McpTool] | None) -> None:
    """Fill ``box`` (and ``title``) with ``draft``'s tools; None: not listed yet.

    No draft: the box is emptied and the title hidden.
    """
    while box.count():
        widget = box.takeAt(0).widget()
        if widget is not None:
            widget.deleteLater()
    title.setText(f"Tools of {draft.entry.name}" if draft else "")
    title.setVisible(draft is not None)
    if draft is None:
        return
    if tools is None:
        box.addWidget(QLabel("Press List tools to see what it offers. A tool asks before "
                             "every run until you review it here.", objectName="pageHint",
                             wordWrap=True))
    for tool in (tools or [])[:MAX_SHOWN_TOOLS]:
        box.addWidget(ToolRow(draft, tool))
    if tools and len(tools) > MAX_SHOWN_TOOLS:
        box.addWidget(QLabel(f"…and {len(tools) - MAX_SHOWN_TOOLS} more (they ask before "
                             "every run).", objectName="pageHint"))


class ToolRow(QFrame):
    """One tool: name and first description line, its review state, and the choice
    box (``choice``, property "tool"), which edits ``draft``'s reviews."""

    def __init__(self, draft: Draft, tool: McpTool) -> None:
        super().__init__(objectName="mcpToolRow")
        self.draft, self.tool = draft, tool
        line = QHBoxLayout(self)
        line.setContentsMargins(10, 4, 10, 4)
        summary = (tool.description or "").strip().splitlines()
        first = escape(summary[0][:160]) if summary else ""
        self.text = QLabel(f"<b>{escape(tool.name)}</b>  {first}", objectName="mcpToolText",
                           wordWrap=True)
        self.state = plain_label(objectName="mcpToolState")
        self.choice = QComboBox(objectName="mcpChoice")
        self.choice.setProperty("tool", tool.name)
        line.addWidget(self.text, 1)
        line.addWidget(self.state)
        line.addWidget(self.choice)
        self._show()
        self.choice.activated.connect(self._chosen)

    @property
    def review_state(self) -> str:
        return review_state(self.tool, self.draft.entry.reviews.get(self.tool.name))

    def _show(self) -> None:
        state = self.review_state
        self.state.setText(STATE_TEXT[state])
        self.state.setProperty("kind", "ok" if state in CHOICES else "error")
        self.choice.blockSignals(True)
        self.choice.clear()
        if state not in CHOICES:
            self.choice.addItem(UNREVIEWED[state], None)
        for key, text in CHOICES.items():
            self.choice.addItem(text, key)
        self.choice.setCurrentIndex(max(0, self.choice.findData(state)))
        self.choice.blockSignals(False)

    def _chosen(self, index: int) -> None:
        self.set_choice(self.choice.itemData(index))

    def set_choice(self, choice: str | None) -> None:
        """Review the tool as it is now ("ask" or "allow"); None forgets the review."""
        reviews = dict(self.draft.entry.reviews)
        if choice is None:
            reviews.pop(self.tool.name, None)
        else:
            reviews[self.tool.name] = ToolReview(choice=choice,
                                                 fingerprint=tool_fingerprint(self.tool))
        self.draft.entry.reviews = reviews
        self._show()
