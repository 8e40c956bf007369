"""The tools of one MCP server on Settings > Tools: fetching them, and their rows.

"List tools" connects off the GUI thread (``fetch_tools``, ``LIST_TIMEOUT_S`` at most);
each tool is shown with its first description line and an "Ask before running" box,
at most ``MAX_SHOWN_TOOLS`` of them.
"""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from companion_desktop.llm.mcp_client import McpHub, McpServerConfig, McpTool
from companion_desktop.ui.settings.mcp_editor import Draft

#: Seconds "List tools" waits for a server; at most this many of its tools are shown.
LIST_TIMEOUT_S, MAX_SHOWN_TOOLS = 20.0, 200


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
        box.addWidget(QLabel("Press List tools to see what it offers.", objectName="pageHint"))
    for tool in (tools or [])[:MAX_SHOWN_TOOLS]:
        box.addWidget(tool_row(draft, tool))
    if tools and len(tools) > MAX_SHOWN_TOOLS:
        box.addWidget(QLabel(f"…and {len(tools) - MAX_SHOWN_TOOLS} more.",
                             objectName="pageHint"))


def tool_row(draft: Draft, tool: McpTool) -> QWidget:
    """One tool: its name, its first description line (160 characters at most) and its
    "Ask before running" box, which edits ``draft``'s ask list."""
    row = QFrame(objectName="mcpToolRow")
    line = QHBoxLayout(row)
    line.setContentsMargins(10, 4, 10, 4)
    summary = (tool.description or "").strip().splitlines()
    text = QLabel(f"<b>{escape(tool.name)}</b>  {escape(summary[0][:160]) if summary else ''}",
                  objectName="mcpToolText", wordWrap=True)
    ask = QCheckBox("Ask before running", objectName="mcpAsk")
    ask.setProperty("tool", tool.name)
    ask.setChecked(tool.name in draft.entry.ask_tools)
    ask.toggled.connect(lambda on, d=draft, n=tool.name: set_ask(d, n, on))
    line.addWidget(text, 1)
    line.addWidget(ask)
    return row


def escape(text: str) -> str:
    """``text`` safe to show in a rich-text label (&, <, > escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def set_ask(draft: Draft, tool: str, on: bool) -> None:
    """Add or remove ``tool`` from the draft's ask-before-running list."""
    names = [n for n in draft.entry.ask_tools if n != tool]
    draft.entry.ask_tools = names + [tool] if on else names


def fetch_tools(config: McpServerConfig) -> list[McpTool]:
    """The server's tools (a pool thread); its error is raised with the server's message."""
    hub = McpHub([config])
    try:
        found = hub.list_tools(timeout=LIST_TIMEOUT_S).get(config.name)
    finally:
        hub.close()
    if found is None:
        raise RuntimeError("The server did not answer.")
    if isinstance(found, Exception):
        raise found
    return list(found)
