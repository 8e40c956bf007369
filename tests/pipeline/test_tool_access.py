"""Which MCP tools a turn gets: the enabled servers of Settings > Tools, listed through the
real hub and the demo server; a broken server or hub never stops the turn."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from companion_desktop.llm.mcp_client import McpHub
from companion_desktop.pipeline.tool_access import ToolAccess
from companion_desktop.pipeline.tools import tool_fingerprint
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    ToolReview,
    load_settings,
    save_settings,
)

DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"
LEAKY = Path(__file__).resolve().parents[1] / "mcp_servers" / "leaky_server.py"


@pytest.fixture
def db(tmp_path):
    database = Database.open(tmp_path / "data")
    yield database
    database.close()


def configure(db, *entries: McpServerEntry) -> None:
    with db.session() as session:
        settings = load_settings(session, McpSettings)
        settings.servers = list(entries)
        save_settings(session, settings)


def demo(**kw) -> McpServerEntry:
    return McpServerEntry(name=kw.pop("name", "demo"), command=sys.executable,
                          args=[str(DEMO)], **kw)


def test_no_enabled_server_means_no_tools(db):
    access = ToolAccess(db)
    assert access() is None
    configure(db, demo(enabled=False))
    assert access() is None
    access.close()


def test_enabled_server_tools_ask_unless_reviewed(db):
    configure(db, demo(ask_tools=["add"]))  # settings from before reviews: "add" ticked
    access = ToolAccess(db)
    try:
        first = access()
        assert first is not None
        names = {spec.name for spec in first.toolbox.specs}
        assert {"demo__add", "demo__echo"} <= names
        add, echo = first.toolbox.resolve("demo__add"), first.toolbox.resolve("demo__echo")
        assert first.toolbox.needs_approval(add)  # ticked: keeps asking
        assert first.toolbox.needs_approval(echo)  # never reviewed: asks too
        configure(db, demo())
        assert access().toolbox.needs_approval(add)
        assert access().hub is first.hub  # one hub, servers stay connected
    finally:
        access.close()


def test_a_reviewed_and_allowed_tool_runs_without_asking(db):
    access = ToolAccess(db)
    try:
        configure(db, demo())
        add = access().toolbox.resolve("demo__add")
        configure(db, demo(reviews={"add": ToolReview(choice="allow",
                                                      fingerprint=tool_fingerprint(add))}))
        assert not access().toolbox.needs_approval(add)  # the switch changes without a new listing
    finally:
        access.close()


def test_a_broken_server_leaves_the_others_and_a_broken_hub_leaves_the_turn(db):
    configure(db, demo(), McpServerEntry(name="gone", command="/nonexistent/server"))
    access = ToolAccess(db)
    try:
        toolset = access()
        assert toolset is not None and "gone" in toolset.toolbox.errors
    finally:
        access.close()

    class Broken(McpHub):
        def list_tools(self, timeout: float = 20.0):
            raise RuntimeError("the hub fell over")

    broken = ToolAccess(db, hub_factory=Broken)
    try:
        assert broken() is None
    finally:
        broken.close()


def test_the_log_of_a_failed_listing_never_quotes_a_secret(db, caplog):
    caplog.set_level(logging.DEBUG)
    token = "sk-live-7Hq2Zr9Wm4Kd"
    configure(db, McpServerEntry(name="leaky", command=sys.executable,
                                 args=[str(LEAKY), "--crash"], env_names=["LEAK_TOKEN"]))
    access = ToolAccess(db, secrets=lambda server, kind, name: token)
    try:
        assert access() is None  # no tools this turn; the turn goes on
    finally:
        access.close()
    assert "It said: token *** refused" in caplog.text
    assert token not in caplog.text and "\x1b" not in caplog.text and "\u202e" not in caplog.text
