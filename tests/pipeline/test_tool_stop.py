"""Stop during a tool call: the turn's cancel token ends a call blocked on a real MCP
server (the demo server's slow tool) at once, not when the tool finishes."""

from __future__ import annotations

import threading
import time

import pytest

from companion_desktop.llm.base import CancelToken, ToolCall
from companion_desktop.llm.mcp_client import STOPPED, McpHub
from companion_desktop.pipeline.tools import Toolbox, _Round, tool_fingerprint, wire_tool_name
from companion_desktop.storage.settings import ToolReview
from tests.llm.test_mcp_client import demo


def test_stop_ends_a_running_tool_call():
    with McpHub([demo()]) as hub:
        listing = hub.list_tools()
        reviews = {"demo": {t.name: ToolReview(choice="allow", fingerprint=tool_fingerprint(t))
                            for t in listing["demo"]}}
        cancel = CancelToken()
        state = _Round(Toolbox.build(listing, reviews), hub, None, None, cancel)
        threading.Timer(0.5, cancel.cancel).start()
        started = time.monotonic()
        result = state.run(ToolCall("call_1", wire_tool_name("demo", "slow"), {"seconds": 20}))
        assert time.monotonic() - started < 3.0  # not the tool's 20 s
        assert result.is_error and STOPPED in result.content


@pytest.mark.slow
def test_a_tool_call_is_stopped_after_fifteen_seconds():
    """The per-call limit is 15 s: a 17 s tool on a real server is stopped at 15 s, not
    left to finish (a larger limit lets it finish; a smaller one stops it sooner)."""
    with McpHub([demo()]) as hub:
        listing = hub.list_tools()
        reviews = {"demo": {t.name: ToolReview(choice="allow", fingerprint=tool_fingerprint(t))
                            for t in listing["demo"]}}
        state = _Round(Toolbox.build(listing, reviews), hub, None, None, CancelToken())
        started = time.monotonic()
        result = state.run(ToolCall("call_1", wire_tool_name("demo", "slow"), {"seconds": 17}))
        elapsed = time.monotonic() - started
    assert result.is_error and "longer than 15 s" in result.content, result.content
    assert 14.5 <= elapsed < 16.5, elapsed
