"""The tools of one MCP server on Settings > Tools: fetching them, and their rows.

"List tools" connects off the GUI thread (``fetch_tools``, ``LIST_TIMEOUT_S`` at most);
at most ``MAX_SHOWN_TOOLS`` of them are shown (``mcp_reviews``).
"""

from __future__ import annotations

from companion_desktop.llm.mcp_client import McpHub, McpServerConfig, McpTool

#: Seconds "List tools" waits for a server; at most this many of its tools are shown.
LIST_TIMEOUT_S, MAX_SHOWN_TOOLS = 20.0, 200


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
