"""Quitting the real app (a subprocess) during each phase ends within 3 s with exit
code 0: no running thread destroyed ("QThread: Destroyed ...", exit 134), the
database intact. SIGTERM quits like her menu's Quit. Turns are typed into the chat
window (``quit_driver``) and answered by a model server on 127.0.0.1."""

from __future__ import annotations

import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from companion_desktop.storage.backup import REASON_DAILY, list_backups
from companion_desktop.storage.db import Database
from companion_desktop.storage.reminders import add_reminder
from companion_desktop.storage.settings import (
    LlmSettings,
    McpServerEntry,
    McpSettings,
    save_settings,
)
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import openai_tool_call_events
from tests.ui.app_process import AppProcess, integrity
from tests.ui.scripted_provider import Script, ScriptedServer

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display"),
              pytest.mark.slow]
DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"
LEFT = "quit while still running"


def prepare(data: Path, server: ScriptedServer, reminder: bool = False,
            tools: bool = False) -> None:
    """A data folder whose model is ``server`` (optionally a reminder due now)."""
    now = datetime.now().astimezone()
    with Database.open(data) as db, db.session() as session:
        save_settings(session, LlmSettings(provider="openai-compatible",
                                           base_url=server.base_url, model="tiny-model"))
        if tools:
            save_settings(session, McpSettings(servers=[McpServerEntry(
                name="demo", command=sys.executable, args=[str(DEMO)])]))
        if reminder:
            add_reminder(session, now - timedelta(minutes=1), "stretch", now, None)


class _Endless(Script):
    """A reply that streams one word a second for a minute."""

    def reply(self):  # noqa: ANN201
        return StreamReply(Script(chunks=["la "] * 60).reply().chunks, delay_s=1.0)


def test_sigterm_while_idle_quits_cleanly(tmp_path):
    app = AppProcess(tmp_path / "data", tmp_path / "run")
    try:
        app.wait_shown()
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    assert integrity(tmp_path / "data") == "ok"
    daily = [b for b in list_backups(tmp_path / "data") if b.reason == REASON_DAILY]
    assert len(daily) == 1  # the start made the day's backup, whole (read back from its manifest)


@pytest.mark.parametrize("how", ["sigint", "sighup"])
def test_sigint_and_sighup_quit_like_sigterm(tmp_path, how):
    """Ctrl+C in the terminal that started her, or that terminal closing."""
    app = AppProcess(tmp_path / "data", tmp_path / "run")
    try:
        app.wait_shown()
        assert app.quit(how) < 3.0
    finally:
        app.kill()
    assert integrity(tmp_path / "data") == "ok"


@pytest.mark.parametrize("how", ["sigterm", "menu"])
def test_quit_while_her_reply_streams(tmp_path, how):
    with ScriptedServer() as server:
        server.default = _Endless()
        prepare(tmp_path / "data", server)
        app = AppProcess(tmp_path / "data", tmp_path / "run", quit_flag=True, send="hello")
        try:
            app.wait_shown()
            app.wait_for(lambda: server.requests, what="her reply's request")
            time.sleep(1.0)  # a few words streamed
            assert app.quit(how) < 3.0
        finally:
            app.kill()
        assert LEFT not in app.output()  # the stream honoured the cancel token
    assert integrity(tmp_path / "data") == "ok"


def test_quit_while_a_tool_runs(tmp_path):
    """The model asks for the demo server's slow tool (30 s); she quits during it."""
    with ScriptedServer() as server:
        call = ("c1", "demo__slow", {"seconds": 30})
        server.scripts.append(_ToolCall([call]))
        prepare(tmp_path / "data", server, tools=True)
        app = AppProcess(tmp_path / "data", tmp_path / "run", send="sleep a while")
        try:
            app.wait_shown()
            app.wait_for(lambda: len(server.requests) >= 1, what="the tool call")
            time.sleep(2.0)  # the demo server started and the call is under way
            assert app.quit("sigterm") < 3.0
        finally:
            app.kill()
        assert LEFT not in app.output()
    assert integrity(tmp_path / "data") == "ok"


class _ToolCall(Script):
    def __init__(self, calls) -> None:  # noqa: ANN001
        super().__init__()
        self.calls = calls

    def reply(self):  # noqa: ANN201
        return StreamReply(openai_tool_call_events(self.calls))
