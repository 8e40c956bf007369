"""Settings > Tools over a real database, a real demo MCP server (stdio) and a keyring."""

from __future__ import annotations

import shlex
import sqlite3
import sys
from pathlib import Path

import pytest

from companion_desktop.pipeline.tools import tool_fingerprint
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.settings.llm_page import SettingsProblem
from companion_desktop.ui.settings.tools.page import MASK, McpPage, ServerEditor, parse_pairs

pytestmark = pytest.mark.qt

DEMO = Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py"
SECRET = "tok-DO-NOT-STORE-3141"
LIST_WAIT_MS = 30_000


@pytest.fixture
def page(qtbot, service):
    widget = McpPage(service)
    widget.confirm = lambda _text: True
    qtbot.addWidget(widget)
    widget.show()
    return widget


def fill(**fields: str):
    """An ``edit_dialog`` that types ``fields`` into the real editor and presses OK."""

    def run(editor: ServerEditor) -> bool:
        if "transport" in fields:
            editor.transport.setCurrentIndex(editor.transport.findData(fields["transport"]))
        for name in ("name", "command", "args", "url"):
            if name in fields:
                getattr(editor, name).setText(fields[name])
        for name in ("env", "headers"):
            if name in fields:
                getattr(editor, name).setPlainText(fields[name])
        editor.accept()
        run.editor = editor  # type: ignore[attr-defined]
        return editor.result() == ServerEditor.DialogCode.Accepted

    return run


def add_demo(page: McpPage, name: str = "demo", command: str = sys.executable) -> bool:
    page.edit_dialog = fill(name=name, command=command, args=shlex.join([str(DEMO)]),
                            env=f"DEMO_TOKEN={SECRET}\nLANGUAGE=en")
    return page.add_server()


def stored(service) -> McpSettings:
    with service.db.read_session() as session:
        return load_settings(session, McpSettings)


def settings_row(service) -> str:
    with sqlite3.connect(service.db.path) as conn:
        return conn.execute("SELECT data FROM settings WHERE section = 'mcp'").fetchone()[0]


def test_add_list_tools_review_and_save(page, service, memory_keyring, qtbot):
    assert add_demo(page)
    assert page.row(0).name.text() == "demo" and "stdio" in page.row(0).kind.text()
    page.list_tools()
    assert "Connecting" in page.status_line.text() and page.busy.isVisibleTo(page)
    qtbot.waitUntil(lambda: bool(page.tool_rows()), timeout=LIST_WAIT_MS)
    rows = page.tool_rows()
    assert {"add", "echo", "slow", "big", "fail"} <= set(rows)
    assert not page.busy.isVisibleTo(page) and page.row(0).state.text() == f"{len(rows)} tools"
    texts = [label.text() for label in page.findChildren(type(page.tools_title), "mcpToolText")]
    assert any("echo" in t and "Return the text unchanged." in t for t in texts)
    # nothing reviewed yet: every tool says it asks
    assert all(r.state.text() == "Not reviewed: asks each time" for r in rows.values())
    assert rows["echo"].choice.currentText() == "Not reviewed: asks each time"
    rows["echo"].set_choice("allow")
    rows["add"].set_choice("allow")
    rows["add"].set_choice("ask")
    assert rows["add"].state.text() == "Reviewed"
    assert rows["add"].choice.currentText() == "Ask each time"
    assert rows["add"].choice.count() == 2  # the "not reviewed" item is gone
    page.check()
    page.apply()
    server = stored(service).servers[0]
    assert (server.name, server.transport, server.command) == ("demo", "stdio", sys.executable)
    assert server.args == [str(DEMO)]
    assert {n: r.choice for n, r in server.reviews.items()} == {"echo": "allow", "add": "ask"}
    assert server.reviews["echo"].fingerprint == tool_fingerprint(rows["echo"].tool)
    assert server.env_names == ["DEMO_TOKEN", "LANGUAGE"] and server.enabled
    assert memory_keyring.store[("companion-desktop", "mcp:demo:env:DEMO_TOKEN")] == SECRET
    assert SECRET not in settings_row(service)
    assert SECRET.encode() not in service.db.path.read_bytes()


