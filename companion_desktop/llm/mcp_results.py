"""What MCP servers give back, and how their failures read.

:class:`McpTool` is a tool a server offers, :class:`CallOutcome` a call's result as text
for the model, :class:`McpServerError` a server that could not be reached or used (its
message fit to show the user). The helpers turn SDK results into text and pick the
meaningful cause out of the SDK's nested exception groups; :func:`scrub` takes every
configured secret and every control character out of a server's error output.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
from mcp import types

from companion_desktop.engine.untrusted_text import strip_controls
from companion_desktop.llm.errors import redact


@dataclass(frozen=True)
class McpTool:
    """A tool offered by ``server``; ``input_schema`` is its JSON Schema object."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class CallOutcome:
    """What a tool call gave back, as text for the model."""

    text: str
    is_error: bool = False


class McpServerError(Exception):
    """A server could not be reached or used; ``message`` is fit to show the user."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message)
        self.server = server
        self.message = message


def scrub(text: str, secrets: Iterable[str], keep: str = "") -> str:
    """A server's error output fit to show, log and give the model: every secret of
    ``secrets`` (4 characters or more; raw, escaped, JSON or URL-encoded) replaced by
    ``***``, escape sequences and control, format and invisible characters dropped
    (those in ``keep``, e.g. ``"\\n"``, stay). Redacted before and after the stripping, so
    a secret split by an escape code or a zero-width character is caught too."""
    secrets = [s for s in secrets if s]
    for secret in secrets:
        text = redact(text, secret)
    text = strip_controls(text, keep)
    for secret in secrets:
        text = redact(text, secret)
    return text


def describe_size(size: int) -> str:
    """``size`` bytes as "512 bytes", "12 KB" or "3.4 MB"."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _blob_note(mime: str, base64_data: str) -> str:
    return f"[{mime or 'data'}, {describe_size(len(base64_data) * 3 // 4)}]"


def outcome_from_result(result: types.CallToolResult) -> CallOutcome:
    """Text blocks joined by newlines; images, audio and binary resources described as
    "[image/png, 12 KB]"; structured content as JSON when no text block came."""
    parts: list[str] = []
    has_text = False
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
            has_text = True
        elif isinstance(block, types.ImageContent | types.AudioContent):
            parts.append(_blob_note(block.mimeType, block.data))
        elif isinstance(block, types.EmbeddedResource):
            res = block.resource
            if isinstance(res, types.TextResourceContents):
                parts.append(res.text)
                has_text = True
            else:
                parts.append(_blob_note(res.mimeType or "", res.blob))
        elif isinstance(block, types.ResourceLink):
            parts.append(f"[link: {block.uri}]")
    if result.structuredContent is not None and not has_text:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    return CallOutcome(text, bool(result.isError))


def root_cause(error: BaseException) -> BaseException:
    """The first meaningful exception inside (possibly nested) exception groups."""
    while isinstance(error, BaseExceptionGroup):
        inner = [e for e in error.exceptions if not isinstance(e, asyncio.CancelledError)]
        error = (inner or list(error.exceptions))[0]
    return error


def safe_url(url: str) -> str:
    """``url`` without its query and user info (which may hold a token)."""
    try:
        return str(httpx.URL(url).copy_with(query=None, userinfo=b""))
    except Exception:  # noqa: BLE001 - a malformed URL is shown cut, not parsed
        return url.split("?", 1)[0][:200]


def is_connection_gone(error: BaseException) -> bool:
    """True when ``error`` says the session's streams are closed or broken."""
    return isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError)
