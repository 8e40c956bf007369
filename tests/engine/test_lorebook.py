"""The lorebook's semantics: keys, secondary keys and selective logic, constant entries,
case, whole words, scan depth, order, priority and the token budget, recursion, and
regex keys held to a safe subset and a time budget."""

from __future__ import annotations

import time

import pytest

from companion_desktop.engine.lorebook import (
    REGEX_SECONDS,
    Lorebook,
    LoreEntry,
    UnsafePattern,
    safe_pattern,
    select_entries,
)


def book(*entries: LoreEntry, **options) -> Lorebook:
    return Lorebook(entries=entries, **options)


def names(entries) -> list[str]:
    return [e.name for e in entries]


def test_primary_keys_case_and_whole_words():
    b = book(LoreEntry("x", ("cat",), name="cat"), LoreEntry("y", ("Rome",), name="rome",
                                                                case_sensitive=True),
             LoreEntry("z", ("東京",), name="tokyo"))
    assert names(select_entries(b, ["My CAT sleeps"])) == ["cat"]
    assert names(select_entries(b, ["a category of things"])) == []  # whole words
    assert names(select_entries(b, ["rome is far"])) == []  # case-sensitive
    assert names(select_entries(b, ["Rome is far"])) == ["rome"]
    assert names(select_entries(b, ["東京に行った"])) == ["tokyo"]  # no word gaps needed


@pytest.mark.parametrize("logic, text, hit", [
    ("and_any", "storm at night", True), ("and_any", "storm today", False),
    ("and_all", "storm at night in rain", True), ("and_all", "storm at night", False),
    ("not_any", "storm today", True), ("not_any", "storm at night", False),
    ("not_all", "storm at night", True), ("not_all", "storm at night in rain", False),
])
def test_selective_logic(logic, text, hit):
    entry = LoreEntry("x", ("storm",), ("night", "rain"), selective=True, logic=logic, name="s")
    assert bool(select_entries(book(entry), [text])) is hit


def test_constant_disabled_and_scan_depth():
    b = book(LoreEntry("always", constant=True, name="c"),
             LoreEntry("off", ("boat",), enabled=False, name="off"),
             LoreEntry("deep", ("anchor",), name="deep", scan_depth=3),
             LoreEntry("near", ("anchor",), name="near"), scan_depth=1)
    messages = ["the anchor fell", "hm", "so?"]
    assert names(select_entries(b, messages)) == ["c", "deep"]
    assert names(select_entries(b, ["boat anchor"])) == ["c", "deep", "near"]


def test_order_priority_and_the_token_budget():
    long = "word " * 100  # about 125 tokens
    b = book(LoreEntry(long, ("sea",), order=30, name="late"),
             LoreEntry(long, ("sea",), order=10, name="early"),
             LoreEntry(long, ("sea",), order=20, priority=5, name="vip"), token_budget=260)
    assert names(select_entries(b, ["the sea"])) == ["vip", "late"]  # written by order
    assert names(select_entries(b, ["the sea"], token_budget=130)) == ["vip"]


def test_recursive_scanning():
    b = book(LoreEntry("Maren keeps the lighthouse.", ("Maren",), name="maren"),
             LoreEntry("It was built in 1820.", ("lighthouse",), name="built"), recursive=True)
    assert names(select_entries(b, ["Who is Maren?"])) == ["maren", "built"]
    flat = Lorebook(b.entries)
    assert names(select_entries(flat, ["Who is Maren?"])) == ["maren"]


def test_regex_keys():
    b = book(LoreEntry("x", ("/colou?r/i",), name="slash"),
             LoreEntry("y", (r"\bship\d+",), use_regex=True, name="flag"))
    assert names(select_entries(b, ["What COLOR?", "ship42 docked"])) == ["slash", "flag"]


@pytest.mark.parametrize("pattern", [
    "(a+)+$", "(a|aa)*b", "(.*a){12}", r"(\w+\s?)*$", ".*.*.*x", r"(a)\1", "(?=a)a",
    "x" * 201, "([a-z]+)*",
])
def test_patterns_that_could_backtrack_are_refused(pattern):
    with pytest.raises(UnsafePattern):
        safe_pattern(pattern)


def test_a_refused_pattern_never_matches_and_costs_nothing():
    entry = LoreEntry("x", ("/(a+)+$/",), name="evil")
    start = time.perf_counter()
    assert select_entries(book(entry), ["a" * 5000 + "!"]) == []
    assert time.perf_counter() - start < 0.5


def test_regex_keys_stop_when_their_time_is_spent():
    ticks = iter([0.0, REGEX_SECONDS + 1] + [REGEX_SECONDS + 2] * 20)
    b = book(LoreEntry("a", ("/al+pha/",), name="a"), LoreEntry("b", ("/be+ta/",), name="b"),
             LoreEntry("c", ("gamma",), name="c"))
    chosen = select_entries(b, ["alpha beta gamma"], timer=lambda: next(ticks))
    assert names(chosen) == ["a", "c"]  # the second regex came after the budget
