"""OpenAI-compatible chat completions over httpx (OpenAI, xAI, OpenRouter, DeepSeek,
Ollama, LM Studio, llama.cpp, vLLM and any server speaking the same API).

``POST {base_url}/chat/completions`` with ``stream: true``; text comes from
``choices[0].delta.content`` in ``data:`` events ending with ``data: [DONE]``.
Reasoning deltas (``reasoning_content``, ``reasoning``) are ignored. A server that
answers a streamed request with one JSON body is read as such.

Tool calls stream as ``choices[0].delta.tool_calls[]`` pieces: ``index``, then ``id``
and ``function.name`` once, and ``function.arguments`` text in fragments joined per
index (``finish_reason`` "tool_calls"); a whole reply carries ``message.tool_calls``.
They are yielded after the text, once the reply is complete (see ``llm.tool_wire``).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from typing import Any

import httpx

from companion_desktop.llm.base import (
    BadRequestError,
    CancelToken,
    ChatMessage,
    InvalidReplyError,
    LlmError,
    ProviderConfig,
    StreamBrokenError,
    ToolCall,
    ToolSpec,
)
from companion_desktop.llm.content import (
    extract_json_object,
    openai_messages,
    with_json_instruction,
)
from companion_desktop.llm.errors import broken, error_for_stream_event
from companion_desktop.llm.provider_base import HttpProvider, check_cancel
from companion_desktop.llm.sse import iter_sse
from companion_desktop.llm.tool_wire import ToolCallAssembler, openai_tools
from companion_desktop.llm.transport import BodyStream

log = logging.getLogger("companion_desktop.llm")

#: Sent to OpenRouter so it can name the app (its attribution headers).
APP_TITLE = "companion-desktop"
#: How many times a 400 may be answered by dropping or renaming one parameter.
MAX_ADJUSTMENTS = 3


class OpenAICompatProvider(HttpProvider):
    """A chat-completions endpoint. ``app_headers`` adds OpenRouter's attribution
    headers; ``ollama_tags`` makes :meth:`list_models` fall back to ``/api/tags``."""

    kind = "openai"

    def __init__(
        self,
        config: ProviderConfig,
        client: httpx.Client,
        name: str = "OpenAI-compatible server",
        *,
        app_headers: bool = False,
        ollama_tags: bool = False,
    ) -> None:
        super().__init__(config, client, name)
        self._app_headers = app_headers
        self._ollama_tags = ollama_tags

    def auth_headers(self) -> dict[str, str]:
        headers: dict[str, str] = {}
        if self.config.api_key:
            headers["Authorization"] = f"Bearer {self.config.api_key}"
        if self._app_headers:
            headers["X-Title"] = APP_TITLE
        return headers

    # -- chat ---------------------------------------------------------------------------
    def chat_body(
        self, system: str, messages: list[ChatMessage], stream: bool,
        tools: list[ToolSpec] | None = None,
    ) -> dict[str, Any]:
        """The request body; ``max_tokens`` and ``temperature`` as configured, ``tools``
        only when there are any."""
        wire = openai_messages(system, messages)
        body: dict[str, Any] = {"model": self.config.model, "messages": wire, "stream": stream}
        if tools:
            body["tools"] = openai_tools(tools)
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature
        if self.config.max_tokens:
            body["max_tokens"] = self.config.max_tokens
        return body

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[str | ToolCall]:
        """Yield text pieces as they arrive, then the complete tool calls in index order.
        A server refusing tools (no tool support) is asked again without them."""
        body = self._post(self.chat_body(system, messages, stream=True, tools=tools), cancel)
        with body:
            yield from self._read_round(body, cancel)

    def complete_json(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> dict[str, Any]:
        """A non-streamed call in JSON mode (retried without it if the server refuses)."""
        payload = self.chat_body(with_json_instruction(system, messages), messages, stream=False)
        payload["response_format"] = {"type": "json_object"}
        with self._post(payload, cancel) as body:
            text = "".join(self._read_reply(body, cancel))
        return extract_json_object(text, self.name)

    def _post(self, payload: dict[str, Any], cancel: CancelToken | None) -> BodyStream:
        url = f"{self.base_url}/chat/completions"
        for _ in range(MAX_ADJUSTMENTS + 1):
            try:
                return self.open("POST", url, json_body=payload, cancel=cancel)
            except BadRequestError as error:
                adjusted = adjust_for_refusal(payload, error.message)
                if adjusted is None:
                    raise
                payload = adjusted
        raise BadRequestError(f"{self.name} refused every form of the request.")

    def _read_reply(self, body: BodyStream, cancel: CancelToken | None) -> Iterator[str]:
        for piece in self._read_round(body, cancel):
            if isinstance(piece, str):
                yield piece

    def _read_round(
        self, body: BodyStream, cancel: CancelToken | None
    ) -> Iterator[str | ToolCall]:
        calls = ToolCallAssembler()
        if body.content_type == "application/json":
            data = _loads(body.read(), self.name)
            self._raise_error_in(data)
            text = _message_text(data)
            if text:
                yield text
            _add_tool_calls(data["choices"][0].get("message"), calls)
            yield from calls.calls()
            return
        done = finished = False
        try:
            for event in iter_sse(body):
                check_cancel(cancel)
                if event.is_done:
                    done = True
                    break
                chunk = _loads(event.data, self.name, streaming=True)
                self._raise_error_in(chunk)
                choices = chunk.get("choices") or [{}]
                choice = choices[0] if isinstance(choices[0], dict) else {}
                text = _delta_text(choice)
                if text:
                    yield text
                    check_cancel(cancel)
                _add_tool_calls(choice.get("delta"), calls)
                if choice.get("finish_reason"):
                    finished = True
        except StreamBrokenError:
            if not finished:
                raise
        else:
            if done:
                body.finish()
            elif not finished:
                raise broken("the stream ended before its end marker")
        check_cancel(cancel)
        yield from calls.calls()

    def _raise_error_in(self, data: Any) -> None:
        if not isinstance(data, dict):
            raise InvalidReplyError(f"{self.name} sent an unexpected reply.")
        if data.get("error"):
            raise error_for_stream_event(self.context(), data["error"])

    # -- models ---------------------------------------------------------------------------
    def list_models(self) -> list[str]:
        """Model ids from ``/models``; Ollama also tries ``/api/tags`` when that is empty."""
        first_error: LlmError | None = None
        ids: list[str] = []
        try:
            data = self.get_json(f"{self.base_url}/models")
            ids = [m["id"] for m in _items(data, "data") if isinstance(m.get("id"), str)]
        except LlmError as error:
            first_error = error
        if not ids and self._ollama_tags:
            root = re.sub(r"/v1$", "", self.base_url)
            try:
                data = self.get_json(f"{root}/api/tags")
                ids = [m["name"] for m in _items(data, "models") if isinstance(m.get("name"), str)]
            except LlmError:
                pass
        if not ids and first_error is not None:
            raise first_error
        return list(dict.fromkeys(ids))


#: Words of a 400 saying the server or model cannot take ``tools`` at all.
_NO_TOOLS_WORDS = ("support", "enable", "require", "jinja")


def adjust_for_refusal(payload: dict[str, Any], message: str) -> dict[str, Any] | None:
    """The request changed to avoid what a 400 refused, or None when nothing fits:
    ``tools`` dropped (models or servers without tool calling, e.g. "does not support
    tools", llama.cpp's "requires --jinja"), ``max_tokens`` renamed
    ``max_completion_tokens``, ``temperature`` dropped (both refused by some newer
    models), or ``response_format`` dropped (servers without JSON mode)."""
    text = message.lower()
    changed = dict(payload)
    if "tools" in changed and "tool" in text and any(w in text for w in _NO_TOOLS_WORDS):
        log.warning("The server refused tools; asking again without them: %s", message[:200])
        del changed["tools"]
    elif "max_tokens" in changed and "max_completion_tokens" in text:
        changed["max_completion_tokens"] = changed.pop("max_tokens")
    elif "temperature" in changed and "temperature" in text and "support" in text:
        del changed["temperature"]
    elif "response_format" in changed:
        del changed["response_format"]
    else:
        return None
    return changed


def _loads(raw: bytes | str, name: str, streaming: bool = False) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        if streaming:
            preview = str(raw)[:60]
            raise broken(f"{name} sent an unreadable event {preview!r}") from None
        raise InvalidReplyError(f"{name} sent a reply that is not JSON.") from None


def _delta_text(choice: dict[str, Any]) -> str:
    part = choice.get("delta") or choice.get("message") or {}
    content = part.get("content") if isinstance(part, dict) else None
    if isinstance(content, str):
        return content
    text = choice.get("text")
    return text if isinstance(text, str) else ""


def _add_tool_calls(part: Any, calls: ToolCallAssembler) -> None:
    """Feed a delta's (or whole message's) ``tool_calls`` to ``calls``. An item
    without ``index`` takes its place in the list; arguments already given as an
    object (some local servers) are taken as they are."""
    items = part.get("tool_calls") if isinstance(part, dict) else None
    if not isinstance(items, list):
        return
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        function = item.get("function")
        if not isinstance(function, dict):
            function = {}
        index = item.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            index = position
        arguments = function.get("arguments")
        calls.start(index, item.get("id"), function.get("name"),
                    arguments if isinstance(arguments, dict) else None)
        calls.add(index, arguments)


def _message_text(data: dict[str, Any]) -> str:
    choices = data.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        raise InvalidReplyError("The reply had no choices.")
    return _delta_text(choices[0])


def _items(data: Any, key: str) -> list[dict[str, Any]]:
    items = data.get(key) if isinstance(data, dict) else None
    return [m for m in items if isinstance(m, dict)] if isinstance(items, list) else []
