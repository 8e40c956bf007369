"""Emotion normalization and the mood causes list."""

from __future__ import annotations

import pytest

from companion_desktop.engine.character import EMOTIONS, MAX_MOOD_CAUSES
from companion_desktop.engine.emotions import (
    MAX_CAUSE_LENGTH,
    SYNONYMS,
    add_cause,
    normalize_emotion,
)


@pytest.mark.parametrize("emotion", EMOTIONS)
def test_canonical_names_pass_through(emotion: str) -> None:
    assert normalize_emotion(emotion) == emotion
    assert normalize_emotion(emotion.upper()) == emotion
    assert normalize_emotion(f"  {emotion}\n") == emotion


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("grateful|cared-for", "happy"),
        ("cared-for|grateful", "content"),
        ("cared_for", "content"),
        ("nervous", "anxious"),
        ("Happy!", "happy"),
        ("happy/excited", "happy"),
        ("nervous, shy", "anxious"),
        ("shy; nervous", "flustered"),
        ("sad-ish", "sad"),
        ("playful+affectionate", "playful"),
        ("very happy", "happy"),
        ("feeling cared for", "content"),
        ("xyzzy|curious", "curious"),
        ("joy", "happy"),
        ("joyful", "happy"),
        ("thrilled", "excited"),
        ("enthusiastic", "excited"),
        ("worried", "anxious"),
        ("scared", "anxious"),
        ("calm", "content"),
        ("relaxed", "content"),
        ("safe", "content"),
        ("angry", "frustrated"),
        ("annoyed", "frustrated"),
        ("intrigued", "curious"),
        ("loving", "affectionate"),
        ("love", "affectionate"),
        ("teasing", "playful"),
        ("mischievous", "playful"),
        ("wistful", "melancholy"),
        ("lonely", "melancholy"),
        ("embarrassed", "flustered"),
        ("blushing", "flustered"),
        ("sorrow", "sad"),
        ("depressed", "sad"),
        ("okay", "neutral"),
        ("none", "neutral"),
        ("on edge", "anxious"),
    ],
)
def test_free_form_and_compound_names(name: str, expected: str) -> None:
    assert normalize_emotion(name) == expected


@pytest.mark.parametrize(
    "name", ["", "   ", "xyzzy", "blorp|zork", "嬉しい", "!!!", "not happy", "gladiator"]
)
def test_unknown_names_are_none(name: str) -> None:
    assert normalize_emotion(name) is None


@pytest.mark.parametrize("value", [None, 3, 2.5, True, ["happy"], {"emotion": "happy"}, b"happy"])
def test_non_strings_are_none(value: object) -> None:
    assert normalize_emotion(value) is None


def test_synonym_table_targets_are_canonical() -> None:
    assert set(SYNONYMS.values()) <= set(EMOTIONS)
    assert not set(SYNONYMS) & set(EMOTIONS)


@pytest.mark.parametrize(
    ("causes", "cause", "expected"),
    [
        ([], "rain", ["rain"]),
        (["a"], None, ["a"]),
        (["a"], "   ", ["a"]),
        (["a"], "  b  ", ["a", "b"]),
        (["a", "b", "c", "d"], "e", ["a", "b", "c", "d", "e"]),
        (["a", "b", "c", "d", "e"], "f", ["b", "c", "d", "e", "f"]),
        (["a", "b", "c", "d", "e", "f", "g"], None, ["c", "d", "e", "f", "g"]),
        (["a", "b", "c"], "a", ["b", "c", "a"]),
    ],
)
def test_add_cause_keeps_last_five(
    causes: list[str], cause: str | None, expected: list[str]
) -> None:
    original = list(causes)
    assert add_cause(causes, cause) == expected
    assert causes == original  # not mutated
    assert len(expected) <= MAX_MOOD_CAUSES


def test_add_cause_caps_length() -> None:
    result = add_cause([], "x" * 500)
    assert result == ["x" * MAX_CAUSE_LENGTH]
    assert MAX_CAUSE_LENGTH == 120
