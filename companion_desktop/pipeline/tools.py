"""MCP tool rounds of a turn: offer the tools, run the calls the model makes, repeat.

Provider-neutral: a provider's ``stream_round`` yields text pieces and complete
:class:`ToolCall` objects (OpenAI-compatible, Anthropic and Gemini function calling
alike); this module runs those calls through the :class:`McpHub` and feeds the results
back. Limits: MAX_ROUNDS tool rounds, MAX_CALLS_PER_ROUND calls each, CALL_TIMEOUT_S
per call, results cut at RESULT_CHAR_LIMIT characters. History is refit to the
context window before every request (:mod:`~companion_desktop.pipeline.tool_context`,
whose names are importable from here too). Tool names, arguments and results are model or
server output: untrusted, bounded, never run without a matching configured tool; no
result given to the model carries the chat provider's API key. A tool
runs without the user's yes only when she reviewed it and allowed it, and it has not
changed since (``tool_fingerprint``); a new, renamed or changed tool asks.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from companion_desktop.engine.tool_security import tool_security_text
from companion_desktop.llm.base import (
    MAX_REPLY_CHARS,
    CancelledError,
    CancelToken,
    ChatMessage,
    Provider,
    ToolCall,
    ToolResult,
    ToolSpec,
    capped_reply,
)
from companion_desktop.llm.errors import redact
from companion_desktop.pipeline.tool_context import (  # noqa: F401 - specs_tokens re-exported
    fit_messages,
    specs_tokens,
)

if TYPE_CHECKING:  # the MCP SDK loads with the first hub, not with the turn runner
    from companion_desktop.llm.mcp_client import CallOutcome, McpServerError, McpTool

log = logging.getLogger("companion_desktop.pipeline.tools")

MAX_ROUNDS = 5
MAX_CALLS_PER_ROUND = 8
CALL_TIMEOUT_S = 15.0
RESULT_CHAR_LIMIT = 8000
#: Longest tool description sent to the model, in characters.
DESCRIPTION_LIMIT = 1024
HARDENING_ENV = "PUBLIC_MCP_PROMPT_HARDENING"

TOO_MANY = f"Too many tool calls in one round; the limit is {MAX_CALLS_PER_ROUND}."
DECLINED = "The user declined to run this tool."
INVALID_ARGUMENTS = "The arguments were not valid JSON (an object was expected); nothing was run."
HUB_CLOSED = "The tool service has shut down; nothing was run."

ToolStatus = Literal["running", "done", "declined", "failed"]
_WIRE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PLAIN_SERVER = re.compile(r"^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$")
_PLAIN_TOOL = re.compile(r"^[A-Za-z0-9_-]+$")


def wire_tool_name(server: str, tool: str) -> str:
    """The name a provider sees for ``tool`` of ``server``: ``server__tool`` when that is
    unambiguous and fits ^[A-Za-z0-9_-]{1,64}$, else a cleaned, cut prefix plus a hash of
    both names (stable across runs, distinct for distinct pairs)."""
    plain = f"{server}__{tool}"
    if _PLAIN_SERVER.match(server) and _PLAIN_TOOL.match(tool) and len(plain) <= 64:
        return plain
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:10]
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", plain).strip("_")[:53] or "tool"
    return f"{cleaned}_{digest}"


def _schema(raw: Any) -> dict[str, Any]:
    """A JSON Schema object every provider accepts (type object, with properties)."""
    schema = dict(raw) if isinstance(raw, Mapping) else {}
    if schema.get("type") != "object":
        schema = {"type": "object", "properties": {}}
    schema.setdefault("properties", {})
    return schema


def tool_fingerprint(tool: McpTool) -> str:
    """What the user reviewed of ``tool``: a hash of its name, description and input
    schema. When any of them changes the tool counts as not reviewed again."""
    data = json.dumps([tool.name, tool.description or "", tool.input_schema],
                      sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(data.encode()).hexdigest()[:32]


#: A tool's review state: "new" (never reviewed), "changed" (changed since it was
#: reviewed), or the user's choice for it as it is now ("ask", "allow").
ReviewState = Literal["new", "changed", "ask", "allow"]
NOT_REVIEWED = {"new": "You have not reviewed this tool yet.",
                "changed": "This tool has changed since you reviewed it."}


def review_state(tool: McpTool, review: Any | None) -> ReviewState:
    """``tool``'s state given the user's ``review`` of it (``storage.settings.ToolReview``:
    ``choice`` and ``fingerprint``; None when there is none)."""
    fingerprint = getattr(review, "fingerprint", "") if review is not None else ""
    if not fingerprint:
        return "new"
    if fingerprint != tool_fingerprint(tool):
        return "changed"
    return "allow" if getattr(review, "choice", "ask") == "allow" else "ask"


@dataclass(frozen=True)
class Toolbox:
    """The tools on offer this turn, by wire name; ``states`` their review state by
    (server, tool name); ``errors`` holds per-server failures. Only a tool the user
    reviewed and allowed, unchanged since, runs without asking."""

    tools: Mapping[str, McpTool] = field(default_factory=dict)
    states: Mapping[tuple[str, str], ReviewState] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        listing: Mapping[str, list[McpTool] | McpServerError],
        reviews: Mapping[str, Mapping[str, Any] | Iterable[str]] | None = None,
    ) -> Toolbox:
        """From ``McpHub.list_tools()`` and, per server, the user's reviews by tool name
        (``McpServerEntry.reviews``). A plain list of names (the old "ask before
        running" list) carries no review: then every tool of that server asks."""
        from companion_desktop.llm.mcp_client import McpServerError

        tools: dict[str, McpTool] = {}
        errors: dict[str, str] = {}
        for server, found in listing.items():
            if isinstance(found, McpServerError):
                errors[server] = found.message
                continue
            for tool in found:
                wire = wire_tool_name(tool.server, tool.name)
                if wire in tools or not _WIRE_NAME.match(wire):
                    log.warning("skipping tool %r of %r: name clash", tool.name, tool.server)
                    continue
                tools[wire] = tool
        states: dict[tuple[str, str], ReviewState] = {}
        for tool in tools.values():
            known = (reviews or {}).get(tool.server)
            review = known.get(tool.name) if isinstance(known, Mapping) else None
            states[(tool.server, tool.name)] = review_state(tool, review)
        return cls(tools, states, errors)

    @property
    def specs(self) -> list[ToolSpec]:
        """One ToolSpec per tool; descriptions start with the server's name."""
        return [
            ToolSpec(
                wire,
                f"[{tool.server}] {tool.description.strip()}".strip()[:DESCRIPTION_LIMIT],
                _schema(tool.input_schema),
            )
            for wire, tool in self.tools.items()
        ]

    def resolve(self, wire_name: str) -> McpTool | None:
        return self.tools.get(wire_name)

    def needs_approval(self, tool: McpTool) -> bool:
        return self.state(tool) != "allow"

    def state(self, tool: McpTool) -> ReviewState:
        return self.states.get((tool.server, tool.name), "new")

    def __bool__(self) -> bool:
        return bool(self.tools)


@dataclass(frozen=True)
class ApprovalRequest:
    """Asked of the user before a tool runs that is not reviewed and allowed. ``note``
    says why when it is not reviewed (``NOT_REVIEWED``); ``description`` is the tool's."""

    server: str
    tool: str
    arguments: dict[str, Any]
    note: str = ""
    description: str = ""


Approve = Callable[[ApprovalRequest], bool]


class ToolRunner(Protocol):
    """What runs a tool (McpHub does)."""

    def call_tool(
        self, server: str, name: str, arguments: Mapping[str, Any], timeout: float = ...,
        cancel: CancelToken | None = None,
    ) -> CallOutcome: ...


@dataclass
class ToolRoundsResult:
    """Her whole reply text, the tool rounds run (0..MAX_ROUNDS) and every call made."""

    text: str
    rounds: int
    calls: list[tuple[ToolCall, ToolResult]] = field(default_factory=list)


def security_layer(env: Mapping[str, str] = os.environ) -> str | None:
    """The ``<mcp_tool_security>`` body, unless PUBLIC_MCP_PROMPT_HARDENING=false."""
    if env.get(HARDENING_ENV, "").strip().lower() == "false":
        return None
    return tool_security_text()


def cut_result(text: str, limit: int = RESULT_CHAR_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[cut: {limit} of {len(text)} characters]"


@dataclass
class _Round:
    """What one turn's rounds share: the callbacks, the hub and the chat key (kept out
    of every result)."""

    toolbox: Toolbox
    hub: ToolRunner
    approve: Approve | None
    on_tool: Callable[[ToolCall, ToolStatus], None] | None
    cancel: CancelToken | None
    key: str | None = None

    def report(self, call: ToolCall, status: ToolStatus) -> None:
        if self.on_tool is not None:
            self.on_tool(call, status)

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.cancelled:
            raise CancelledError("Stopped.")

    def fail(self, call: ToolCall, text: str, status: ToolStatus = "failed") -> ToolResult:
        self.report(call, status)
        return ToolResult(call.id, call.name, text, is_error=True)

    def run(self, call: ToolCall) -> ToolResult:
        """One call: checked, approved when needed, run, its result cut to the limit."""
        args = call.arguments
        if not isinstance(args, dict) or "__invalid_arguments__" in args:
            return self.fail(call, INVALID_ARGUMENTS)
        tool = self.toolbox.resolve(call.name)
        if tool is None:
            return self.fail(call, f"There is no tool named {call.name[:80]!r}; nothing was run.")
        if self.toolbox.needs_approval(tool) and not self._approved(tool, args):
            return self.fail(call, DECLINED, "declined")
        self.report(call, "running")
        from companion_desktop.llm.mcp_client import McpHubClosed

        try:
            outcome = self.hub.call_tool(tool.server, tool.name, args, timeout=CALL_TIMEOUT_S,
                                         cancel=self.cancel)
        except McpHubClosed:
            return self.fail(call, HUB_CLOSED)
        self.report(call, "failed" if outcome.is_error else "done")
        text = cut_result(redact(outcome.text, self.key))
        return ToolResult(call.id, call.name, text, outcome.is_error)

    def _approved(self, tool: McpTool, args: dict[str, Any]) -> bool:
        if self.approve is None:
            return False
        try:
            note = NOT_REVIEWED.get(self.toolbox.state(tool), "")
            request = ApprovalRequest(tool.server, tool.name, dict(args), note,
                                      (tool.description or "").strip()[:DESCRIPTION_LIMIT])
            return bool(self.approve(request))
        except Exception:  # noqa: BLE001 - a broken prompt counts as "no"
            log.exception("the approval callback failed; the call is declined")
            return False

    def run_all(self, calls: list[ToolCall]) -> list[ToolResult]:
        results: list[ToolResult] = []
        for index, call in enumerate(calls):
            self.check_cancel()
            if index >= MAX_CALLS_PER_ROUND:
                results.append(self.fail(call, TOO_MANY))
            else:
                results.append(self.run(call))
        return results


def run_tool_rounds(
    provider: Provider,
    system: str,
    messages: list[ChatMessage],
    toolbox: Toolbox,
    *,
    hub: ToolRunner,
    context_window: int,
    approve: Approve | None = None,
    on_text: Callable[[str], None] | None = None,
    on_tool: Callable[[ToolCall, ToolStatus], None] | None = None,
    cancel: CancelToken | None = None,
) -> ToolRoundsResult:
    """Her reply to ``messages`` (history + the current user message, last), running the
    tools she calls for up to MAX_ROUNDS rounds; after that one more request without
    tools makes her answer in words. ``on_text`` gets the whole reply so far (earlier
    rounds' texts joined by a blank line). LlmError from the provider propagates;
    CancelledError when ``cancel`` is set between calls."""
    key = getattr(getattr(provider, "config", None), "api_key", None)
    state = _Round(toolbox, hub, approve, on_tool, cancel, key)
    conversation = list(messages)
    current = max(0, len(conversation) - 1)
    texts: list[str] = []
    calls_made: list[tuple[ToolCall, ToolResult]] = []
    rounds = 0
    while True:
        state.check_cancel()
        specs = toolbox.specs if rounds < MAX_ROUNDS else []
        fitted = fit_messages(system, conversation, specs, context_window, current)
        text, calls = _stream(provider, system, fitted, specs, cancel, texts, on_text)
        if text:
            texts.append(text)
        if not calls or not specs:
            return ToolRoundsResult("\n\n".join(texts), rounds, calls_made)
        rounds += 1
        results = state.run_all(calls)
        calls_made += list(zip(calls, results, strict=True))
        conversation.append(ChatMessage("assistant", text, tool_calls=tuple(calls)))
        conversation.append(ChatMessage("tool", "", tool_results=tuple(results)))


def _stream(
    provider: Provider,
    system: str,
    messages: list[ChatMessage],
    specs: list[ToolSpec],
    cancel: CancelToken | None,
    earlier: list[str],
    on_text: Callable[[str], None] | None,
) -> tuple[str, list[ToolCall]]:
    """One request: this round's text (streamed to ``on_text`` with the earlier rounds'
    texts before it; the reply as a whole stops at MAX_REPLY_CHARS) and the calls made."""
    before = "".join(f"{said}\n\n" for said in earlier)
    text = ""
    calls: list[ToolCall] = []
    stream = provider.stream_round(system, messages, specs, cancel)
    for item in capped_reply(stream, MAX_REPLY_CHARS - len(before)):
        if isinstance(item, ToolCall):
            calls.append(item)
        elif isinstance(item, str) and item:
            text += item
            if on_text is not None:
                on_text(before + text)
    return text, calls
