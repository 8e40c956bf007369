"""Conversation shaping and message serializers for the three wire formats, shared by
the providers. JSON-reply reading lives in :mod:`~companion_desktop.llm.json_reply`;
its names are importable from here too.

Images ride on user messages as base64 (OpenAI ``image_url`` data URLs, Anthropic
``image`` blocks before the text, Gemini ``inlineData`` parts before the text). Tool
calls and results are serialized as each API documents; :func:`pair_tool_turns` first
drops calls without results and results without calls (history cut in the middle of
a tool round), which every API refuses.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from companion_desktop.llm.base import (
    WIRE_IMAGE_TYPES,
    BadRequestError,
    ChatMessage,
    ImagePart,
    ToolResult,
)
from companion_desktop.llm.json_reply import (  # noqa: F401 - re-exported for the providers
    JSON_INSTRUCTION,
    extract_json_object,
    with_json_instruction,
)

#: Opens a conversation whose first message is the companion's (APIs that need a user first).
OPENING_USER_TURN = "(The conversation begins.)"
#: Put before an OpenAI tool result that is an error (that wire has no error flag).
TOOL_ERROR_PREFIX = "Error: "
#: Gemini's documented stand-in for a function call's missing thought signature.
GEMINI_SKIP_SIGNATURE = "skip_thought_signature_validator"


def has_parts(message: ChatMessage) -> bool:
    """True when ``message`` carries anything: text, images, tool calls or results."""
    return bool(
        message.content.strip() or message.images or message.tool_calls or message.tool_results
    )


def pair_tool_turns(messages: list[ChatMessage]) -> list[ChatMessage]:
    """``messages`` with every tool call answered and every result asked for: an
    assistant message keeps only the calls answered by the ``tool`` messages right
    after it, those keep only results to its calls (first result per call), and a
    message left with nothing is dropped. Other messages are untouched."""
    allowed: dict[int, set[str]] = {}
    answered: dict[int, set[str]] = {}
    for i, message in enumerate(messages):
        if message.role != "assistant" or not message.tool_calls:
            continue
        ids = {call.id for call in message.tool_calls}
        answered[i] = set()
        j = i + 1
        while j < len(messages) and messages[j].role == "tool":
            allowed[j] = ids
            answered[i] |= ids & {r.call_id for r in messages[j].tool_results}
            j += 1
    paired: list[ChatMessage] = []
    used: set[str] = set()
    for i, message in enumerate(messages):
        if not (message.tool_calls or message.tool_results):
            paired.append(message)
            continue
        keep = answered.get(i, set())
        calls = {c.id: c for c in message.tool_calls[::-1] if c.id in keep}  # first per id
        results = tuple(_new_results(message.tool_results, allowed.get(i, set()), used))
        ordered = tuple(c for c in message.tool_calls if calls.get(c.id) is c)
        trimmed = replace(message, tool_calls=ordered, tool_results=results)
        if has_parts(trimmed):
            paired.append(trimmed)
    return paired


def _new_results(
    results: Iterable[ToolResult], allowed: set[str], used: set[str]
) -> Iterable[ToolResult]:
    for result in results:
        if result.call_id in allowed and result.call_id not in used:
            used.add(result.call_id)
            yield result


def merge_turns(messages: list[ChatMessage], user_first: bool = True) -> list[ChatMessage]:
    """Strictly alternating turns for wire formats that refuse anything else.

    After :func:`pair_tool_turns`: messages with nothing in them are dropped;
    consecutive same-side messages are joined (``tool`` counts as the user's side:
    text by a blank line, images, calls and results kept in order, and a user message
    joined with tool results becomes a user message holding both); nothing is joined
    after an assistant message with tool calls, so its results stay right after it.
    When ``user_first``, a short user turn goes before a leading assistant message.
    """
    merged: list[ChatMessage] = []
    for message in pair_tool_turns(messages):
        if not has_parts(message):
            continue
        if merged and _can_join(merged[-1], message):
            merged[-1] = _join(merged[-1], message)
        else:
            merged.append(message)
    if user_first and merged and merged[0].role == "assistant":
        merged.insert(0, ChatMessage(role="user", content=OPENING_USER_TURN))
    return merged


def _side(message: ChatMessage) -> str:
    return "assistant" if message.role == "assistant" else "user"


def _can_join(first: ChatMessage, second: ChatMessage) -> bool:
    if _side(first) != _side(second):
        return False
    return not (first.role == "assistant" and first.tool_calls)


def _join(first: ChatMessage, second: ChatMessage) -> ChatMessage:
    text = "\n\n".join(t for t in (first.content, second.content) if t.strip())
    return ChatMessage(
        role=first.role if first.role == second.role else "user",
        content=text,
        images=first.images + second.images,
        tool_calls=first.tool_calls + second.tool_calls,
        tool_results=first.tool_results + second.tool_results,
    )


# -- images -----------------------------------------------------------------------------
def wire_image_type(image: ImagePart) -> str:
    """The image's media type as the APIs spell it (``image/jpg`` is ``image/jpeg``);
    BadRequestError for a type no vision API accepts (convert it before sending)."""
    mime = image.mime_type.strip().lower()
    mime = "image/jpeg" if mime in ("image/jpg", "image/pjpeg") else mime
    if mime not in WIRE_IMAGE_TYPES:
        raise BadRequestError(
            f"Images of type '{image.mime_type}' can't be shown to the model: "
            "only JPEG, PNG, GIF and WebP can be sent."
        )
    return mime


def image_base64(image: ImagePart) -> str:
    """The image bytes as standard base64 text."""
    return base64.b64encode(image.data).decode("ascii")


# -- OpenAI-compatible ------------------------------------------------------------------
def to_openai_content(message: ChatMessage) -> str | list[dict[str, Any]]:
    """The ``content`` of a message: the text, or for a user message with images a
    list of a ``text`` part (when there is text) and one ``image_url`` part (a
    ``data:`` URL) per image."""
    if message.role != "user" or not message.images:
        return message.content
    parts: list[dict[str, Any]] = []
    if message.content.strip():
        parts.append({"type": "text", "text": message.content})
    for image in message.images:
        url = f"data:{wire_image_type(image)};base64,{image_base64(image)}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def to_openai_messages(message: ChatMessage) -> list[dict[str, Any]]:
    """The chat-completions messages for one message: a ``tool`` message becomes one
    ``{"role": "tool", "tool_call_id", "content"}`` per result (errors prefixed
    "Error: "); an assistant message with calls carries ``tool_calls`` (arguments as
    JSON text) and ``content`` null when it has no text."""
    if message.role == "tool":
        return [
            {"role": "tool", "tool_call_id": r.call_id, "content": _openai_result_text(r)}
            for r in message.tool_results
        ]
    if message.role == "assistant" and message.tool_calls:
        calls = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]
        text = message.content if message.content.strip() else None
        return [{"role": "assistant", "content": text, "tool_calls": calls}]
    return [{"role": message.role, "content": to_openai_content(message)}]


def openai_messages(system: str, messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """The whole ``messages`` list: the system prompt (when any) first."""
    wire = [{"role": "system", "content": system}] if system else []
    for message in pair_tool_turns(messages):
        wire += to_openai_messages(message)
    return wire


def _openai_result_text(result: ToolResult) -> str:
    if result.is_error and not result.content.lower().startswith("error"):
        return TOOL_ERROR_PREFIX + result.content
    return result.content


# -- Anthropic --------------------------------------------------------------------------
def to_anthropic_content(message: ChatMessage) -> str | list[dict[str, Any]]:
    """The ``content`` of a message: plain text stays a string. A user-side message
    with images or results becomes blocks: ``tool_result`` blocks first (the API wants
    them first), then ``image`` blocks, then the text. An assistant message with calls
    becomes its text block (when any) and one ``tool_use`` block per call."""
    text_block = [{"type": "text", "text": message.content}] if message.content.strip() else []
    if message.role == "assistant":
        if not message.tool_calls:
            return message.content
        uses = [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                for c in message.tool_calls]
        return text_block + uses
    if not message.images and not message.tool_results:
        return message.content
    results = [
        {"type": "tool_result", "tool_use_id": r.call_id, "content": r.content,
         "is_error": r.is_error}
        for r in message.tool_results
    ]
    images = [
        {"type": "image", "source": {"type": "base64", "media_type": wire_image_type(i),
                                     "data": image_base64(i)}}
        for i in message.images
    ]
    return results + images + text_block


def anthropic_messages(messages: list[ChatMessage]) -> list[dict[str, Any]]:
    """The ``messages`` list: merged alternating turns (tool results as user turns)."""
    return [
        {"role": _side(m), "content": to_anthropic_content(m)} for m in merge_turns(messages)
    ]


# -- Google Gemini ----------------------------------------------------------------------
@dataclass(frozen=True)
class GeminiCallNote:
    """What Gemini said about a call beyond the ToolCall: whether ``id`` is its own
    (sent back then) and the part's ``thoughtSignature`` (sent back with the call)."""

    native_id: bool = False
    signature: str | None = None