def test_editing_masks_values_and_keeps_or_replaces_them(page, service, memory_keyring):
    add_demo(page)
    page.apply()
    page.reload()
    page.edit_dialog = fill(name="demo")  # OK without touching anything
    assert page.edit()
    editor = page.edit_dialog.editor  # type: ignore[attr-defined]
    assert editor.env.toPlainText() == f"DEMO_TOKEN={MASK}\nLANGUAGE={MASK}"
    assert SECRET not in editor.env.toPlainText()
    assert editor.args.text() == shlex.join([str(DEMO)])
    page.apply()
    assert memory_keyring.store[("companion-desktop", "mcp:demo:env:DEMO_TOKEN")] == SECRET
    page.edit_dialog = fill(name="renamed", env=f"DEMO_TOKEN={MASK}\nLANGUAGE=fr")
    assert page.edit()
    assert page.selected().config().env == {"DEMO_TOKEN": SECRET, "LANGUAGE": "fr"}
    page.apply()
    assert memory_keyring.store == {
        ("companion-desktop", "mcp:renamed:env:DEMO_TOKEN"): SECRET,
        ("companion-desktop", "mcp:renamed:env:LANGUAGE"): "fr"}
    assert [s.name for s in stored(service).servers] == ["renamed"]


def test_a_bad_command_shows_the_servers_error(page, memory_keyring, qtbot):
    add_demo(page, name="broken", command="/no/such/mcp-server-program")
    page.list_tools()
    qtbot.waitUntil(lambda: page.status_line.property("kind") == "error", timeout=LIST_WAIT_MS)
    text = page.status_line.text()
    assert "broken" in text and "/no/such/mcp-server-program" in text and "not found" in text
    assert page.row(0).state.text() == "error" and not page.tool_rows()
    assert page.list_button.isEnabled() and not page.busy.isVisibleTo(page)


def test_remove_deletes_the_server_and_its_secrets(page, service, memory_keyring):
    add_demo(page)
    page.apply()
    assert memory_keyring.store
    assert page.remove()
    assert page.server_list.count() == 0 and not page.edit_button.isEnabled()
    page.apply()
    assert stored(service).servers == [] and memory_keyring.store == {}


def test_http_server_and_validation(page, service, memory_keyring):
    page.edit_dialog = fill(name="web", transport="http", url="ftp://example.com/mcp")
    assert not page.add_server()
    editor = page.edit_dialog.editor  # type: ignore[attr-defined]
    assert "http:// or https://" in editor.problem.text()
    assert not editor.command.isVisibleTo(editor) and editor.url.isVisibleTo(editor)
    page.edit_dialog = fill(name="web", transport="http", url="https://example.com/mcp",
                            headers="Authorization: Bearer abc")
    assert page.add_server()
    page.edit_dialog = fill(name="web", command="x")
    assert not page.add_server()  # the name is taken
    editor = page.edit_dialog.editor  # type: ignore[attr-defined]
    assert "already a server called web" in editor.problem.text()
    page.row(0).enabled.setChecked(False)
    page.apply()
    server = stored(service).servers[0]
    assert (server.transport, server.url, server.header_names, server.enabled) == (
        "http", "https://example.com/mcp", ["Authorization"], False)
    assert memory_keyring.store[("companion-desktop", "mcp:web:header:Authorization")] \
        == "Bearer abc"


def test_save_refuses_a_server_without_command(service, qtbot):
    with service.db.session() as session:
        save_settings(session, McpSettings(servers=[McpServerEntry(name="empty")]))
    page = McpPage(service)
    qtbot.addWidget(page)
    with pytest.raises(SettingsProblem, match="enter the program to run"):
        page.check()


def test_parse_pairs_messages():
    assert parse_pairs("A=1\n\n B = two words ", "env", []) == (["A", "B"],
                                                               {"A": "1", "B": "two words"})
    assert parse_pairs(f"A={MASK}", "env", ["A"]) == (["A"], {})
    for text, message in (("1A=x", "not NAME=value"), ("A=1\nA=2", "twice"),
                          (f"A={MASK}", "needs a value"), ("A=", "needs a value")):
        with pytest.raises(ValueError, match=message):
            parse_pairs(text, "env", [])
    with pytest.raises(ValueError, match="Name: value"):
        parse_pairs("no colon here", "header", [])
