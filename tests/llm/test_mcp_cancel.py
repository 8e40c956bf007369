"""A tool call blocked on a real MCP server (the demo server's slow tool) ends as soon
as the turn's cancel token is set, or the hubs are interrupted at quit."""

from __future__ import annotations

import threading
import time

from companion_desktop.llm.base import CancelToken
from companion_desktop.llm.mcp_client import STOPPED, McpHub, McpHubClosed, interrupt_all
from tests.llm.test_mcp_client import demo


def test_a_cancelled_call_returns_at_once_and_the_hub_goes_on():
    with McpHub([demo()]) as hub:
        cancel = CancelToken()
        threading.Timer(0.5, cancel.cancel).start()
        started = time.monotonic()
        outcome = hub.call_tool("demo", "slow", {"seconds": 20}, timeout=15, cancel=cancel)
        assert time.monotonic() - started < 2.0
        assert outcome.is_error and outcome.text == STOPPED
        assert hub.call_tool("demo", "add", {"a": 2, "b": 3}).text == "5"  # still usable


def test_interrupt_all_ends_every_waiting_call_and_close_is_quick():
    hub = McpHub([demo()])
    assert hub.call_tool("demo", "add", {"a": 1, "b": 1}).text == "2"  # connected
    results = []
    worker = threading.Thread(
        target=lambda: results.append(hub.call_tool("demo", "slow", {"seconds": 20}, timeout=15)))
    worker.start()
    time.sleep(0.5)
    started = time.monotonic()
    interrupt_all()
    worker.join(5)
    assert time.monotonic() - started < 1.0
    assert results and results[0].text == STOPPED
    try:
        hub.list_tools()
        raise AssertionError("an interrupted hub takes no new work")
    except McpHubClosed:
        pass
    started = time.monotonic()
    hub.close()
    assert time.monotonic() - started < 2.5
