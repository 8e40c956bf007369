"""What every language-model provider offers, and the errors it raises.

A provider is a small object over an ``httpx.Client`` (passed in, so tests can
point it at a real server on 127.0.0.1). Messages are plain value objects; the
system prompt travels separately because each wire format places it elsewhere.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

Role = Literal["user", "assistant", "tool"]

#: Image types every vision API accepts (anything else is converted before sending).
WIRE_IMAGE_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
#: The longest reply kept, in characters (about 12 000 tokens): a model that never stops
#: (a loop, a broken or hostile server) is cut here and the turn completes with that.
MAX_REPLY_CHARS = 48_000

log = logging.getLogger("companion_desktop.llm")
Piece = TypeVar("Piece")


@dataclass(frozen=True)
class ImagePart:
    """An image shown with a user message: encoded bytes of one of WIRE_IMAGE_TYPES."""

    mime_type: str
    data: bytes


@dataclass(frozen=True)
class ToolSpec:
    """A function the model may call: ``parameters`` is a JSON Schema object."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """The model asked to run ``name`` with ``arguments`` (already parsed JSON).

    ``id`` is the provider's call id (Gemini has none: one is made up), used to pair
    the result with the call.
    """

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    """What running a call gave back (text, already cut to the limit)."""

    call_id: str
    name: str
    content: str
    is_error: bool = False


@dataclass(frozen=True)
class ChatMessage:
    """One message of the conversation sent to the model (no system role here).

    ``images`` ride on user messages; ``tool_calls`` on the assistant message of a
    tool round; a ``tool`` message carries ``tool_results`` answering those calls.
    """

    role: Role
    content: str
    images: tuple[ImagePart, ...] = ()
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()


@dataclass(frozen=True)
class ProviderConfig:
    """Where and how to reach a model. ``base_url`` is the API root (with /v1 where it has one).

    Times are seconds: ``connect_timeout`` to open the connection, ``stall_timeout``
    the longest silence allowed while a reply streams.
    """

    provider_id: str
    base_url: str
    model: str
    api_key: str | None = None
    connect_timeout: float = 10.0
    stall_timeout: float = 45.0
    temperature: float | None = 0.8
    max_tokens: int = 1024
    extra_headers: dict[str, str] = field(default_factory=dict)


class CancelToken:
    """Set from the UI thread (Stop button); checked between stream chunks."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


class LlmError(Exception):
    """A provider failure with a message fit to show the user (never holding a key).

    ``status`` is the HTTP status when one came back, else None.
    """

    retryable: bool = True
    status: int | None = None

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""


class AuthError(LlmError):
    """401/403: the key is missing, wrong or not allowed this model."""

    retryable = False


class ModelNotFoundError(LlmError):
    """404: no such model (or wrong base URL)."""

    retryable = False


class RateLimitError(LlmError):
    """429: too many requests or out of quota. ``retry_after`` is in seconds, when known."""

    def __init__(
        self, message: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(message, status=status)
        self.retry_after = retry_after


class ServerError(LlmError):
    """5xx from the provider."""


class ConnectionFailedError(LlmError):
    """Could not connect, or the connection timed out."""


class StreamBrokenError(LlmError):
    """The stream ended early or carried something unreadable."""


class StallError(LlmError):
    """No bytes for longer than the stall limit."""


class CancelledError(LlmError):
    """The user pressed Stop."""

    retryable = False


class BadRequestError(LlmError):
    """400/422: the provider refused the request as sent."""

    retryable = False


class ConfigError(LlmError):
    """The configuration cannot work as given (unknown provider, no URL, no key)."""

    retryable = False


class InvalidReplyError(LlmError):
    """The reply arrived whole but is not what was asked for (e.g. not a JSON object)."""


class Provider(Protocol):
    """A chat model endpoint; see ``llm.registry`` for the implementations."""

    id: str
    config: ProviderConfig

    def stream_chat(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> Iterator[str]:
        """Yield reply text chunks as they arrive; raises LlmError subclasses."""
        ...

    def stream_round(
        self,
        system: str,
        messages: list[ChatMessage],
        tools: list[ToolSpec],
        cancel: CancelToken | None = None,
    ) -> Iterator[str | ToolCall]:
        """One streamed request offering ``tools``: yields text pieces as they arrive and
        each complete ToolCall the model made (after its text). With no tools it is
        stream_chat."""
        ...

    def complete_json(
        self, system: str, messages: list[ChatMessage], cancel: CancelToken | None = None
    ) -> dict[str, Any]:
        """One non-streamed call asking for a JSON object; returns it parsed."""
        ...

    def list_models(self) -> list[str]:
        """Model ids the endpoint offers, for the picker."""
        ...

    def test_connection(self) -> str:
        """A one-line description of what answered (raises LlmError when nothing did)."""
        ...


def capped_reply(pieces: Iterable[Piece], limit: int = MAX_REPLY_CHARS) -> Iterator[Piece]:
    """``pieces`` of a streamed reply (text, and tool calls) until the text reaches
    ``limit`` characters: the piece that crosses it is cut there, nothing after it is
    read, and the stream is closed (with it the connection)."""
    stream = iter(pieces)
    total = 0
    try:
        for piece in stream:
            if isinstance(piece, str):
                room = limit - total
                if len(piece) >= room:
                    if room > 0:
                        yield piece[:room]  # type: ignore[misc]  # Piece is str here
                    log.warning("the reply reached %d characters and was cut there", limit)
                    return
                total += len(piece)
            yield piece
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
