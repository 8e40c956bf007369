"""Google's Gemini API over httpx.

``POST {base_url}/models/{model}:streamGenerateContent?alt=sse`` with ``x-goog-api-key``;
each ``data:`` event is a GenerateContentResponse whose
``candidates[0].content.parts[].text`` carries text (parts with ``thought: true`` are
skipped). The last one has a ``finishReason``. Blocked prompts and replies raise
BadRequestError saying so.
"""

from __future__ import annotations

import json
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
)
from companion_desktop.llm.content import extract_json_object, merge_turns, with_json_instruction
from companion_desktop.llm.errors import broken, error_for_stream_event
from companion_desktop.llm.provider_base import HttpProvider, check_cancel
from companion_desktop.llm.sse import iter_sse

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
#: Finish reasons meaning the reply was withheld rather than completed.
BLOCKED_REASONS = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"}
)
#: Most pages of models fetched by list_models (each up to 1000 models).
MAX_MODEL_PAGES = 10


class GoogleProvider(HttpProvider):
    """Gemini models through the Generative Language API."""

    kind = "google"

    def __init__(
        self, config: ProviderConfig, client: httpx.Client, name: str = "Google Gemini"
    ) -> None:
        super().__init__(config, client, name)

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self.config.api_key} if self.config.api_key else {}

    @property
    def model_path(self) -> str:
        """``models/{model}``, whether or not the configured id has the prefix."""
        return "models/" + self.config.model.removeprefix("models/")

    def generate_body(
        self, system: str, messages: list[ChatMessage], json_mode: bool = False
    ) -> dict[str, Any]:
        """``contents`` (roles user/model), ``systemInstruction``, ``generationConfig``."""
        contents = [
            {"role": "model" if m.role == "assistant" else "user", "parts": [{"text": m.content}]}
            for m in merge_turns(messages)
        ]
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
        return body

    def stream_chat(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        """Yield reply text pieces until a candidate carries its ``finishReason``."""
        url = f"{self.base_url}/{self.model_path}:streamGenerateContent"
        payload = self.generate_body(system, messages)
        params = {"alt": "sse"}
        with self.open("POST", url, json_body=payload, params=params, cancel=cancel) as body:
            finished = False
            try:
                for event in iter_sse(body):
                    check_cancel(cancel)
                    text, reason = self._read_chunk(self._event_json(event.data))
                    if text:
                        yield text
                        check_cancel(cancel)
                    finished = finished or bool(reason)
            except StreamBrokenError:
                if not finished:
                    raise
            if not finished:
                raise broken("the stream ended before a finish reason")

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
        parts = (candidate.get("content") or {}).get("parts") or []
        text = "".join(
            p["text"] for p in parts
            if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")
        )
        return text, reason if isinstance(reason, str) and reason else None