def to_gemini_parts(
    message: ChatMessage, notes: Mapping[str, GeminiCallNote] | None = None
) -> list[dict[str, Any]]:
    """The ``parts`` of a message. User side: ``functionResponse`` parts (``response``
    is ``{"content": text}``, or ``{"error": text}`` for a failed call), then
    ``inlineData`` per image, then the text. Model side: the text, then one
    ``functionCall`` per call; the first call always has a ``thoughtSignature`` (its
    own, else Gemini's documented stand-in), later ones their own when known."""
    notes = notes or {}
    text = [{"text": message.content}] if message.content.strip() else []
    if message.role == "assistant":
        calls = []
        for n, call in enumerate(message.tool_calls):
            note = notes.get(call.id, GeminiCallNote())
            body: dict[str, Any] = {"name": call.name, "args": call.arguments}
            if note.native_id:
                body["id"] = call.id
            part: dict[str, Any] = {"functionCall": body}
            signature = note.signature or (GEMINI_SKIP_SIGNATURE if n == 0 else None)
            if signature:
                part["thoughtSignature"] = signature
            calls.append(part)
        return (text + calls) or [{"text": message.content}]
    responses = []
    for result in message.tool_results:
        key = "error" if result.is_error else "content"
        body = {"name": result.name, "response": {key: result.content}}
        if notes.get(result.call_id, GeminiCallNote()).native_id:
            body["id"] = result.call_id
        responses.append({"functionResponse": body})
    images = [{"inlineData": {"mimeType": wire_image_type(i), "data": image_base64(i)}}
              for i in message.images]
    return (responses + images + text) or [{"text": message.content}]


def gemini_contents(
    messages: list[ChatMessage], notes: Mapping[str, GeminiCallNote] | None = None
) -> list[dict[str, Any]]:
    """The ``contents`` list: merged alternating turns, roles ``user`` and ``model``."""
    return [
        {"role": "model" if m.role == "assistant" else "user",
         "parts": to_gemini_parts(m, notes)}
        for m in merge_turns(messages)
    ]
