"""The ``<avatar>`` prompt layer: the animations she may use, by id and description."""

from __future__ import annotations

from collections.abc import Sequence

MAX_LISTED = 40


def avatar_layer(animations: Sequence[tuple[str, str]]) -> str | None:
    """Layer text for enabled ``(id, description)`` pairs; None when none is enabled."""
    if not animations:
        return None
    lines = ["You have a body on their screen. You may play one of these animations by putting its",
             'id in the "action" field of your JSON block (or null). Use one only when it fits the',
             "moment, not every turn:"]
    for ident, description in list(animations)[:MAX_LISTED]:
        text = " ".join(description.split())[:120] or ident.replace("_", " ")
        lines.append(f"- {ident}: {text}")
    return "\n".join(lines)
