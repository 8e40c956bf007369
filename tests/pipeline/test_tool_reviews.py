"""Tool approval follows the user's reviews: a real MCP server (stdio) that gains a tool
and changes another between versions; only a tool reviewed and allowed as it is now runs
without asking. Settings from before reviews keep asking for the ticked tools."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from companion_desktop.llm.base import ChatMessage, ToolCall
from companion_desktop.llm.mcp_client import McpHub, McpServerConfig
from companion_desktop.pipeline.tools import (
    DECLINED,
    NOT_REVIEWED,
    ApprovalRequest,
    Toolbox,
    run_tool_rounds,
    tool_fingerprint,
)
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    ToolReview,
    load_settings,
    save_settings,
)
from tests.pipeline.test_tool_rounds import RoundScript

SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "changing_server.py"


def listing(version: int):
    config = McpServerConfig("files", "stdio", command=sys.executable,
                             args=(str(SERVER), "--version", str(version)))
    with McpHub([config], connect_timeout=10) as hub:
        return hub.list_tools()


@pytest.fixture(scope="module")
def v1():
    return listing(1)


@pytest.fixture(scope="module")
def v2():
    return listing(2)


@pytest.fixture
def db(tmp_path):
    database = Database.open(tmp_path / "data")
    yield database
    database.close()


def review_all(db, tools, choice="allow") -> McpServerEntry:
    """The user reviews every listed tool (Settings > Tools); stored and read back."""
    entry = McpServerEntry(name="files", command=sys.executable, args=[str(SERVER)], reviews={
        t.name: ToolReview(choice=choice, fingerprint=tool_fingerprint(t)) for t in tools})
    with db.session() as session:
        save_settings(session, McpSettings(servers=[entry]))
    with db.read_session() as session:
        return load_settings(session, McpSettings).servers[0]


def ask_log(toolbox: Toolbox, calls: list[ToolCall], hub_listing_version: int):
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return False

    config = McpServerConfig("files", "stdio", command=sys.executable,
                             args=(str(SERVER), "--version", str(hub_listing_version)))
    with McpHub([config], connect_timeout=10) as hub:
        result = run_tool_rounds(RoundScript([calls, ["done"]]), "system",
                                 [ChatMessage("user", "go")], toolbox, hub=hub,
                                 context_window=8192, approve=approve)
    return asked, result


def test_a_new_tool_and_a_changed_tool_ask_after_the_server_updates(db, v1, v2):
    entry = review_all(db, v1["files"])  # add and echo reviewed and allowed (version 1)
    before = Toolbox.build(v1, {"files": entry.reviews})
    assert not any(before.needs_approval(t) for t in before.tools.values())
    after = Toolbox.build(v2, {"files": entry.reviews})  # the server updated
    states = {name: state for (_server, name), state in after.states.items()}
    assert states == {"add": "allow", "echo": "changed", "wipe": "new"}
    calls = [ToolCall("c1", "files__wipe", {"path": "/home"}),
             ToolCall("c2", "files__echo", {"text": "hi"}),
             ToolCall("c3", "files__add", {"a": 1, "b": 2})]
    asked, result = ask_log(after, calls, 2)
    assert [(r.tool, r.note) for r in asked] == [("wipe", NOT_REVIEWED["new"]),
                                               ("echo", NOT_REVIEWED["changed"])]
    assert asked[0].description == "Pretend to delete a file (nothing is deleted)."
    contents = [r.content for _call, r in result.calls]
    assert contents == [DECLINED, DECLINED, "3"]  # only the unchanged, allowed tool ran


def test_a_renamed_tool_is_not_reviewed(v1):
    (add, echo) = sorted(v1["files"], key=lambda t: t.name)
    reviews = {"files": {"sum": ToolReview(choice="allow", fingerprint=tool_fingerprint(add))}}
    box = Toolbox.build(v1, reviews)  # a review under another name does not carry over
    assert box.needs_approval(add) and box.state(add) == "new"


def test_reviewed_as_ask_keeps_asking_without_a_note(db, v1):
    entry = review_all(db, v1["files"], choice="ask")
    box = Toolbox.build(v1, {"files": entry.reviews})
    asked, _result = ask_log(box, [ToolCall("c1", "files__add", {"a": 1, "b": 2})], 1)
    assert [(r.tool, r.note) for r in asked] == [("add", "")]


def test_a_plain_list_of_names_carries_no_review(v1):
    box = Toolbox.build(v1, {"files": ["add"]})  # what older callers pass
    assert all(box.needs_approval(t) for t in box.tools.values())


def stored_raw(db, raw: str) -> McpServerEntry:
    """``raw`` written as the settings row (as an older version left it), read back."""
    with db.session() as session:
        save_settings(session, McpSettings(servers=[]))
    with sqlite3.connect(db.path) as conn:
        conn.execute("UPDATE settings SET data = ? WHERE section = 'mcp'", (raw,))
    with db.read_session() as session:
        (entry,) = load_settings(session, McpSettings).servers
    return entry


def test_old_settings_migrate_ticked_tools_keep_asking(db, v1):
    """A settings row written before reviews ("ask_tools") loads: ticked tools ask, the
    others are not reviewed (they ask too), nothing else is lost."""
    old = ('{"servers": [{"name": "files", "command": "python", "args": ["s.py"], '
           '"enabled": true, "ask_tools": ["echo"]}]}')
    entry = stored_raw(db, old)
    assert (entry.name, entry.args, entry.ask_tools) == ("files", ["s.py"], ["echo"])
    assert entry.reviews["echo"] == ToolReview(choice="ask", fingerprint="")
    box = Toolbox.build(v1, {"files": entry.reviews})
    assert {name: s for (_srv, name), s in box.states.items()} == {"add": "new", "echo": "new"}


def test_a_broken_review_is_dropped_not_the_servers(db):
    raw = ('{"servers": [{"name": "files", "reviews": {"add": {"choice": "always"}, '
           '"echo": {"choice": "allow", "fingerprint": "abc"}}}]}')
    entry = stored_raw(db, raw)
    assert entry.name == "files" and set(entry.reviews) == {"echo"}
