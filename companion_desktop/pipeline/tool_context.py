"""The conversation refit to the context window before each tool round's request.

Token estimates come from :mod:`companion_desktop.engine.context_window`: the system
prompt, the tool schemas (their JSON), the messages (text, tool calls and results;
images are not counted) and the 500-token reply reserve must fit the window; the
oldest history goes first.
"""

from __future__ import annotations

import json

from companion_desktop.engine.context_window import (
    clamp_context_window,
    estimate_tokens,
    truncate_history,
)
from companion_desktop.llm.base import ChatMessage, ToolSpec


def _message_text(message: ChatMessage) -> str:
    """What a message costs in tokens, as text (content, calls and results)."""
    parts = [message.content]
    parts += [f"{c.name} {json.dumps(c.arguments, ensure_ascii=False)}" for c in message.tool_calls]
    parts += [r.content for r in message.tool_results]
    return "\n".join(part for part in parts if part)


def specs_tokens(specs: list[ToolSpec]) -> int:
    """Estimated tokens of the tool schemas (their JSON)."""
    if not specs:
        return 0
    payload = [
        {"name": s.name, "description": s.description, "parameters": s.parameters} for s in specs
    ]
    return estimate_tokens(json.dumps(payload, ensure_ascii=False))


def fit_messages(
    system: str,
    messages: list[ChatMessage],
    specs: list[ToolSpec],
    context_window: int,
    current: int | None = None,
) -> list[ChatMessage]:
    """``messages`` without the oldest history that does not fit ``context_window`` tokens.

    ``messages[current]`` is this turn's user message (default: the last user message);
    it and everything after it (this turn's tool exchange) always stay, as does the
    system prompt. What is dropped: the oldest history first, then any leading non-user
    messages, so a kept history starts with a user turn and tool calls stay with their
    results. Budget: system + schemas + messages + the 500-token reply reserve (text
    only: images are not counted). ``context_window`` is clamped to 1,024..131,072.
    """
    if current is None:
        users = [i for i, m in enumerate(messages) if m.role == "user"]
        current = users[-1] if users else len(messages)
    history, tail = messages[:current], messages[current:]
    kept = truncate_history(
        system,
        [(m.role, _message_text(m)) for m in history],
        "\n".join(_message_text(m) for m in tail),
        clamp_context_window(context_window),
        specs_tokens(specs),
    )
    return history[len(history) - len(kept) :] + tail
