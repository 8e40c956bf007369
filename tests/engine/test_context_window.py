"""Token estimates, the memory budget table and history truncation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_desktop.engine.context_window import (
    CONTEXT_DEFAULT,
    CONTEXT_MAX,
    CONTEXT_MIN,
    REPLY_RESERVE,
    MemoryBudget,
    clamp_context_window,
    estimate_tokens,
    memory_budget,
    retrieval_turns,
    truncate_history,
)


def test_constants() -> None:
    assert (CONTEXT_MIN, CONTEXT_MAX, CONTEXT_DEFAULT, REPLY_RESERVE) == (1024, 131072, 8192, 500)


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("a", 1),
        ("abcd", 1),
        ("abcde", 2),
        ("Hello, how are you today?", 7),  # 25 characters -> ceil(25 / 4)
        ("こんにちは", 5),  # hiragana
        ("カタカナ", 4),  # katakana
        ("今日は雨です。", 7),  # kanji, hiragana and an ideographic full stop
        ("안녕하세요", 5),  # hangul
        ("你好，世界！", 6),  # fullwidth punctuation counts as CJK
        ("ﾊﾝｶｸ", 4),  # halfwidth katakana sit in the halfwidth/fullwidth block
        ("I love 寿司!", 2 + 2),  # 2 CJK + ceil(8 others / 4)
    ],
)
def test_estimate_tokens(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


@given(st.text())
def test_estimate_tokens_bounds(text: str) -> None:
    tokens = estimate_tokens(text)
    assert 0 <= tokens <= len(text)
    assert (tokens == 0) == (text == "")


@pytest.mark.parametrize(
    ("window", "scaling", "budget"),
    [
        (1024, True, MemoryBudget(6, 3)),
        (4096, True, MemoryBudget(6, 3)),
        (4097, True, MemoryBudget(10, 5)),
        (8192, True, MemoryBudget(10, 5)),
        (8193, True, MemoryBudget(20, 10)),
        (131072, True, MemoryBudget(20, 10)),
        (1024, False, MemoryBudget(6, 5)),
        (8192, False, MemoryBudget(6, 5)),
        (131072, False, MemoryBudget(6, 5)),
    ],
)
def test_memory_budget_table(window: int, scaling: bool, budget: MemoryBudget) -> None:
    assert memory_budget(window, scaling) == budget


@pytest.mark.parametrize(
    ("window", "scaling", "turns"),
    [(4096, True, 6), (8192, True, 10), (8193, True, 20), (4096, False, 10), (131072, False, 10)],
)
def test_retrieval_turns(window: int, scaling: bool, turns: int) -> None:
    assert retrieval_turns(window, scaling) == turns


@pytest.mark.parametrize(
    ("value", "expected"),
    [(0, 1024), (1024, 1024), (5000, 5000), (10**9, 131072), ("x", 8192), (None, 8192)],
)
def test_clamp_context_window(value: object, expected: int) -> None:
    assert clamp_context_window(value) == expected  # type: ignore[arg-type]


def _turns(count: int, size: int = 400) -> list[tuple[str, str]]:
    """``count`` alternating user/assistant items of ``size`` ASCII chars (size/4 tokens)."""
    return [
        ("user" if i % 2 == 0 else "assistant", f"{i:03d}" + "x" * (size - 3))
        for i in range(count)
    ]


def test_everything_fits_nothing_dropped() -> None:
    history = _turns(6)
    assert truncate_history("s" * 400, history, "hi", 8192) == history


def test_oldest_dropped_first_within_reserve() -> None:
    system = "s" * 4000  # 1000 tokens
    history = _turns(10)  # 100 tokens each
    message = "m" * 400  # 100 tokens
    # 1000 + 100 + 500 reserve = 1600 fixed; a 2000-token window leaves room for 4 items.
    kept = truncate_history(system, history, message, 2000)
    assert kept == history[-4:]
    assert kept[0][0] == "user"
    # One token less and the oldest kept pair goes: the next item would start with
    # an assistant message, so that one is dropped too.
    assert truncate_history(system, history, message, 1999) == history[-2:]


def test_reserve_is_exactly_500_tokens() -> None:
    history = _turns(2)  # 200 tokens
    fixed = estimate_tokens("sys") + estimate_tokens("msg")
    window = fixed + 200 + REPLY_RESERVE
    assert truncate_history("sys", history, "msg", window) == history
    assert truncate_history("sys", history, "msg", window - 1) == []


def test_tool_schema_tokens_count() -> None:
    history = _turns(4)
    assert len(truncate_history("", history, "", 900)) == 4
    assert truncate_history("", history, "", 900, tool_schema_tokens=100) == history[-2:]


def test_history_starts_with_user_turn_after_truncation() -> None:
    history = [("assistant", "a" * 400), ("user", "u" * 400), ("assistant", "b" * 400)]
    # Room for two items: dropping the oldest leaves user + assistant.
    assert truncate_history("", history, "", 700) == history[1:]
    # Room for one item: the assistant item left alone is dropped too.
    assert truncate_history("", history, "", 600) == []


def test_leading_assistant_kept_when_nothing_dropped() -> None:
    history = [("assistant", "Hello! I'm Hana."), ("user", "hi")]
    assert truncate_history("", history, "hey", 8192) == history


def test_system_and_message_larger_than_window() -> None:
    history = _turns(4)
    kept = truncate_history("s" * 100_000, history, "m" * 100, 1024)
    assert kept == []  # history goes; system and message are the caller's and stay


def test_japanese_history_counts_one_token_per_character() -> None:
    # 300 + 300 tokens: one per character
    history = [("user", "今日は" * 100), ("assistant", "そうですね" * 60)]
    assert truncate_history("", history, "", 1100) == history
    assert truncate_history("", history, "", 1099) == []


def test_input_not_modified() -> None:
    history = _turns(10)
    snapshot = list(history)
    truncate_history("s" * 4000, history, "m", 1500)
    assert history == snapshot
