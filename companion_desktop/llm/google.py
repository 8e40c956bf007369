"""Google's Gemini API over httpx.

``POST {base_url}/models/{model}:streamGenerateContent?alt=sse`` with ``x-goog-api-key``;
each ``data:`` event is a GenerateContentResponse whose
``candidates[0].content.parts[].text`` carries text (parts with ``thought: true`` are
skipped). The last one has a ``finishReason``. Blocked prompts and replies raise
BadRequestError saying so.

Tool calls arrive whole, as ``functionCall`` parts (``name``, ``args``, sometimes
``id``; none given: one is made up) whose part may carry a ``thoughtSignature``. The
provider remembers, per call id, whether the id was Gemini's and the signature, and
sends both back with the call in later requests (Gemini 3 refuses function calls
without their signature). Calls are yielded after the text, in part order.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import httpx

from companion_desktop.llm.base import (
    BadRequestError,
    CancelToken,
    ChatMessage,
    InvalidReplyError,
    ProviderConfig,
    StreamBrokenError,
    ToolCall,
    ToolSpec,
)
from companion_desktop.llm.content import (
    GeminiCallNote,
    extract_json_object,
    gemini_contents,
    with_json_instruction,
)
from companion_desktop.llm.errors import broken, error_for_stream_event
from companion_desktop.llm.provider_base import HttpProvider, check_cancel
from companion_desktop.llm.sse import iter_sse
from companion_desktop.llm.tool_wire import (
    MAX_NAME_CHARS,
    MAX_TOOL_CALLS,
    gemini_tools,
    make_call_id,
    parse_arguments,
)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
#: Finish reasons meaning the reply was withheld rather than completed.
BLOCKED_REASONS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)
#: Finish reasons meaning the model failed to form a tool call.
TOOL_FAILURE_REASONS = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})
#: Most pages of models fetched by list_models (each up to 1000 models).
MAX_MODEL_PAGES = 10
#: How many calls' ids and thought signatures are remembered (oldest forgotten first).
MAX_CALL_NOTES = 512


class GoogleProvider(HttpProvider):
    """Gemini models through the Generative Language API."""

    kind = "google"

    def __init__(
        self, config: ProviderConfig, client: httpx.Client, name: str = "Google Gemini"
    ) -> None:
        super().__init__(config, client, name)
        self._notes: OrderedDict[str, GeminiCallNote] = OrderedDict()

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.config.api_key} if self.config.api_key else {}

    @property
    def model_path(self) -> str:
        """``models/{model}``, whether or not the configured id has the prefix."""
        return "models/" + self.config.model.removeprefix("models/")

    def generate_body(
        self, system: str, messages: list[ChatMessage], json_mode: bool = False,
        tools: list[ToolSpec] | None = None,
    ) -> dict[str, Any]:
        """``contents`` (roles user/model), ``systemInstruction``, ``generationConfig``,
        and ``tools`` only when there are any."""
        contents = gemini_contents(messages, self._notes)
        config: dict[str, Any] = {}
        if self.config.temperature is not None:
            config["temperature"] = self.config.temperature
        if self.config.max_tokens:
            config["maxOutputTokens"] = self.config.max_tokens
        if json_mode:
            config["responseMimeType"] = "application/json"
        body: dict[str, Any] = {"contents": contents, "generationConfig": config}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if tools:
            body["tools"] = gemini_tools(tools)
        return body

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[str | ToolCall]:
        """Yield text pieces as they arrive, then the ``functionCall`` parts as calls."""
        url = f"{self.base_url}/{self.model_path}:streamGenerateContent"
        payload = self.generate_body(system, messages, tools=tools)
        params = {"alt": "sse"}
        found: list[tuple[ToolCall, GeminiCallNote]] = []
        with self.open("POST", url, json_body=payload, params=params, cancel=cancel) as body:
            finished = False
            try:
                for event in iter_sse(body):
                    check_cancel(cancel)
                    chunk = self._event_json(event.data)
                    text, reason = self._read_chunk(chunk)
                    if text:
                        yield text
                        check_cancel(cancel)
                    _collect_calls(chunk, found)
                    finished = finished or bool(reason)
            except StreamBrokenError:
                if not finished:
                    raise
            if not finished:
                raise broken("the stream ended before a finish reason")
        check_cancel(cancel)
        yield from self._remember(found)

    def _remember(self, found: list[tuple[ToolCall, GeminiCallNote]]) -> list[ToolCall]:
        """The calls, each one's note kept for later requests (the newest 512)."""
        for call, note in found:
            self._notes[call.id] = note
            self._notes.move_to_end(call.id)
        while len(self._notes) > MAX_CALL_NOTES:
            self._notes.popitem(last=False)
        return [call for call, _ in found]

    def complete_json(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> dict[str, Any]:
        """A non-streamed ``:generateContent`` call with ``responseMimeType`` JSON."""
        url = f"{self.base_url}/{self.model_path}:generateContent"
        payload = self.generate_body(with_json_instruction(system, messages), messages, True)
        with self.open("POST", url, json_body=payload, cancel=cancel) as body:
            raw = body.read()
        try:
            data = json.loads(raw)
        except ValueError:
            raise InvalidReplyError(f"{self.name} sent a reply that is not JSON.") from None
        text, _ = self._read_chunk(data)
        return extract_json_object(text, self.name)

    def list_models(self) -> list[str]:
        """Ids (without ``models/``) of the models that support ``generateContent``."""
        ids: list[str] = []
        params: dict[str, Any] = {"pageSize": 1000}
        for _ in range(MAX_MODEL_PAGES):
            data = self.get_json(f"{self.base_url}/models", params=params)
            if not isinstance(data, dict):
                break
            for model in data.get("models") or []:
                if not isinstance(model, dict) or not isinstance(model.get("name"), str):
                    continue
                methods = model.get("supportedGenerationMethods")
                if methods is None or "generateContent" in methods:
                    ids.append(model["name"].removeprefix("models/"))
            token = data.get("nextPageToken")
            if not token:
                break
            params = {"pageSize": 1000, "pageToken": token}
        return ids

    def _event_json(self, raw: str) -> Any:
        try:
            return json.loads(raw)
        except ValueError:
            raise broken(f"{self.name} sent an unreadable event {raw[:60]!r}") from None

    def _read_chunk(self, chunk: Any) -> tuple[str, str | None]:
        """(text, finishReason) of one response; raises on errors and blocks."""
        if isinstance(chunk, list) and chunk:
            chunk = chunk[0]
        if not isinstance(chunk, dict):
            raise broken(f"{self.name} sent an unexpected event")
        if chunk.get("error"):
            raise error_for_stream_event(self.context(), chunk["error"])
        feedback = chunk.get("promptFeedback") or {}
        if feedback.get("blockReason"):
            raise BadRequestError(
                f"{self.name} blocked the message ({feedback['blockReason']}): "
                "try rewording it or pick another model."
            )
        candidates = chunk.get("candidates") or []
        if not candidates or not isinstance(candidates[0], dict):
            return "", None
        candidate = candidates[0]
        reason = candidate.get("finishReason")
        if reason in BLOCKED_REASONS:
            raise BadRequestError(
                f"{self.name} withheld the reply ({reason}): try rewording the message."
            )
        if reason in TOOL_FAILURE_REASONS:
            raise InvalidReplyError(
                f"{self.name} could not form a tool call ({reason}); try again."
            )
        parts = (candidate.get("content") or {}).get("parts") or []
        text = "".join(
            p["text"] for p in parts
            if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
        )
        return text, reason if isinstance(reason, str) and reason else None


def _collect_calls(chunk: Any, found: list[tuple[ToolCall, GeminiCallNote]]) -> None:
    """Append the chunk's ``functionCall`` parts to ``found`` as calls with their notes
    (whether the id is Gemini's, the part's ``thoughtSignature``); at most
    MAX_TOOL_CALLS in all."""
    if isinstance(chunk, list) and chunk:
        chunk = chunk[0]
    candidates = chunk.get("candidates") if isinstance(chunk, dict) else None
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    for part in parts if isinstance(parts, list) else []:
        call = part.get("functionCall") if isinstance(part, dict) else None
        if not isinstance(call, dict) or len(found) >= MAX_TOOL_CALLS:
            continue
        given_id = call.get("id")
        if not isinstance(given_id, str):
            given_id = ""
        native = bool(given_id)
        name = call.get("name")
        if not isinstance(name, str):
            name = ""
        signature = part.get("thoughtSignature") or call.get("thoughtSignature")
        found.append((
            ToolCall(
                id=given_id[:MAX_NAME_CHARS] if native else make_call_id(),
                name=name[:MAX_NAME_CHARS],
                arguments=parse_arguments(call.get("args")),
            ),
            GeminiCallNote(native, signature if isinstance(signature, str) else None),
        ))
