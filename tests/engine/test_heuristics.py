"""Message analysis and the baseline table of DESIGN.md."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion_desktop.engine.heuristics import (
    BASELINE_CLAMPS,
    MessageAnalysis,
    analyze_message,
    calculate_baseline,
    is_non_latin_dominant,
    round_half_away,
)
from companion_desktop.engine.state_updates import MoodChange

# --- sentiment -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I am happy", 1.0),
        ("I am sad", -1.0),
        ("happy but sad", 0.0),
        ("great, great day, but sad", 1 / 3),
        ("the weather today", 0.0),
        (":)", 1.0),
        (":D", 1.0),
        ("<3", 1.0),
        ("❤", 1.0),
        ("😊", 1.0),
        (":(", -1.0),
        ("😢", -1.0),
        ("glad", 1.0),
        ("gladiator", 0.0),  # whole words only
        ("I am not happy", -1.0),  # negated positive counts as negative
        ("never good enough", -1.0),
        ("I don't love it", -1.0),
        ("I don\u2019t love it", -1.0),  # curly apostrophe
        ("not bad at all", 0.0),  # negated negative counts as neither
        ("no thanks", 0.0),  # polite refusal: neither
        ("No, I'm happy", 1.0),  # negation stops at punctuation
        ("not that I mind, I'm happy", 1.0),
        ("嬉しい :)", 0.0),  # non-Latin: sentiment skipped
    ],
)
def test_sentiment(text: str, expected: float) -> None:
    assert analyze_message(text).sentiment == pytest.approx(expected)


def test_sentiment_is_bounded_and_zero_for_non_latin() -> None:
    analysis = analyze_message("今日はとても楽しかった！ happy happy :)")
    assert analysis.non_latin is True
    assert analysis.sentiment == 0.0


# --- depth -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("length", "expected"),
    [(0, "shallow"), (80, "shallow"), (81, "moderate"), (200, "moderate"), (201, "deep")],
)
def test_depth_by_length_without_markers(length: int, expected: str) -> None:
    analysis = analyze_message("a" * length)
    assert analysis.depth_markers == 0
    assert analysis.length == length
    assert analysis.depth == expected


@pytest.mark.parametrize(
    ("text", "markers", "expected"),
    [
        ("because", 1, "moderate"),
        ("I think about my family", 2, "moderate"),
        ("I think about my family and my childhood", 3, "deep"),
        ("family family family", 1, "moderate"),  # distinct markers only
    ],
)
def test_depth_by_markers(text: str, markers: int, expected: str) -> None:
    analysis = analyze_message(text)
    assert analysis.depth_markers == markers
    assert analysis.depth == expected


# --- emotional, question, compliment, insult ---------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("I feel lonely tonight", True), ("I miss her", True), ("the bus is late", False)],
)
def test_emotional(text: str, expected: bool) -> None:
    assert analyze_message(text).emotional is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("You like tea?", True),
        ("元気ですか？", True),  # full-width question mark
        ("how are you", True),
        ("  Why not", True),
        ("What's up", True),
        ("Is it raining", True),
        ("could you help me", True),
        ("This is fine.", False),
        ("Howdy partner", False),
        ("Whatever.", False),
        ("", False),
    ],
)
def test_question(text: str, expected: bool) -> None:
    assert analyze_message(text).question is expected


@pytest.mark.parametrize(
    ("text", "compliment", "insult"),
    [
        ("thank you so much", True, False),
        ("thx", True, False),
        ("you're the best", True, False),
        ("I love you", True, False),
        ("Well done!", True, False),
        ("no thanks", False, False),
        ("shut up", False, True),
        ("you are stupid", False, True),
        ("you're not stupid", False, False),
        ("I hate you", False, True),
        ("I don't hate you", False, False),
        ("let's watch a movie", False, False),
    ],
)
def test_compliment_and_insult(text: str, compliment: bool, insult: bool) -> None:
    analysis = analyze_message(text)
    assert (analysis.compliment, analysis.insult) == (compliment, insult)


# --- non-Latin dominance -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("こんにちは、元気ですか", True),  # Japanese
        ("你好，你今天怎么样", True),  # Chinese
        ("안녕하세요 반가워요", True),  # Korean
        ("Привет, как дела?", True),  # Russian
        ("مرحبا كيف حالك", True),  # Arabic
        ("Γειά σου, τι κάνεις", True),  # Greek
        ("Hello, how are you?", False),
        ("Ça va très bien, merci", False),  # French
        ("Schöne Grüße aus München", False),  # German
        ("Tôi rất vui được gặp bạn", False),  # Vietnamese
        ("😊😊 123 !!", False),  # no letters
        ("", False),
        ("I love 東京", False),  # 5 Latin, 2 other
        ("ok 今日はとても楽しかった", True),  # 2 Latin, 11 other
        ("ab аб", False),  # exactly half is not more than half
    ],
)
def test_non_latin_dominance(text: str, expected: bool) -> None:
    assert is_non_latin_dominant(text) is expected
    assert analyze_message(text).non_latin is expected


# --- rounding ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("x", "expected"),
    [
        (0.0, 0), (0.4, 0), (0.5, 1), (1.5, 2), (2.5, 3), (-0.5, -1), (-1.5, -2),
        (-2.5, -3), (-1.6, -2), (0.49999999999999994, 0), (3, 3), (-4, -4),
    ],
)
def test_round_half_away(x: float, expected: int) -> None:
    assert round_half_away(x) == expected


# --- baseline table ----------------------------------------------------------------

NONE = MessageAnalysis()


def _deltas(analysis: MessageAnalysis) -> tuple[int, int, int, int, int, int]:
    b = calculate_baseline(analysis)
    return (b.energy_delta, b.affection_delta, b.trust_delta, b.intimacy_delta,
            b.comfort_delta, b.respect_delta)  # fmt: skip


@pytest.mark.parametrize(
    ("analysis", "expected"),
    [
        # (energy, affection, trust, intimacy, comfort, respect)
        (NONE, (-2, 1, 0, 0, 0, 0)),
        (replace(NONE, sentiment=0.5), (-2, 1 + 2, 1, 0, 1, 0)),
        (replace(NONE, sentiment=0.29), (-2, 1, 0, 0, 0, 0)),
        (replace(NONE, sentiment=-0.29), (-2, 1, 0, 0, 0, 0)),
        (replace(NONE, sentiment=-0.4), (-2, 1 - 2, -1, 0, -2, -1)),
        (replace(NONE, depth="deep"), (-2, 2, 2, 2, 0, 1)),
        (replace(NONE, depth="moderate"), (-2, 1, 1, 1, 0, 0)),
        (replace(NONE, emotional=True), (-2, 2, 1, 1, 1, 0)),
        (replace(NONE, question=True), (-2, 1, 0, 0, 1, 1)),
        (replace(NONE, compliment=True), (-2, 3, 0, 0, 0, 1)),
        (replace(NONE, insult=True), (-2, -2, -2, 0, -2, -2)),
    ],
)
def test_baseline_rows(analysis: MessageAnalysis, expected: tuple[int, ...]) -> None:
    assert _deltas(analysis) == expected


@pytest.mark.parametrize(
    ("sentiment", "affection"),
    [
        (0.625, 1 + 3),  # round(4 * 0.625) = round(2.5) = 3
        (0.375, 1 + 2),  # round(1.5) = 2
        (0.3, 1 + 1),  # round(1.2) = 1
        (1.0, 1 + 4),
        (-0.5, 1 - 3),  # round(5 * -0.5) = round(-2.5) = -3, half away from zero
        (-0.3, 1 - 2),  # round(-1.5) = -2
        (-1.0, 1 - 5),
    ],
)
def test_sentiment_affection_rounding(sentiment: float, affection: int) -> None:
    assert calculate_baseline(replace(NONE, sentiment=sentiment)).affection_delta == affection


ALL_POSITIVE = MessageAnalysis(
    sentiment=1.0, depth="deep", depth_markers=5, emotional=True, question=True, compliment=True
)
ALL_NEGATIVE = MessageAnalysis(sentiment=-1.0, insult=True)


def test_clamps_on_all_positive_signals() -> None:
    # raw: affection 1+4+1+1+2=9, trust 1+2+1=4, intimacy 2+1=3, comfort 1+1+1=3, respect 1+1+1=3
    assert _deltas(ALL_POSITIVE) == (-2, 9, 4, 3, 3, 3)


def test_clamps_on_all_negative_signals() -> None:
    # raw: affection 1-5-3=-7 -> -5, trust -1-2=-3, comfort -2-2=-4 -> -3, respect -1-2=-3 -> -2
    assert _deltas(ALL_NEGATIVE) == (-2, -5, -3, 0, -3, -2)


@given(
    st.floats(min_value=-1.0, max_value=1.0),
    st.sampled_from(["shallow", "moderate", "deep"]),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_baseline_always_within_clamps(
    s: float, depth: str, emotional: bool, question: bool, compliment: bool, insult: bool
) -> None:
    analysis = MessageAnalysis(s, depth, 0, emotional, question, compliment, insult)
    b = calculate_baseline(analysis)
    assert b.energy_delta == -2
    for stat, (low, high) in BASELINE_CLAMPS.items():
        assert low <= getattr(b, f"{stat}_delta") <= high


@pytest.mark.parametrize(
    ("sentiment", "expected"),
    [
        (1.0, MoodChange("happy", 20, "a warm conversation")),
        (0.6, MoodChange("happy", 12, "a warm conversation")),
        (0.59, MoodChange("content", 11, "a warm conversation")),
        (0.3, MoodChange("content", 6, "a warm conversation")),
        (0.29, None),
        (0.0, None),
        (-0.29, None),
        (-0.3, MoodChange("anxious", 6, "a difficult conversation")),
        (-0.59, MoodChange("anxious", 11, "a difficult conversation")),
        (-0.6, MoodChange("sad", 12, "a difficult conversation")),
        (-1.0, MoodChange("sad", 20, "a difficult conversation")),
    ],
)
def test_baseline_mood(sentiment: float, expected: MoodChange | None) -> None:
    assert calculate_baseline(replace(NONE, sentiment=sentiment)).mood_change == expected


def test_end_to_end_message() -> None:
    b = calculate_baseline(analyze_message("Thank you, you're the best :)"))
    # s = 1 (thank, best, :)), compliment: affection 1+4+2=7, trust 1, comfort 1, respect 1
    assert (b.affection_delta, b.trust_delta, b.comfort_delta, b.respect_delta) == (7, 1, 1, 1)
    assert b.mood_change == MoodChange("happy", 20, "a warm conversation")
