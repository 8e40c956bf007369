"""Tool rounds of a turn: a scripted provider against the real demo MCP server (stdio)."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_desktop.engine.context_window import CONTEXT_MIN, estimate_tokens
from companion_desktop.engine.tool_security import TOOL_SECURITY_TEXT
from companion_desktop.llm.base import (
    CancelledError,
    CancelToken,
    ChatMessage,
    LlmError,
    ProviderConfig,
    ServerError,
    ToolCall,
    ToolResult,
    ToolSpec,
)
from companion_desktop.llm.mcp_client import McpHub, McpServerConfig, McpServerError, McpTool
from companion_desktop.pipeline.tools import (
    DECLINED,
    INVALID_ARGUMENTS,
    MAX_ROUNDS,
    TOO_MANY,
    ApprovalRequest,
    Toolbox,
    fit_messages,
    run_tool_rounds,
    security_layer,
    tool_fingerprint,
    wire_tool_name,
)
from companion_desktop.storage.settings import ToolReview

DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"
WIRE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
SYSTEM = "You are Hana."

Item = str | ToolCall


@dataclass
class Request:
    system: str
    messages: list[ChatMessage]
    tools: list[ToolSpec]


@dataclass
class RoundScript:
    """A provider whose every stream_round plays the next scripted round."""

    rounds: list[list[Item] | LlmError]
    requests: list[Request] = field(default_factory=list)
    id: str = "scripted"

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[Item]:
        self.requests.append(Request(system, list(messages), list(tools)))
        step = self.rounds.pop(0) if self.rounds else ["(nothing scripted)"]
        if isinstance(step, LlmError):
            raise step
        yield from step


def call(call_id: str, tool: str, **arguments: Any) -> ToolCall:
    return ToolCall(call_id, wire_tool_name("demo", tool), arguments)


@pytest.fixture(scope="module")
def hub() -> Iterator[McpHub]:
    config = McpServerConfig("demo", "stdio", command=sys.executable, args=(str(DEMO),))
    with McpHub([config], connect_timeout=10) as shared:
        yield shared


@pytest.fixture(scope="module")
def listing(hub: McpHub) -> dict[str, list[McpTool] | McpServerError]:
    return hub.list_tools()


@pytest.fixture
def toolbox(listing) -> Toolbox:
    return Toolbox.build(listing, reviewed(listing, ask={"slow"}))


def reviewed(listing, ask=frozenset()) -> dict[str, dict[str, ToolReview]]:
    """Every demo tool reviewed as it is: allowed, except those in ``ask``."""
    return {"demo": {t.name: ToolReview(choice="ask" if t.name in ask else "allow",
                                        fingerprint=tool_fingerprint(t))
                     for t in listing["demo"]}}


@dataclass
class Recorder:
    texts: list[str] = field(default_factory=list)
    statuses: list[tuple[str, str]] = field(default_factory=list)

    def on_text(self, raw: str) -> None:
        self.texts.append(raw)

    def on_tool(self, tool_call: ToolCall, status: str) -> None:
        self.statuses.append((tool_call.id, status))


def run(provider: RoundScript, toolbox: Toolbox, hub: McpHub, rec: Recorder | None = None,
        messages: list[ChatMessage] | None = None, **options: Any):
    rec = rec or Recorder()
    return run_tool_rounds(
        provider, SYSTEM, messages or [ChatMessage("user", "What is 2 + 3?")], toolbox,
        hub=hub, context_window=options.pop("context_window", 8192),
        on_text=rec.on_text, on_tool=rec.on_tool, **options,
    )


def test_one_round_then_an_answer(toolbox: Toolbox, hub: McpHub) -> None:
    provider = RoundScript([["Let me ", "add. ", call("c1", "add", a=2, b=3)], ["It is ", "5."]])
    rec = Recorder()
    result = run(provider, toolbox, hub, rec)
    assert result.text == "Let me add. \n\nIt is 5."
    assert result.rounds == 1
    assert result.calls == [
        (call("c1", "add", a=2, b=3), ToolResult("c1", "demo__add", "5", False))
    ]
    assert rec.texts == ["Let me ", "Let me add. ", "Let me add. \n\nIt is ", result.text]
    assert rec.statuses == [("c1", "running"), ("c1", "done")]
    first, second = provider.requests
    assert {s.name for s in first.tools} >= {"demo__add", "demo__echo"}
    assert second.tools == first.tools
    assistant, tool = second.messages[-2:]
    made = (call("c1", "add", a=2, b=3),)
    assert assistant == ChatMessage("assistant", "Let me add. ", tool_calls=made)
    assert tool.role == "tool" and tool.tool_results == (ToolResult("c1", "demo__add", "5", False),)


def test_no_tool_call_means_one_request(toolbox: Toolbox, hub: McpHub) -> None:
    provider = RoundScript([["Hi there!"]])
    result = run(provider, toolbox, hub)
    assert (result.text, result.rounds, result.calls) == ("Hi there!", 0, [])
    assert len(provider.requests) == 1


def test_at_most_eight_calls_run_per_round(toolbox: Toolbox, hub: McpHub) -> None:
    calls = [call(f"c{n}", "echo", text=f"#{n}") for n in range(10)]
    provider = RoundScript([calls, ["Done."]])
    rec = Recorder()
    result = run(provider, toolbox, hub, rec)
    contents = [r.content for _c, r in result.calls]
    assert contents == [f"#{n}" for n in range(8)] + [TOO_MANY, TOO_MANY]
    assert [r.is_error for _c, r in result.calls] == [False] * 8 + [True, True]
    assert rec.statuses[-2:] == [("c8", "failed"), ("c9", "failed")]
    assert sum(1 for _id, status in rec.statuses if status == "running") == 8
    assert len(provider.requests[1].messages[-1].tool_results) == 10


def test_five_rounds_then_one_request_without_tools(toolbox: Toolbox, hub: McpHub) -> None:
    rounds: list[list[Item] | LlmError] = [
        [f"step {n}", call(f"c{n}", "add", a=n, b=1)] for n in range(MAX_ROUNDS)
    ]
    rounds.append(["All done.", call("late", "add", a=0, b=0)])  # ignored: no tools offered
    provider = RoundScript(rounds)
    result = run(provider, toolbox, hub)
    assert result.rounds == MAX_ROUNDS == 5
    assert len(provider.requests) == 6
    assert all(r.tools for r in provider.requests[:5]) and provider.requests[5].tools == []
    assert [r.content for _c, r in result.calls] == ["1", "2", "3", "4", "5"]
    assert result.text == "\n\n".join([f"step {n}" for n in range(5)] + ["All done."])
    assert len(provider.requests[5].messages) == 1 + 2 * 5


def test_approval_granted_runs_the_tool(toolbox: Toolbox, hub: McpHub) -> None:
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    provider = RoundScript([[call("c1", "slow", seconds=0)], ["ok"]])
    result = run(provider, toolbox, hub, approve=approve)
    assert asked == [ApprovalRequest("demo", "slow", {"seconds": 0}, "",
                                     "Sleep for the given seconds (at most 60), then say so.")]
    assert result.calls[0][1] == ToolResult("c1", "demo__slow", "slept 0.0 s", False)


@pytest.mark.parametrize("answer", ["no", "none", "raises"])
def test_approval_declined_or_missing(toolbox: Toolbox, hub: McpHub, answer: str) -> None:
    def approve(request: ApprovalRequest) -> bool:
        if answer == "raises":
            raise RuntimeError("dialog broke")
        return False

    provider = RoundScript([[call("c1", "slow", seconds=0), call("c2", "add", a=1, b=1)], ["ok"]])
    rec = Recorder()
    result = run(provider, toolbox, hub, rec, approve=None if answer == "none" else approve)
    assert result.calls[0][1] == ToolResult("c1", "demo__slow", DECLINED, True)
    assert result.calls[1][1].content == "2"  # tools without the switch run without asking
    assert rec.statuses == [("c1", "declined"), ("c2", "running"), ("c2", "done")]


def test_results_are_cut_at_8000_characters(toolbox: Toolbox, hub: McpHub) -> None:
    provider = RoundScript([[call("c1", "big", n=9000), call("c2", "big", n=8000)], ["ok"]])
    result = run(provider, toolbox, hub)
    cut, whole = (r.content for _c, r in result.calls)
    assert cut == "x" * 8000 + "\n[cut: 8000 of 9000 characters]"
    assert whole == "x" * 8000


def test_the_chat_key_never_reaches_the_model_in_a_tool_result(toolbox: Toolbox,
                                                               hub: McpHub) -> None:
    key = "sk-chat-SECRET-0123456789"
    provider = RoundScript([[call("c1", "echo", text=f"found {key} in ~/.config")], ["Done."]])
    provider.config = ProviderConfig("openai", "http://127.0.0.1:1/v1", "m", api_key=key)
    result = run(provider, toolbox, hub)
    assert result.calls[0][1].content == "found *** in ~/.config"
    sent = provider.requests[-1].messages[-1].tool_results
    assert [r.content for r in sent] == ["found *** in ~/.config"]


def test_invalid_unknown_and_failing_calls_get_error_results(toolbox: Toolbox, hub: McpHub) -> None:
    broken = ToolCall("c1", "demo__add", {"__invalid_arguments__": '{"a": 2,'})
    unknown = ToolCall("c2", "demo__format_disk", {})
    failing = call("c3", "fail")
    provider = RoundScript([[broken, unknown, failing], ["Sorry."]])
    rec = Recorder()
    result = run(provider, toolbox, hub, rec)
    (_, r1), (_, r2), (_, r3) = result.calls
    assert r1 == ToolResult("c1", "demo__add", INVALID_ARGUMENTS, True)
    assert r2 == ToolResult("c2", "demo__format_disk",
                            "There is no tool named 'demo__format_disk'; nothing was run.", True)
    assert r3.is_error and "failed on purpose" in r3.content
    assert rec.statuses == [("c1", "failed"), ("c2", "failed"), ("c3", "running"), ("c3", "failed")]


def test_provider_errors_propagate(toolbox: Toolbox, hub: McpHub) -> None:
    provider = RoundScript([[call("c1", "add", a=1, b=2)], ServerError("down", status=503)])
    with pytest.raises(ServerError):
        run(provider, toolbox, hub)


def test_cancel_is_checked_between_calls(toolbox: Toolbox, hub: McpHub) -> None:
    cancel = CancelToken()
    rec = Recorder()

    def on_tool(tool_call: ToolCall, status: str) -> None:
        rec.on_tool(tool_call, status)
        if status == "done":
            cancel.cancel()

    provider = RoundScript([[call("c1", "add", a=1, b=2), call("c2", "add", a=3, b=4)], ["x"]])
    with pytest.raises(CancelledError):
        run_tool_rounds(provider, SYSTEM, [ChatMessage("user", "go")], toolbox, hub=hub,
                        context_window=8192, on_tool=on_tool, cancel=cancel)
    assert rec.statuses == [("c1", "running"), ("c1", "done")]
    assert len(provider.requests) == 1


def test_history_is_refit_before_every_round(toolbox: Toolbox, hub: McpHub) -> None:
    old = [ChatMessage("user" if n % 2 == 0 else "assistant", f"old {n} " + "y" * 1600)
           for n in range(12)]  # about 400 tokens each
    current = ChatMessage("user", "Now add 2 and 3, please.")
    provider = RoundScript([[call("c1", "big", n=3000)], ["Here."]])
    run(provider, toolbox, hub, messages=[*old, current], context_window=CONTEXT_MIN * 3)
    first, second = provider.requests
    assert first.system == second.system == SYSTEM
    for request in (first, second):
        assert request.messages[0].role == "user"
        assert request.messages[0].content != old[0].content
        kept_history = request.messages[: request.messages.index(current)]
        assert kept_history == old[len(old) - len(kept_history):]  # the newest, in order
        assert current in request.messages
        total = estimate_tokens(SYSTEM) + sum(estimate_tokens(m.content) for m in request.messages)
        total += sum(estimate_tokens(r.content) for m in request.messages for r in m.tool_results)
        assert total + 500 <= CONTEXT_MIN * 3
    assert second.messages[-2].tool_calls and second.messages[-1].tool_results
    assert len(second.messages) < len(first.messages) + 2  # the big result pushed history out


def test_fit_keeps_current_message_and_tool_exchange_even_when_too_big() -> None:
    history = [
        ChatMessage("user", "old question"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("t1", "demo__echo", {"text": "a"}),)),
        ChatMessage("tool", "", tool_results=(ToolResult("t1", "demo__echo", "a" * 4000),)),
        ChatMessage("assistant", "old answer"),
        ChatMessage("user", "middle question"),
        ChatMessage("assistant", "middle answer"),
    ]
    current = ChatMessage("user", "z" * 6000)
    exchange = [
        ChatMessage("assistant", "", tool_calls=(ToolCall("t2", "demo__echo", {"text": "b"}),)),
        ChatMessage("tool", "", tool_results=(ToolResult("t2", "demo__echo", "b" * 3000),)),
    ]
    messages = [*history, current, *exchange]
    fitted = fit_messages(SYSTEM, messages, [], 2780, current=len(history))
    middle = [ChatMessage("user", "middle question"), ChatMessage("assistant", "middle answer")]
    assert fitted == [*middle, current, *exchange]  # "old answer" fit, but led with no user
    assert fit_messages(SYSTEM, messages, [], 1024, current=len(history)) == [current, *exchange]
    assert fit_messages(SYSTEM, messages, [], 100_000, current=len(history)) == messages
    # the default current message is the last user message
    assert fit_messages(SYSTEM, messages, [], 2780) == fitted


def test_tool_schemas_count_against_the_window() -> None:
    history = [ChatMessage("user", "q" * 800), ChatMessage("assistant", "a" * 800)]
    current = ChatMessage("user", "now")
    spec = ToolSpec("demo__big", "d" * 2000, {"type": "object", "properties": {}})
    window = 1024
    assert fit_messages(SYSTEM, [*history, current], [], window) == [*history, current]
    assert fit_messages(SYSTEM, [*history, current], [spec], window) == [current]


def test_security_layer_switch() -> None:
    assert security_layer({}) == TOOL_SECURITY_TEXT
    assert "untrusted" in TOOL_SECURITY_TEXT and "system prompt" in TOOL_SECURITY_TEXT
    assert security_layer({"PUBLIC_MCP_PROMPT_HARDENING": "true"}) == TOOL_SECURITY_TEXT
    assert security_layer({"PUBLIC_MCP_PROMPT_HARDENING": " FALSE "}) is None
    assert security_layer({"PUBLIC_MCP_PROMPT_HARDENING": "0"}) == TOOL_SECURITY_TEXT


def test_toolbox_specs_errors_and_empty(listing) -> None:
    broken = McpServerError("broken", "It is down.")
    box = Toolbox.build({**listing, "broken": broken}, reviewed(listing, ask={"add"}))
    add = box.resolve("demo__add")
    assert add is not None and add.name == "add" and box.needs_approval(add)
    assert not box.needs_approval(box.resolve("demo__echo"))  # type: ignore[arg-type]
    spec = next(s for s in box.specs if s.name == "demo__add")
    assert spec.description == "[demo] Add two integers."
    assert spec.parameters["type"] == "object" and set(spec.parameters["properties"]) == {"a", "b"}
    assert box.errors == {"broken": "It is down."}
    assert box.resolve("demo__nothing") is None
    empty = Toolbox.build({})
    assert not empty and empty.specs == []
    odd = Toolbox.build({"s": [McpTool("s", "t", "x" * 5000, {"type": "string"})]})
    (odd_spec,) = odd.specs
    assert len(odd_spec.description) == 1024
    assert odd_spec.parameters == {"type": "object", "properties": {}}


def test_wire_names_are_valid_stable_and_distinct() -> None:
    assert wire_tool_name("demo", "add") == "demo__add"
    assert wire_tool_name("my-files", "read_file") == "my-files__read_file"
    pairs = [("a__b", "c"), ("a", "b__c"), ("a b", "c"), ("a_b", "c"), ("a_", "_b"), ("a", "__b"),
             ("Home Assistant", "light.turn_on"), ("x" * 70, "y"), ("x" * 70, "z"),
             ("日本", "検索")]
    names = [wire_tool_name(server, tool) for server, tool in pairs]
    assert all(WIRE.match(name) for name in names)
    assert len(set(names)) == len(names)
    assert names == [wire_tool_name(server, tool) for server, tool in pairs]


@given(st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=80),
       st.text(min_size=1, max_size=80), st.text(min_size=1, max_size=80))
def test_wire_names_property(s1: str, t1: str, s2: str, t2: str) -> None:
    first, second = wire_tool_name(s1, t1), wire_tool_name(s2, t2)
    assert WIRE.match(first) and WIRE.match(second)
    if (s1, t1) != (s2, t2):
        assert first != second
