"""JSON replies: asking a model for a JSON object and reading it out of the reply.

Model output is untrusted: :func:`extract_json_object` only returns a dict, and its
error quotes at most 80 characters of the reply.
"""

from __future__ import annotations

import json
import re
from typing import Any

from companion_desktop.llm.base import ChatMessage, InvalidReplyError

#: Added to the system prompt of JSON calls whose prompt does not already ask for JSON.
JSON_INSTRUCTION = "Reply with only a JSON object, no other text."

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


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
