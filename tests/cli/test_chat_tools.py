"""MCP tool rounds end to end: ``chat`` against a real provider wire format on
127.0.0.1 and a real MCP server process (the tests' demo server over stdio)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from companion_desktop.llm.mcp_client import McpHub, config_from_entry
from companion_desktop.pipeline.tools import tool_fingerprint
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    McpServerEntry,
    McpSettings,
    ToolReview,
    load_settings,
    save_settings,
)
from tests.cli.test_chat_cli import BLOCK, chat, chunks, server  # noqa: F401 - fixture
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import (
    anthropic_stream,
    anthropic_tool_use_events,
    gemini_function_call_stream,
    gemini_stream,
    openai_stream,
    openai_tool_call_events,
)

DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"


def configure(data_dir: Path, enabled: bool = True, allow: bool = True) -> None:
    """The demo server on Settings > Tools; ``allow``: its tools reviewed as the user would,
    "Allow without asking" with the fingerprint of the tool as the server offers it."""
    entry = McpServerEntry(name="demo", transport="stdio", command=sys.executable, args=[str(DEMO)],
                           enabled=enabled)
    if allow:
        hub = McpHub([config_from_entry(entry, lambda *_: None)])
        try:
            tools = hub.list_tools(timeout=20.0)["demo"]
        finally:
            hub.close()
        entry.reviews = {t.name: ToolReview(choice="allow", fingerprint=tool_fingerprint(t))
                         for t in tools}
    db = Database.open(data_dir)
    try:
        with db.session() as session:
            settings = load_settings(session, McpSettings)
            settings.servers = [entry]
            save_settings(session, settings)
    finally:
        db.close()


WIRES = {
    "openai": (["--provider", "openai-compatible", "--model", "test-model"], "/v1",
               "/v1/chat/completions",
               lambda calls: openai_tool_call_events(calls, texts=["Let me add that up. "]),
               openai_stream),
    "anthropic": (["--provider", "anthropic", "--model", "claude-test"], "/v1", "/v1/messages",
                  lambda calls: anthropic_tool_use_events(calls, texts=["Let me add that up. "]),
                  anthropic_stream),
    "google": (["--provider", "google", "--model", "gemini-test"], "/v1beta",
               "/v1beta/models/gemini-test:streamGenerateContent",
               lambda calls: gemini_function_call_stream(calls, texts=["Let me add that up. "]),
               gemini_stream),
}


def tool_results_sent(kind: str, body: dict) -> str:
    """The tool result text in the second request, wherever the wire format puts it."""
    if kind == "openai":
        return next(m["content"] for m in body["messages"] if m["role"] == "tool")
    if kind == "anthropic":
        blocks = [b for m in body["messages"] if isinstance(m["content"], list)
                  for b in m["content"]]
        result = next(b for b in blocks if b["type"] == "tool_result")
        content = result["content"]
        return content if isinstance(content, str) else "".join(c.get("text", "") for c in content)
    parts = [p for c in body["contents"] for p in c["parts"]]
    return json.dumps(
        next(p for p in parts if "functionResponse" in p)["functionResponse"]["response"])


@pytest.mark.parametrize("kind", sorted(WIRES))
def test_tool_round_through_a_real_mcp_server(server, tmp_path, kind):
    args, root, path, call_events, text_stream = WIRES[kind]
    configure(tmp_path)
    tool = "demo__add"
    server.on("POST", path, StreamReply(call_events([("call_1", tool, {"a": 19, "b": 23})])),
              StreamReply(text_stream(chunks("It comes to 42!\n" + BLOCK))))
    proc = chat(tmp_path, *args, "--base-url", server.url + root,
                "--message", "What is 19 + 23?", "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert turn["reply"].endswith("It comes to 42!")
    assert turn["toolCalls"] == [{"tool": tool, "arguments": {"a": 19, "b": 23}, "error": False,
                                  "result": "42"}]
    first, second = server.requests_to(path)[:2]  # (a third may write the first-meeting scene)
    offered = json.dumps(first.json.get("tools"))
    assert tool in offered and "demo__echo" in offered
    system = json.dumps(first.json)
    assert "mcp_tool_security" in system
    assert "42" in tool_results_sent(kind, second.json)


def test_a_tool_nobody_reviewed_is_not_run_headless(server, tmp_path):
    """``chat`` has no one to ask: a tool the user never reviewed is declined, and the
    model hears so (the demo server's add never runs)."""
    configure(tmp_path, allow=False)
    path = "/v1/chat/completions"
    server.on("POST", path,
              StreamReply(openai_tool_call_events([("call_1", "demo__add", {"a": 19, "b": 23})],
                                                  texts=["Let me add that up. "])),
              StreamReply(openai_stream(chunks("I could not add it.\n" + BLOCK))))
    proc = chat(tmp_path, "--provider", "openai-compatible", "--model", "m",
                "--base-url", server.url + "/v1", "--message", "What is 19 + 23?", "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert turn["toolCalls"][0]["error"] is True and "declined" in turn["toolCalls"][0]["result"]
    assert "42" not in tool_results_sent("openai", server.requests_to(path)[1].json)


def test_disabled_server_offers_no_tools(server, tmp_path):
    configure(tmp_path, enabled=False, allow=False)
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks("Hi!\n" + BLOCK))))
    proc = chat(tmp_path, "--provider", "openai-compatible", "--model", "m",
                "--base-url", server.url + "/v1", "--message", "hello", "--json")
    assert proc.returncode == 0, proc.stderr
    body = server.requests_to("/v1/chat/completions")[0].json
    assert "tools" not in body and "mcp_tool_security" not in json.dumps(body)


def test_security_block_can_be_opted_out(server, tmp_path, monkeypatch):
    configure(tmp_path)
    monkeypatch.setitem(__import__("tests.cli.test_chat_cli", fromlist=["ENV"]).ENV,
                        "PUBLIC_MCP_PROMPT_HARDENING", "false")
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks("Hi!\n" + BLOCK))))
    proc = chat(tmp_path, "--provider", "openai-compatible", "--model", "m",
                "--base-url", server.url + "/v1", "--message", "hello", "--json")
    assert proc.returncode == 0, proc.stderr
    body = server.requests_to("/v1/chat/completions")[0].json
    assert "tools" in body and "mcp_tool_security" not in json.dumps(body)
