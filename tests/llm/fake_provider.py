"""A scripted fake provider, registered through the real registry (for pipeline tests too).

    from tests.llm.fake_provider import Script, scripted_provider

    script = Script(replies=["Hello!", ServerError("down")], json_replies=[{"mood": "happy"}])
    with scripted_provider(script) as spec:
        provider = create_provider(ProviderConfig(spec.id, "", "fake-model"))
        "".join(provider.stream_chat("system", messages))   # "Hello!"

Each stream_chat takes the next reply (a string, streamed in ``chunk_size`` pieces, or an
LlmError to raise); complete_json likewise from ``json_replies``. Every call is recorded.
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
)
from companion_desktop.llm.registry import ProviderSpec, register, unregister


@dataclass
class Call:
    method: str
    system: str
    messages: list[ChatMessage]


@dataclass
class Script:
    replies: list[str | LlmError] = field(default_factory=list)
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
        reply = self.script.replies.pop(0) if self.script.replies else ""
        if isinstance(reply, LlmError):
            raise reply
        size = max(1, self.script.chunk_size)
        for start in range(0, len(reply), size):
            if cancel is not None and cancel.cancelled:
                raise CancelledError("Stopped.")
            yield reply[start : start + size]

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
