"""The UI tests' model: the llm tests' real HTTP server on 127.0.0.1, scripted per turn.

Built on ``tests.llm.provider_server`` and ``tests.llm.wire_formats`` (the real
OpenAI streaming format, Ollama's tag list). Each chat request takes the next
queued ``Script`` (then ``default``): reply chunks streamed with ``delay`` seconds
after each and ``first_delay`` before the response starts (the connection cut after
``cut_after`` chunks, when set), or an HTTP error ``status``. ``GET /v1/models`` and
``GET /api/tags`` list ``models``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.llm.provider_server import JsonReply, ProviderServer, Reply, StreamReply
from tests.llm.wire_formats import ollama_tags, openai_error, openai_models, openai_stream

CHAT = "/v1/chat/completions"


@dataclass
class Script:
    """How to answer one chat request."""

    chunks: list[str] = field(default_factory=lambda: ["Hello!"])
    delay: float = 0.0
    first_delay: float = 0.0
    status: int = 200
    error: str = "error"
    cut_after: int | None = None

    def reply(self) -> Reply:
        if self.status != 200:
            return JsonReply(openai_error(self.error), status=self.status)
        if self.cut_after is not None:  # the role event comes first
            return StreamReply(openai_stream(self.chunks), delay_s=self.delay,
                               head_delay_s=self.first_delay, then="disconnect",
                               at=1 + self.cut_after)
        return StreamReply(openai_stream(self.chunks), delay_s=self.delay,
                           head_delay_s=self.first_delay)


def reply_with_block(text: str, **deltas: int) -> list[str]:
    """``text`` split into word chunks, then the JSON block carrying ``deltas``."""
    words = text.split(" ")
    chunks = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
    block = {"mood_change": {"emotion": "happy", "intensity_delta": 10}, **deltas}
    return [*chunks, "\n\n```json\n" + json.dumps(block) + "\n```"]


@dataclass
class _Live(Reply):
    """A reply chosen when the request arrives (so queues and model lists stay editable)."""

    choose: Callable[[], Reply]

    def send(self, handler: Any, server: ProviderServer) -> None:
        self.choose().send(handler, server)


class ScriptedServer:
    """``base_url`` is the OpenAI-style API root; ``root`` the bare server address."""

    def __init__(self) -> None:
        self.scripts: list[Script] = []
        self.default = Script()
        self.models = ["tiny-model", "warm-model"]
        self.server = ProviderServer()
        self.server.on("POST", CHAT, _Live(self._next_chat))
        self.server.on("GET", "/v1/models", _Live(lambda: JsonReply(openai_models(self.models))))
        self.server.on("GET", "/api/tags", _Live(lambda: JsonReply(ollama_tags(self.models))))

    def _next_chat(self) -> Reply:
        return (self.scripts.pop(0) if self.scripts else self.default).reply()

    @property
    def root(self) -> str:
        return self.server.url

    @property
    def base_url(self) -> str:
        return self.server.url + "/v1"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """The body of every chat request, in order."""
        return [r.json for r in self.server.requests_to(CHAT)]

    def user_messages(self) -> list[str]:
        """The last user message of every streamed chat request, in order."""
        out = []
        for request in self.requests:
            if request.get("stream"):
                users = [m for m in request.get("messages", []) if m.get("role") == "user"]
                if users:
                    content = users[-1]["content"]
                    out.append(content if isinstance(content, str) else json.dumps(content))
        return out

    def __enter__(self) -> ScriptedServer:
        self.server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()
