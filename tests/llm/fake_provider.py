"""A scripted fake provider, registered through the real registry (for pipeline tests too).

    from tests.llm.fake_provider import Script, scripted_provider

    script = Script(replies=["Hello!", ServerError("down")], json_replies=[{"mood": "happy"}])
    with scripted_provider(script) as spec:
        provider = create_provider(ProviderConfig(spec.id, "", "fake-model"))
        "".join(provider.stream_chat("system", messages))   # "Hello!"

Each stream_chat takes the next reply (a string, streamed in ``chunk_size`` pieces, or an
LlmError to raise); complete_json likewise from ``json_replies``. Every call is recorded.

stream_round takes the next reply too; a reply may also be a list of text pieces and
ToolCall objects, which stream_round yields as they are (stream_chat only the text)::

    Script(replies=[["Let me look.", ToolCall("c1", "weather", {"city": "Oslo"})], "Sunny!"])
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from companion_desktop.llm.base import (
    CancelledError,
    CancelToken,
    ChatMessage,
    LlmError,
    ProviderConfig,
    ToolCall,
    ToolSpec,
)
from companion_desktop.llm.registry import ProviderSpec, register, unregister


@dataclass
class Call:
    method: str
    system: str
    messages: list[ChatMessage]
    tools: list[ToolSpec] = field(default_factory=list)


Reply = str | LlmError | list[str | ToolCall]


@dataclass
class Script:
    replies: list[Reply] = field(default_factory=list)
    json_replies: list[dict[str, Any] | LlmError] = field(default_factory=list)
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    chunk_size: int = 8
    calls: list[Call] = field(default_factory=list)


class ScriptedProvider:
    """Implements the Provider protocol from a :class:`Script`."""

    def __init__(self, config: ProviderConfig, script: Script) -> None:
        self.id = config.provider_id
        self.config = config
        self.script = script

    def stream_chat(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        self.script.calls.append(Call("stream_chat", system, list(messages)))
        for piece in self._play(cancel):
            if isinstance(piece, str):
                yield piece

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[str | ToolCall]:
        self.script.calls.append(Call("stream_round", system, list(messages), list(tools)))
        yield from self._play(cancel)

    def _play(self, cancel: CancelToken | None) -> Iterator[str | ToolCall]:
        reply = self.script.replies.pop(0) if self.script.replies else ""
        if isinstance(reply, LlmError):
            raise reply
        pieces = [reply] if isinstance(reply, str) else list(reply)
        size = max(1, self.script.chunk_size)
        for piece in pieces:
            chunks = [piece] if isinstance(piece, ToolCall) else [
                piece[start : start + size] for start in range(0, len(piece), size)
            ]
            for chunk in chunks:
                if cancel is not None and cancel.cancelled:
                    raise CancelledError("Stopped.")
                yield chunk

    def complete_json(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> dict[str, Any]:
        self.script.calls.append(Call("complete_json", system, list(messages)))
        reply = self.script.json_replies.pop(0) if self.script.json_replies else {}
        if isinstance(reply, LlmError):
            raise reply
        return reply

    def list_models(self) -> list[str]:
        return list(self.script.models)

    def test_connection(self) -> str:
        return f"Scripted provider: {len(self.script.models)} models."


@contextmanager
def scripted_provider(script: Script, provider_id: str = "scripted") -> Iterator[ProviderSpec]:
    """Register a :class:`ScriptedProvider` under ``provider_id`` for the block."""
    spec = ProviderSpec(provider_id, "Scripted", "openai", "scripted://local", needs_key=False,
                        local=True)

    def factory(config: ProviderConfig, client: httpx.Client) -> ScriptedProvider:
        return ScriptedProvider(config, script)

    register(spec, factory)
    try:
        yield spec
    finally:
        unregister(provider_id)
