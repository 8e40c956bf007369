"""Conversation shaping and JSON-reply reading shared by the providers."""

from __future__ import annotations

import json
import re
from typing import Any

from companion_desktop.llm.base import ChatMessage, InvalidReplyError

#: Added to the system prompt of JSON calls whose prompt does not already ask for JSON.
JSON_INSTRUCTION = "Reply with only a JSON object, no other text."
#: Opens a conversation whose first message is the companion's (APIs that need a user first).
OPENING_USER_TURN = "(The conversation begins.)"

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


def merge_turns(messages: list[ChatMessage], user_first: bool = True) -> list[ChatMessage]:
    """Strictly alternating turns: consecutive same-role messages joined by a blank
    line, empty ones dropped, and (when ``user_first``) a short user turn put before
    a leading assistant message. For wire formats that refuse anything else."""
    merged: list[ChatMessage] = []
    for message in messages:
        if not message.content.strip():
            continue
        if merged and merged[-1].role == message.role:
            joined = merged[-1].content + "\n\n" + message.content
            merged[-1] = ChatMessage(role=message.role, content=joined)
        else:
            merged.append(message)
    if user_first and merged and merged[0].role == "assistant":
        merged.insert(0, ChatMessage(role="user", content=OPENING_USER_TURN))
    return merged


def with_json_instruction(system: str, messages: list[ChatMessage]) -> str:
    """``system`` plus :data:`JSON_INSTRUCTION` unless the prompt already mentions JSON
    (OpenAI's json_object mode refuses prompts that never say "JSON")."""
    text = system + "".join(m.content for m in messages)
    if "json" in text.lower():
        return system
    return f"{system}\n\n{JSON_INSTRUCTION}".strip()


def extract_json_object(text: str, provider_name: str = "The model") -> dict[str, Any]:
    """The JSON object in a model's reply: bare, inside a Markdown code fence, or the
    first balanced ``{...}`` in surrounding prose. InvalidReplyError when none parses."""
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    for start in (i for i, ch in enumerate(text) if ch == "{"):
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    preview = " ".join(text.split())[:80]
    raise InvalidReplyError(f"{provider_name} did not reply with a JSON object: {preview!r}")
