"""MCP tools from the chat window: a real MCP server process (the tests' demo server over
stdio), the scripted model on 127.0.0.1 asking for a tool, and the user's answer to
"ask before running" given with the real Allow / Deny buttons in the transcript."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from companion_desktop.pipeline.tool_access import ToolAccess
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    load_settings,
    save_settings,
)
from tests.conftest import T0
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import openai_tool_call_events
from tests.ui.conftest import use_server
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script, reply_with_block

DEMO = Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py"


class ToolCallScript(Script):
    """The model's turn that asks for tools instead of answering."""

    def __init__(self, calls):
        super().__init__()
        self.calls = calls

    def reply(self):
        return StreamReply(openai_tool_call_events(self.calls, texts=["Let me work that out. "]))


def configure_demo(service) -> None:
    """The demo MCP server, enabled, with "add" ticked ask-before-running (old settings)."""
    with service.db.session() as session:
        settings = load_settings(session, McpSettings)
        settings.servers = [McpServerEntry(name="demo", command=sys.executable, args=[str(DEMO)],
                                           ask_tools=["add"])]
        save_settings(session, settings)


@pytest.fixture
def tool_chat(qtbot, service, server):
    from companion_desktop.ui.chat.backend import ChatBackend
    from companion_desktop.ui.chat.window import ChatWindow

    use_server(service, server)
    configure_demo(service)
    tools = ToolAccess(service.db)
    backend = ChatBackend(service, lambda: T0, tools=tools)
    backend.connect()
    window = ChatWindow(service, lambda: T0, backend)
    qtbot.addWidget(window)
    window.show()
    yield window
    window.shutdown()
    tools.close()


def ask_and_answer(window, qtbot, server, button: str) -> str:
    server.scripts += [ToolCallScript([("call_1", "demo__add", {"a": 19, "b": 23})]),
                       Script(reply_with_block("That makes 42!"))]
    window.input.setPlainText("What is 19 + 23?")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(window.transcript.notices("ask")), timeout=20000)
    notice = window.transcript.notices("ask")[0]
    assert ("add" in notice.label.text() and "demo" in notice.label.text()
            and '"a": 19' in notice.text())
    assert "not reviewed" in notice.label.text()  # every tool asks until the user reviews it
    assert window.busy  # the turn waits for the answer
    qtbot.mouseClick(notice.buttons[button], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not window.busy and window.pending is None, timeout=20000)
    tool_messages = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_messages and tool_messages[0]["tool_call_id"] == "call_1"
    return tool_messages[0]["content"]


def test_allowed_tool_runs_and_she_answers(tool_chat, qtbot, server):
    result = ask_and_answer(tool_chat, qtbot, server, "Allow")
    assert result == "42"
    texts = [b.text() for b in tool_chat.transcript.bubbles()]
    assert "Let me work that out.\n\nThat makes 42!" in texts  # both rounds' words, in order
    offered = json.dumps(server.requests[0]["tools"])
    assert ("demo__add" in offered
            and "mcp_tool_security" in server.requests[0]["messages"][0]["content"])
    assert "allowed" in tool_chat.transcript.notices("ask")[0].label.text()


def test_denied_tool_does_not_run(tool_chat, qtbot, server):
    result = ask_and_answer(tool_chat, qtbot, server, "Deny")
    assert "declined" in result and "42" not in result
    assert any(t.endswith("That makes 42!")
               for t in (b.text() for b in tool_chat.transcript.bubbles()))


def test_stop_while_waiting_expires_the_question(tool_chat, qtbot, server):
    server.scripts += [ToolCallScript([("call_1", "demo__add", {"a": 1, "b": 2})])]
    tool_chat.input.setPlainText("add 1 and 2")
    qtbot.keyClick(tool_chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: bool(tool_chat.transcript.notices("ask")), timeout=20000)
    tool_chat.stop()
    qtbot.waitUntil(lambda: not tool_chat.busy, timeout=10000)
    notice = tool_chat.transcript.notices("ask")[0]
    qtbot.waitUntil(lambda: not notice.buttons["Allow"].isEnabled(), timeout=5000)
    assert len(server.requests) == 1  # nothing ran, nothing more was asked


@pytest.mark.gl
@pytest.mark.skipif(not os.environ.get("DISPLAY"),
                    reason="needs an X display (Xvfb) for OpenGL windows")
def test_a_question_from_the_overlay_brings_up_the_chat(desktop, qtbot, server, service):
    configure_demo(service)
    tools = ToolAccess(service.db)
    desktop.backend.runner.tools = tools
    chat = desktop.chat
    chat.hide()
    server.scripts += [ToolCallScript([("call_1", "demo__add", {"a": 2, "b": 2})]),
                       Script(reply_with_block("Four!"))]
    try:
        assert desktop.send("what's 2 + 2?")
        qtbot.waitUntil(lambda: bool(chat.transcript.notices("ask")), timeout=20000)
        assert chat.isVisible()
        assert "May I use add?" in desktop.overlay.bubble.label.text()
        qtbot.mouseClick(chat.transcript.notices("ask")[0].buttons["Allow"],
                         Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=20000)
        assert "Four!" in desktop.overlay.bubble.label.text()
    finally:
        tools.close()
