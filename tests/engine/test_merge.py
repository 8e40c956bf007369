"""Sanitizing the model's JSON block, merging it with the baseline, applying the mood."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion_desktop.engine.character import MoodState
from companion_desktop.engine.state_updates import (
    LLM_CLAMPS,
    LlmSuggestion,
    MoodChange,
    SharedReference,
    StateUpdates,
    apply_mood_change,
    merge_updates,
    sanitize_suggestion,
)

STATS = ("affection", "trust", "intimacy", "comfort", "respect")

# --- sanitize_suggestion -------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("affection_delta", 500, 20),
        ("affection_delta", -500, -20),
        ("affection_delta", 20, 20),
        ("affection_delta", 21, 20),
        ("affection_delta", 2.5, 3),  # half away from zero
        ("affection_delta", -2.5, -3),
        ("affection_delta", "+5", 5),
        ("affection_delta", " 3.7 ", 4),
        ("trust_delta", -99, -10),
        ("trust_delta", 10, 10),
        ("intimacy_delta", 11, 10),
        ("comfort_delta", -10.4, -10),
        ("respect_delta", 7, 7),
        ("affection_delta", True, None),
        ("affection_delta", False, None),
        ("affection_delta", None, None),
        ("affection_delta", math.nan, None),
        ("affection_delta", math.inf, None),
        ("affection_delta", "nan", None),
        ("affection_delta", "-inf", None),
        ("affection_delta", "five", None),
        ("affection_delta", "", None),
        ("affection_delta", [5], None),
        ("affection_delta", {"v": 5}, None),
        ("trust_delta", 10**100, 10),
    ],
)
def test_sanitize_numbers(key: str, value: object, expected: int | None) -> None:
    assert getattr(sanitize_suggestion({key: value}), key) == expected


@pytest.mark.parametrize(
    ("mood", "expected"),
    [
        ({"emotion": "happy", "intensity_delta": 80}, MoodChange("happy", 30)),
        ({"emotion": "sad", "intensity_delta": -31}, MoodChange("sad", -30)),
        ({"emotion": "sad", "intensity_delta": 30}, MoodChange("sad", 30)),
        ({"emotion": "grateful|cared-for", "intensity_delta": "10"}, MoodChange("happy", 10)),
        ({"emotion": "Nervous", "intensity_delta": 5, "cause": "  exam  "},
         MoodChange("anxious", 5, "exam")),  # fmt: skip
        ({"emotion": "happy"}, MoodChange("happy", 0)),
        ({"emotion": "happy", "intensity_delta": "lots"}, MoodChange("happy", 0)),
        ({"emotion": "happy", "cause": 3}, MoodChange("happy", 0)),
        ({"emotion": "blorp", "intensity_delta": 10}, None),  # unknown emotion drops it
        ({"intensity_delta": 10}, None),
        ("curious", MoodChange("curious", 0)),
        (None, None),
        ([1, 2], None),
    ],
)
def test_sanitize_mood_change(mood: object, expected: MoodChange | None) -> None:
    assert sanitize_suggestion({"mood_change": mood}).mood_change == expected


def test_sanitize_mood_cause_is_capped() -> None:
    change = sanitize_suggestion({"mood_change": {"emotion": "happy", "cause": "c" * 300}})
    assert change.mood_change is not None
    assert change.mood_change.cause == "c" * 120


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ("wave_01", "wave_01"),
        ("wave", "wave"),
        ("a", "a"),
        ("x" * 64, "x" * 64),
        ("x" * 65, None),
        ("Wave!", None),
        ("Wave", None),
        ("wave\n", "wave"),  # surrounding whitespace is stripped
        ("wave dance", None),
        ("", None),
        ("null", None),
        (None, None),
        (7, None),
    ],
)
def test_sanitize_action(action: object, expected: str | None) -> None:
    assert sanitize_suggestion({"action": action}).action == expected


@pytest.mark.parametrize(
    ("block", "field", "expected"),
    [
        ({"new_memory": "  They grew up in Seattle  "}, "new_memory", "They grew up in Seattle"),
        ({"new_memory": "m" * 600}, "new_memory", "m" * 500),
        ({"new_memory": "   "}, "new_memory", None),
        ({"new_memory": "null"}, "new_memory", None),
        ({"new_memory": 42}, "new_memory", None),
        ({"triggered_event": "first_date"}, "triggered_event", "first_date"),
        ({"triggered_event": "e" * 70}, "triggered_event", "e" * 64),
        ({"triggered_event": None}, "triggered_event", None),
        ({"expression": "happy"}, "expression", "happy"),
        ({"expression": "Embarrassed"}, "expression", "flustered"),
        ({"expression": "blorp"}, "expression", None),
        ({"expression": None}, "expression", None),
    ],
)
def test_sanitize_text_fields(block: dict[str, object], field: str, expected: object) -> None:
    assert getattr(sanitize_suggestion(block), field) == expected


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ({"type": "jokes", "content": "the penguin"}, SharedReference("jokes", "the penguin")),
        ({"type": "nicknames", "content": " Bun "}, SharedReference("nicknames", "Bun")),
        ({"type": "memory", "content": "the beach"}, SharedReference("memories", "the beach")),
        ({"type": "memories", "content": "x" * 250}, SharedReference("memories", "x" * 200)),
        ({"type": "secrets", "content": "x"}, None),
        ({"type": "jokes", "content": ""}, None),
        ({"type": "jokes"}, None),
        ({"content": "x"}, None),
        ("jokes", None),
    ],
)
def test_sanitize_shared_reference(ref: object, expected: SharedReference | None) -> None:
    assert sanitize_suggestion({"shared_reference": ref}).shared_reference == expected


@pytest.mark.parametrize("block", [None, [], "text", 3, {}, {"unknown": 1}])
def test_sanitize_empty_or_junk(block: object) -> None:
    assert sanitize_suggestion(block) == LlmSuggestion()


def test_llm_clamps_match_spec() -> None:
    assert LLM_CLAMPS["intensity_delta"] == 30
    assert LLM_CLAMPS["affection_delta"] == 20
    for stat in ("trust", "intimacy", "comfort", "respect"):
        assert LLM_CLAMPS[f"{stat}_delta"] == 10


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=80)
    | st.sampled_from(["+5", "3.7", "nan", "inf", "-1e400", " 7 ", "grateful|cared-for"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
KEYS = st.sampled_from(
    ["mood_change", "affection_delta", "trust_delta", "intimacy_delta", "comfort_delta",
     "respect_delta", "energy_delta", "new_memory", "triggered_event", "action",
     "expression", "shared_reference"]  # fmt: skip
)
MOOD = st.fixed_dictionaries(
    {}, optional={"emotion": JSON | st.sampled_from(["happy", "nervous"]),
                  "intensity_delta": JSON, "cause": JSON}  # fmt: skip
)
REF = st.fixed_dictionaries(
    {}, optional={"type": JSON | st.sampled_from(["jokes", "memory"]), "content": JSON}
)
BLOCKS = JSON | st.dictionaries(KEYS, JSON | MOOD | REF, max_size=12)


@settings(max_examples=400)
@given(BLOCKS)
def test_sanitize_never_raises_and_stays_in_clamps(block: object) -> None:
    s = sanitize_suggestion(block)
    for stat in STATS:
        value = getattr(s, f"{stat}_delta")
        assert value is None or (
            type(value) is int and abs(value) <= LLM_CLAMPS[f"{stat}_delta"]
        )
    if s.mood_change is not None:
        assert type(s.mood_change.intensity_delta) is int
        assert abs(s.mood_change.intensity_delta) <= LLM_CLAMPS["intensity_delta"]
    if s.action is not None:
        assert 1 <= len(s.action) <= 64
    merged = merge_updates(StateUpdates(), s)
    assert -5 <= merged.affection_delta <= 5


# --- merge_updates ---------------------------------------------------------------------

BASE = StateUpdates(energy_delta=-2, affection_delta=1)


@pytest.mark.parametrize(
    ("baseline_aff", "suggested", "expected"),
    [
        (0, 18, 5), (0, -18, -5), (0, 5, 5), (0, 4, 4),
        (4, 20, 8), (4, 8, 8), (4, -9, -8),
        (-3, 20, 6), (-3, -7, -6),
        (1, 20, 5), (3, 20, 6),
    ],  # fmt: skip
)
def test_rule2_affection_cap(baseline_aff: int, suggested: int, expected: int) -> None:
    baseline = StateUpdates(affection_delta=baseline_aff)
    merged = merge_updates(baseline, LlmSuggestion(affection_delta=suggested))
    assert merged.affection_delta == expected


@pytest.mark.parametrize(
    ("baseline_trust", "suggested", "expected"),
    [(0, 10, 3), (0, -10, -3), (0, 2, 2), (2, 10, 4), (2, -10, -4), (-3, 10, 6), (1, 10, 3)],
)
def test_rule3_trust_cap(baseline_trust: int, suggested: int, expected: int) -> None:
    baseline = StateUpdates(trust_delta=baseline_trust)
    assert merge_updates(baseline, LlmSuggestion(trust_delta=suggested)).trust_delta == expected


@pytest.mark.parametrize("stat", ["intimacy", "comfort", "respect"])
@pytest.mark.parametrize(
    ("suggested", "expected"),
    [(-10, -3), (-4, -3), (-3, -3), (0, 0), (5, 5), (6, 5), (10, 5)],
)
def test_rule4_other_stats_clamped(stat: str, suggested: int, expected: int) -> None:
    baseline = StateUpdates(**{f"{stat}_delta": 4})
    merged = merge_updates(baseline, LlmSuggestion(**{f"{stat}_delta": suggested}))
    assert getattr(merged, f"{stat}_delta") == expected


def test_rule1_mood_replaces_baseline() -> None:
    baseline = StateUpdates(mood_change=MoodChange("content", 6, "a warm conversation"))
    suggestion = LlmSuggestion(mood_change=MoodChange("playful", 10))
    assert merge_updates(baseline, suggestion).mood_change == MoodChange("playful", 10)
    assert merge_updates(baseline, LlmSuggestion()).mood_change == baseline.mood_change


def test_rule5_energy_from_baseline_even_with_energy_field() -> None:
    suggestion = sanitize_suggestion({"energy_delta": 50, "energy": 50})
    assert merge_updates(StateUpdates(energy_delta=-2), suggestion).energy_delta == -2


def test_rule6_pass_through() -> None:
    ref = SharedReference("jokes", "the penguin")
    suggestion = LlmSuggestion(
        new_memory="likes rain", triggered_event="first_date", action="wave",
        expression="happy", shared_reference=ref,
    )  # fmt: skip
    merged = merge_updates(BASE, suggestion)
    assert merged.new_memory == "likes rain"
    assert merged.triggered_event == "first_date"
    assert (merged.action, merged.expression, merged.shared_reference) == ("wave", "happy", ref)


def test_not_given_keeps_baseline() -> None:
    baseline = StateUpdates(energy_delta=-2, affection_delta=7, trust_delta=4,
                            intimacy_delta=-2, comfort_delta=3, respect_delta=-2)  # fmt: skip
    assert merge_updates(baseline, LlmSuggestion()) == baseline
    assert merge_updates(baseline, LlmSuggestion(), non_latin=True) == baseline


@pytest.mark.parametrize(
    ("non_latin", "expected"),
    [(True, (18, -10, 10, -10, 9)), (False, (5, -3, 5, -3, 5))],
)
def test_non_latin_branch_applies_deltas_as_given(
    non_latin: bool, expected: tuple[int, ...]
) -> None:
    block = {"affection_delta": 18, "trust_delta": -10, "intimacy_delta": 10,
             "comfort_delta": -10, "respect_delta": 9, "energy_delta": 5}  # fmt: skip
    merged = merge_updates(StateUpdates(energy_delta=-2), sanitize_suggestion(block), non_latin)
    assert tuple(getattr(merged, f"{s}_delta") for s in STATS) == expected
    assert merged.energy_delta == -2


def test_non_latin_still_within_sanitize_clamps() -> None:
    merged = merge_updates(StateUpdates(), sanitize_suggestion({"affection_delta": 500}), True)
    assert merged.affection_delta == 20


# --- apply_mood_change -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("intensity", "delta", "expected"),
    [(50, 10, 60), (95, 10, 100), (100, 30, 100), (5, -10, 0), (0, -30, 0), (50, 0, 50)],
)
def test_apply_mood_intensity_bounds(intensity: int, delta: int, expected: int) -> None:
    mood = MoodState("neutral", intensity)
    assert apply_mood_change(mood, MoodChange("happy", delta)).intensity == expected


def test_apply_mood_sets_primary_secondary_and_causes() -> None:
    mood = MoodState("content", 40, None, ["a", "b", "c", "d", "e"])
    new = apply_mood_change(mood, MoodChange("happy", 5, "a gift"))
    assert (new.primary, new.secondary, new.intensity) == ("happy", "content", 45)
    assert new.causes == ["b", "c", "d", "e", "a gift"]
    assert mood.causes == ["a", "b", "c", "d", "e"]  # original untouched


def test_apply_same_emotion_keeps_secondary() -> None:
    mood = MoodState("happy", 40, "curious", [])
    new = apply_mood_change(mood, MoodChange("happy", 5))
    assert (new.primary, new.secondary, new.causes) == ("happy", "curious", [])


def test_apply_none_or_unknown_returns_copy() -> None:
    mood = MoodState("sad", 70, "anxious", ["rain"])
    for change in (None, MoodChange("blorp", 10, "x")):
        new = apply_mood_change(mood, change)
        assert new == mood
        assert new is not mood and new.causes is not mood.causes
