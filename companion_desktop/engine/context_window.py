"""Context window: token estimates, the memory budget and history truncation.

Pure (standard library only). Implements "Context Window and Memory Budget" of
the architecture spec. Token counts are estimates, never exact: one token per
CJK character, one per four other characters (rounded up).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Slider bounds and default of Settings > LLM Model > Context Window, in tokens.
CONTEXT_MIN = 1024
CONTEXT_MAX = 131072
CONTEXT_DEFAULT = 8192
#: Tokens kept free for the reply when history is truncated.
REPLY_RESERVE = 500
#: Recent turns retrieved from working memory when scaling is off (spec "Retrieval").
UNSCALED_RETRIEVAL_TURNS = 10

#: Inclusive code point ranges counted as one token per character.
_CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x1100, 0x11FF),  # Hangul Jamo
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x309F),  # Hiragana
    (0x30A0, 0x30FF),  # Katakana
    (0x3100, 0x312F),  # Bopomofo
    (0x3130, 0x318F),  # Hangul compatibility Jamo
    (0x31F0, 0x31FF),  # Katakana phonetic extensions
    (0x3200, 0x33FF),  # enclosed CJK letters, CJK compatibility
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA960, 0xA97F),  # Hangul Jamo extended A
    (0xAC00, 0xD7FF),  # Hangul syllables, Jamo extended B
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFE30, 0xFE4F),  # CJK compatibility forms
    (0xFF00, 0xFFEF),  # halfwidth and fullwidth forms
    (0x20000, 0x3134F),  # CJK extensions B-G, compatibility supplement
)


def is_cjk(ch: str) -> bool:
    """Whether the character ``ch`` is Han, Kana, Hangul or CJK punctuation/fullwidth."""
    code = ord(ch)
    if code < 0x1100:
        return False
    return any(low <= code <= high for low, high in _CJK_RANGES)


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: 1 per CJK character + ceil(other characters / 4)."""
    if not text:
        return 0
    cjk = sum(1 for ch in text if ord(ch) >= 0x1100 and is_cjk(ch))
    return cjk + math.ceil((len(text) - cjk) / 4)


@dataclass(frozen=True)
class MemoryBudget:
    """How much memory goes into the prompt: recent turns and relevant facts."""

    turns: int
    facts: int


def clamp_context_window(tokens: int) -> int:
    """A context window setting limited to CONTEXT_MIN..CONTEXT_MAX (bad values: default)."""
    try:
        value = int(tokens)
    except (TypeError, ValueError, OverflowError):
        return CONTEXT_DEFAULT
    return max(CONTEXT_MIN, min(CONTEXT_MAX, value))


def memory_budget(context_window: int, scaling: bool) -> MemoryBudget:
    """The spec's injection table.

    Scaling off: 6 turns, 5 facts. Scaling on: up to 4,096 tokens 6 turns and 3
    facts; up to 8,192 tokens 10 and 5; larger 20 and 10.
    """
    if not scaling:
        return MemoryBudget(turns=6, facts=5)
    if context_window <= 4096:
        return MemoryBudget(turns=6, facts=3)
    if context_window <= 8192:
        return MemoryBudget(turns=10, facts=5)
    return MemoryBudget(turns=20, facts=10)


def retrieval_turns(context_window: int, scaling: bool) -> int:
    """Turns working memory returns: the budgeted turns with scaling on, else 10."""
    if not scaling:
        return UNSCALED_RETRIEVAL_TURNS
    return memory_budget(context_window, True).turns


def truncate_history(
    system: str,
    history: list[tuple[str, str]],
    user_message: str,
    context_window: int,
    tool_schema_tokens: int = 0,
) -> list[tuple[str, str]]:
    """The newest part of ``history`` that fits the context window.

    ``history`` holds ``(role, content)`` pairs, oldest first, without the current
    user message. Oldest items are dropped until the system prompt, the tool
    schemas, the kept history, the current message and the 500-token reply
    reserve fit in ``context_window`` tokens. The system prompt and the current
    message are not part of the result and always stay, even when they alone do
    not fit (the history is then empty). When anything was dropped, leading
    non-user items are dropped too, so the kept history starts with a user turn
    and question/answer pairs stay together.
    """
    fixed = (
        estimate_tokens(system)
        + max(0, int(tool_schema_tokens))
        + estimate_tokens(user_message)
        + REPLY_RESERVE
    )
    costs = [estimate_tokens(content) for _role, content in history]
    total = fixed + sum(costs)
    start = 0
    while start < len(history) and total > context_window:
        total -= costs[start]
        start += 1
    if start > 0:
        while start < len(history) and history[start][0] != "user":
            start += 1
    return list(history[start:])
