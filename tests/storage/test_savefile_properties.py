"""Property tests of the save file's validation and duplicate keys."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_desktop.storage.savefile import SaveFileError, fact_key
from companion_desktop.storage.savefile_schema import parse_save

BASE: dict[str, Any] = {
    "version": "2.0",
    "data": {
        "character": {
            "name": "Hana", "systemPrompt": "You are Hana.",
            "mood": {"primary": "neutral", "intensity": 50, "causes": []},
            "energy": 100, "affection": 0, "trust": 0, "intimacy": 0, "comfort": 0, "respect": 0,
            "relationshipStage": "stranger", "firstMet": "2024-05-01T10:00:00Z",
            "totalInteractions": 0, "createdAt": "2024-05-01T10:00:00Z",
            "updatedAt": "2024-05-01T10:00:00Z",
        },
        "facts": [{"content": "x", "category": "user", "createdAt": "2024-05-01T10:00:00Z"}],
    },
}  # fmt: skip

RANGES = {
    ("character", "energy"): (0, 100),
    ("character", "affection"): (0, 1000),
    ("character", "trust"): (0, 100),
    ("facts", "importance"): (0, 100),
    ("facts", "confidence"): (0, 1),
}


def _with(where: tuple[str, str], value: float) -> dict[str, Any]:
    raw = copy.deepcopy(BASE)
    kind, name = where
    target = raw["data"]["character"] if kind == "character" else raw["data"]["facts"][0]
    target[name] = value
    return raw


@pytest.mark.parametrize("where", list(RANGES))
@given(fraction=st.floats(min_value=0, max_value=1))
def test_values_in_range_are_accepted(where: tuple[str, str], fraction: float) -> None:
    low, high = RANGES[where]
    parse_save(_with(where, low + fraction * (high - low)))


@pytest.mark.parametrize("where", list(RANGES))
@given(excess=st.floats(min_value=1e-6, max_value=1e12))
def test_values_out_of_range_are_refused_by_name(where: tuple[str, str], excess: float) -> None:
    low, high = RANGES[where]
    for value in (low - excess, high + excess):
        if where[0] == "character" and low - 0.5 < value < high + 0.5:
            continue  # whole-point stats round, e.g. 100.2 -> 100 is still refused below
        with pytest.raises(SaveFileError, match=where[1]):
            parse_save(_with(where, value))


CATEGORIES = st.sampled_from(["user", "relationship", "shared_experience"])


@given(st.text(), CATEGORIES)
def test_fact_key_is_idempotent(content: str, category: str) -> None:
    key = fact_key(category, content)
    assert fact_key(category, key[1]) == key


@given(st.text(alphabet="abcXYZ émile ÉCOLE,.!?\t"), CATEGORIES)
def test_fact_key_ignores_case_spacing_and_final_punctuation(content: str, category: str) -> None:
    shouted = "  " + content.upper().replace(" ", "   ") + " !?."
    assert fact_key(category, shouted) == fact_key(category, content.lower())
