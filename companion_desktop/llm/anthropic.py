"""Anthropic's Messages API over httpx.

``POST {base_url}/messages`` with ``x-api-key`` and ``anthropic-version``; the system
prompt is a top-level field. Streaming is an event stream: ``message_start``,
``content_block_start``/``_delta``/``_stop``, ``message_delta``, ``message_stop``,
``ping`` and ``error``. Only ``text_delta`` deltas are text; thinking is ignored.

A tool call is a ``tool_use`` block: ``content_block_start`` gives its id and name,
``input_json_delta`` deltas carry ``partial_json`` fragments of its input, and
``content_block_stop`` ends it (the message's ``stop_reason`` is "tool_use"). Calls
are yielded after the text, at ``message_stop``, in block order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from companion_desktop.llm.base import (
    CancelToken,
    ChatMessage,
    InvalidReplyError,
    ProviderConfig,
    ToolCall,
    ToolSpec,
)
from companion_desktop.llm.content import (
    JSON_INSTRUCTION,
    anthropic_messages,
    extract_json_object,
    merge_turns,
)
from companion_desktop.llm.errors import broken, error_for_stream_event
from companion_desktop.llm.provider_base import HttpProvider, check_cancel
from companion_desktop.llm.sse import iter_sse
from companion_desktop.llm.tool_wire import ToolCallAssembler, anthropic_tools

DEFAULT_BASE_URL = "https://api.anthropic.com/v1"
API_VERSION = "2023-06-01"
#: The assistant turn of a JSON call starts with this, so the reply is the object's rest.
JSON_PREFILL = "{"
#: Sent after a conversation that ends with the assistant, before the JSON prefill.
JSON_REQUEST_TURN = "Reply now with the JSON object."


class AnthropicProvider(HttpProvider):
    """Claude models through the Messages API."""

    kind = "anthropic"

    def __init__(
        self, config: ProviderConfig, client: httpx.Client, name: str = "Anthropic"
    ) -> None:
        super().__init__(config, client, name)

    def auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION, "content-type": "application/json"}
        if self.config.api_key:
            headers["x-api-key"] = self.config.api_key
        return headers

    def messages_body(
        self, system: str, messages: list[ChatMessage], stream: bool,
        tools: list[ToolSpec] | None = None,
    ) -> dict[str, Any]:
        """The request body: alternating turns starting with the user, ``system`` on top,
        ``tools`` only when there are any. ``temperature`` is clamped to 0..1."""
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "messages": anthropic_messages(messages),
        }
        if system:
            body["system"] = system
        if tools:
            body["tools"] = anthropic_tools(tools)
        if self.config.temperature is not None:
            body["temperature"] = min(1.0, max(0.0, self.config.temperature))
        if stream:
            body["stream"] = True
        return body

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[str | ToolCall]:
        """Yield text pieces as they arrive, then the complete ``tool_use`` calls."""
        payload = self.messages_body(system, messages, stream=True, tools=tools)
        url = f"{self.base_url}/messages"
        calls = ToolCallAssembler()
        with self.open("POST", url, json_body=payload, cancel=cancel) as body:
            stopped = False
            for event in iter_sse(body):
                check_cancel(cancel)
                data = self._event_data(event.data)
                kind = event.event if event.event != "message" else str(data.get("type", ""))
                if kind == "error":
                    raise error_for_stream_event(self.context(), data.get("error", data))
                if kind == "message_stop":
                    stopped = True
                    break
                text = _event_text(kind, data)
                if text:
                    yield text
                    check_cancel(cancel)
                _track_tool_use(kind, data, calls)
            if not stopped:
                raise broken("the stream ended before message_stop")
            body.finish()
        check_cancel(cancel)
        yield from calls.calls()

    def complete_json(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> dict[str, Any]:
        """A non-streamed call whose assistant turn is prefilled with ``{``."""
        turns = merge_turns(messages)
        if not turns or turns[-1].role == "assistant":
            turns.append(ChatMessage(role="user", content=JSON_REQUEST_TURN))
        turns.append(ChatMessage(role="assistant", content=JSON_PREFILL))
        payload = self.messages_body(f"{system}\n\n{JSON_INSTRUCTION}".strip(), turns, False)
        url = f"{self.base_url}/messages"
        with self.open("POST", url, json_body=payload, cancel=cancel) as body:
            raw = body.read()
        try:
            data = json.loads(raw)
        except ValueError:
            raise InvalidReplyError(f"{self.name} sent a reply that is not JSON.") from None
        if isinstance(data, dict) and data.get("type") == "error":
            raise error_for_stream_event(self.context(), data.get("error", data))
        text = "".join(
            block.get("text", "")
            for block in (data.get("content") or [] if isinstance(data, dict) else [])
            if isinstance(block, dict) and block.get("type") == "text"
        )
        if text.lstrip().startswith(JSON_PREFILL):
            return extract_json_object(text, self.name)
        return extract_json_object(JSON_PREFILL + text, self.name)

    def list_models(self) -> list[str]:
        """Model ids from ``GET {base_url}/models`` (``data[].id``)."""
        data = self.get_json(f"{self.base_url}/models", params={"limit": 1000})
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            return []
        return [m["id"] for m in items if isinstance(m, dict) and isinstance(m.get("id"), str)]

    def _event_data(self, raw: str) -> dict[str, Any]:
        try:
            data = json.loads(raw)
        except ValueError:
            raise broken(f"{self.name} sent an unreadable event {raw[:60]!r}") from None
        if not isinstance(data, dict):
            raise broken(f"{self.name} sent an unexpected event")
        return data


def _track_tool_use(kind: str, data: dict[str, Any], calls: ToolCallAssembler) -> None:
    """Feed a ``tool_use`` block's start (id, name, initial input) and its
    ``input_json_delta`` fragments to ``calls``, keyed by the block index."""
    index = data.get("index")
    if not isinstance(index, int) or isinstance(index, bool):
        return
    if kind == "content_block_start":
        block = data.get("content_block") or {}
        if isinstance(block, dict) and block.get("type") == "tool_use":
            calls.start(index, block.get("id"), block.get("name"), block.get("input"))
    elif kind == "content_block_delta":
        delta = data.get("delta") or {}
        if isinstance(delta, dict) and delta.get("type") == "input_json_delta":
            calls.add(index, delta.get("partial_json"))


def _event_text(kind: str, data: dict[str, Any]) -> str:
    """The text an event carries: a ``text_delta``, or a text block's initial text."""
    if kind == "content_block_delta":
        delta = data.get("delta") or {}
        if delta.get("type") == "text_delta" and isinstance(delta.get("text"), str):
            return str(delta["text"])
    elif kind == "content_block_start":
        block = data.get("content_block") or {}
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            return str(block["text"])
    return ""
