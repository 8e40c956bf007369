"""Tests of the familiarity system (relationship-system.md)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from companion_desktop.engine.familiarity import (
    BASE_MODIFIERS,
    LEVEL_EMOJI,
    LEVEL_NAMES,
    LEVELS,
    MAX_REFERENCES_PER_TYPE,
    REFERENCE_TYPES,
    Familiarity,
    add_shared_reference,
    days_known,
    level_for_score,
    prompt_modifier,
    record_interaction,
    relationship_card,
    relationship_info,
    score_delta,
)

T0 = datetime(2024, 3, 1, 12, 0, tzinfo=timezone.utc)


def test_level_tables_cover_every_level():
    assert LEVELS == ("stranger", "acquaintance", "friend", "good_friend", "close_friend")
    assert [LEVEL_NAMES[lv] for lv in LEVELS] == [
        "Stranger", "Acquaintance", "Friend", "Good Friend", "Close Friend",
    ]
    assert set(LEVEL_EMOJI) == set(LEVELS) == set(BASE_MODIFIERS)
    assert LEVEL_EMOJI["friend"] == "🤝"
    assert REFERENCE_TYPES == ("jokes", "nicknames", "memories")


# --- score delta ---------------------------------------------------------


@pytest.mark.parametrize(
    ("sentiment", "length", "turns", "expected"),
    [
        (0.4, 100, 1, 0.55),  # spec: friendly chat
        (-0.3, 20, 1, 0.04),  # spec: short dismissive message
        (0.8, 800, 5, 1.0),  # spec: long, deep, positive conversation
        (0.0, 0, 0, 0.1),  # interaction bonus only
        (0.0, 1000, 0, 0.4),  # length bonus capped at 0.3
        (0.0, 100, 0, 0.3),  # length bonus = 100/500
        (0.0, 0, 10, 0.3),  # depth bonus capped at 0.2
        (0.0, 0, 2, 0.2),  # depth bonus = 2*0.05
        (1.0, 10_000, 100, 1.0),  # clamp high
        (-1.0, 0, 0, -0.4),  # most negative reachable
        (5.0, 0, 0, 0.6),  # sentiment clamped to 1 before use
        (-5.0, 0, 0, -0.4),  # sentiment clamped to -1 before use
        (0.0, -500, -10, 0.1),  # negative length/turns count as 0
        (math.nan, 0, 0, 0.1),  # NaN sentiment is neutral
    ],
)
def test_score_delta(sentiment, length, turns, expected):
    assert score_delta(sentiment, length, turns) == pytest.approx(expected)


@pytest.mark.parametrize("sentiment", [-1.0, -0.5, 0.0, 0.5, 1.0, 3.0, -3.0])
@pytest.mark.parametrize("length", [0, 250, 5000])
@pytest.mark.parametrize("turns", [0, 2, 50])
def test_score_delta_stays_in_range(sentiment, length, turns):
    assert -1.0 <= score_delta(sentiment, length, turns) <= 1.0


# --- levels --------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "level"),
    [
        (0, "stranger"),
        (20, "stranger"),
        (20.01, "acquaintance"),
        (21, "acquaintance"),
        (40, "acquaintance"),
        (40.5, "friend"),
        (41, "friend"),
        (60, "friend"),
        (61, "good_friend"),
        (80, "good_friend"),
        (80.5, "close_friend"),
        (81, "close_friend"),
        (100, "close_friend"),
    ],
)
def test_level_for_score_boundaries(score, level):
    assert level_for_score(score) == level


# --- record_interaction ---------------------------------------------------


def test_record_interaction_returns_new_object_and_leaves_input():
    rel = Familiarity(score=10.0, shared_references={"jokes": ["x"]})
    new = record_interaction(rel, 0.4, 100, 1, T0)
    assert new is not rel
    assert rel.score == 10.0 and rel.total_interactions == 0
    assert rel.first_interaction_at is None and rel.last_interaction_at is None
    assert new.score == pytest.approx(10.55)
    new.shared_references["jokes"].append("y")
    assert rel.shared_references == {"jokes": ["x"]}


@pytest.mark.parametrize(
    ("start", "sentiment", "length", "turns", "expected"),
    [
        (99.5, 1.0, 1000, 10, 100.0),  # would be 100.5
        (100.0, 1.0, 1000, 10, 100.0),
        (0.2, -1.0, 0, 0, 0.0),  # would be -0.2
        (0.0, -1.0, 0, 0, 0.0),
    ],
)
def test_score_clamped_per_interaction(start, sentiment, length, turns, expected):
    new = record_interaction(Familiarity(score=start), sentiment, length, turns, T0)
    assert new.score == pytest.approx(expected)


@pytest.mark.parametrize(
    ("sentiment", "length", "turns", "expected"),
    [(1.0, 1000, 10, 100.0), (-1.0, 0, 0, 0.0)],
)
def test_score_clamped_over_many_interactions(sentiment, length, turns, expected):
    rel = Familiarity(score=50.0)
    for i in range(300):
        rel = record_interaction(rel, sentiment, length, turns, T0 + timedelta(minutes=i))
        assert 0.0 <= rel.score <= 100.0
    assert rel.score == expected
    assert rel.total_interactions == 300


@pytest.mark.parametrize(
    ("sentiment", "positive", "negative"),
    [
        (0.2, 0, 0),
        (0.21, 1, 0),
        (-0.2, 0, 0),
        (-0.21, 0, 1),
        (0.0, 0, 0),
        (1.0, 1, 0),
        (-1.0, 0, 1),
    ],
)
def test_positive_negative_counting(sentiment, positive, negative):
    new = record_interaction(Familiarity(), sentiment, 10, 1, T0)
    assert new.total_interactions == 1
    assert (new.positive_interactions, new.negative_interactions) == (positive, negative)


def test_running_averages_over_three_interactions():
    rel = Familiarity()
    expected = [(100, 1, 100.0, 1.0), (200, 3, 150.0, 2.0), (30, 8, 110.0, 4.0)]
    for i, (length, turns, avg_len, avg_depth) in enumerate(expected):
        rel = record_interaction(rel, 0.0, length, turns, T0 + timedelta(hours=i))
        assert rel.avg_message_length == pytest.approx(avg_len)
        assert rel.conversation_depth_avg == pytest.approx(avg_depth)
    assert rel.total_interactions == 3


def test_first_and_last_timestamps():
    later = T0 + timedelta(days=2, hours=3)
    rel = record_interaction(Familiarity(), 0.5, 10, 1, T0)
    assert rel.first_interaction_at == T0 and rel.last_interaction_at == T0
    rel = record_interaction(rel, 0.5, 10, 1, later)
    assert rel.first_interaction_at == T0
    assert rel.last_interaction_at == later


def test_scope_is_kept():
    assert record_interaction(Familiarity(scope=123), 0.0, 1, 1, T0).scope == 123


# --- shared references -----------------------------------------------------


def test_eleventh_reference_drops_the_oldest():
    rel = Familiarity()
    for i in range(11):
        rel = add_shared_reference(rel, "jokes", f"joke {i}")
    jokes = rel.shared_references["jokes"]
    assert len(jokes) == MAX_REFERENCES_PER_TYPE == 10
    assert jokes[0] == "joke 1" and jokes[-1] == "joke 10"
    assert "joke 0" not in jokes


@pytest.mark.parametrize(
    "duplicate",
    ["the coffee incident", "The Coffee Incident", "  the   coffee\tincident \n",
     "THE COFFEE INCIDENT"],
)
def test_duplicate_references_ignored(duplicate):
    rel = add_shared_reference(Familiarity(), "jokes", "the coffee incident")
    again = add_shared_reference(rel, "jokes", duplicate)
    assert again.shared_references["jokes"] == ["the coffee incident"]


def test_same_content_allowed_under_another_type():
    rel = add_shared_reference(Familiarity(), "jokes", "buddy")
    rel = add_shared_reference(rel, "nicknames", "buddy")
    assert rel.shared_references == {"jokes": ["buddy"], "nicknames": ["buddy"]}


@pytest.mark.parametrize("content", ["", "   ", "\n\t"])
def test_empty_reference_ignored(content):
    rel = add_shared_reference(Familiarity(), "memories", content)
    assert rel.shared_references.get("memories", []) == []


@pytest.mark.parametrize("bad_type", ["joke", "Jokes", "secrets", ""])
def test_unknown_reference_type_raises(bad_type):
    with pytest.raises(ValueError, match="unknown shared reference type"):
        add_shared_reference(Familiarity(), bad_type, "anything")


def test_reference_stripped_and_truncated_and_input_untouched():
    rel = Familiarity(shared_references={"jokes": ["old"]})
    new = add_shared_reference(rel, "jokes", "  " + "a" * 250 + "  ")
    assert new.shared_references["jokes"] == ["old", "a" * 200]
    assert rel.shared_references == {"jokes": ["old"]}
    new = add_shared_reference(rel, "jokes", "  hello  ")
    assert new.shared_references["jokes"][-1] == "hello"


# --- prompt modifier -------------------------------------------------------

REFS = {
    "jokes": ["the coffee incident", "404 life not found"],
    "nicknames": ["debug buddy"],
    "memories": ["that time we debugged for 3 hours"],
}


@pytest.mark.parametrize(
    ("score", "level"),
    [(5, "stranger"), (30, "acquaintance"), (50, "friend"), (70, "good_friend"),
     (90, "close_friend")],
)
def test_prompt_modifier_without_references_is_base(score, level):
    assert prompt_modifier(Familiarity(score=score)) == BASE_MODIFIERS[level]


@pytest.mark.parametrize("score", [5, 30, 50, 60])
def test_prompt_modifier_below_good_friend_ignores_references(score):
    text = prompt_modifier(Familiarity(score=score, shared_references=REFS))
    assert text == BASE_MODIFIERS[level_for_score(score)]
    assert "coffee" not in text and "debug buddy" not in text and "Things you share" not in text


@pytest.mark.parametrize(("score", "level"), [(61, "good_friend"), (90, "close_friend")])
def test_prompt_modifier_with_references(score, level):
    text = prompt_modifier(Familiarity(score=score, shared_references=REFS))
    assert text == (
        BASE_MODIFIERS[level]
        + " You have inside jokes together: the coffee incident, 404 life not found."
        + " You sometimes call them: debug buddy."
        + " Things you share: that time we debugged for 3 hours."
    )


def test_close_friend_full_example_output():
    refs = {"jokes": ["the coffee incident", "404 life not found"], "nicknames": ["debug buddy"]}
    assert prompt_modifier(Familiarity(score=85, shared_references=refs)) == (
        "This is a close friend! Be very casual and familiar. "
        "Use inside jokes if you have any, be supportive and genuine. "
        "You can tease them gently and be more emotionally open. "
        "You have inside jokes together: the coffee incident, 404 life not found. "
        "You sometimes call them: debug buddy."
    )


def test_stranger_base_modifier_wording():
    assert BASE_MODIFIERS["stranger"] == (
        "This is someone you don't know well yet. Be polite and welcoming, "
        "but keep some professional distance. Use more formal language."
    )


def test_only_nicknames_for_good_friend():
    text = prompt_modifier(Familiarity(score=70, shared_references={"nicknames": ["x", "y"]}))
    assert text == BASE_MODIFIERS["good_friend"] + " You sometimes call them: x, y."


# --- days known, info, card ---------------------------------------------------


@pytest.mark.parametrize(
    ("delta", "days"),
    [(None, 0), (timedelta(0), 0), (timedelta(hours=23), 0), (timedelta(days=1), 1),
     (timedelta(days=23, hours=5), 23), (timedelta(days=-2), 0)],
)
def test_days_known(delta, days):
    first = None if delta is None else T0 - delta
    assert days_known(Familiarity(first_interaction_at=first), T0) == days


def test_days_known_accepts_naive_stored_timestamp_as_utc():
    rel = Familiarity(first_interaction_at=datetime(2024, 2, 1, 12, 0))
    assert days_known(rel, T0) == 29


def test_relationship_info():
    rel = Familiarity(
        score=52.456, total_interactions=47, positive_interactions=38, negative_interactions=3,
        avg_message_length=120.5, conversation_depth_avg=2.5,
        shared_references={"jokes": ["j"]},
        first_interaction_at=T0 - timedelta(days=23), last_interaction_at=T0,
    )
    info = relationship_info(rel, T0)
    assert info == {
        "level": "friend",
        "level_name": "Friend",
        "score": 52.46,
        "total_interactions": 47,
        "positive_interactions": 38,
        "negative_interactions": 3,
        "days_known": 23,
        "avg_message_length": 120.5,
        "conversation_depth_avg": 2.5,
        "shared_references": {"jokes": ["j"], "nicknames": [], "memories": []},
        "first_interaction_at": "2024-02-07T12:00:00+00:00",
        "last_interaction_at": "2024-03-01T12:00:00+00:00",
    }
    info["shared_references"]["jokes"].append("k")
    assert rel.shared_references == {"jokes": ["j"]}


def test_relationship_info_fresh():
    info = relationship_info(Familiarity(), T0)
    assert info["level"] == "stranger" and info["days_known"] == 0
    assert info["first_interaction_at"] is None and info["last_interaction_at"] is None


def test_relationship_card_example():
    rel = Familiarity(
        score=52.9, total_interactions=47, positive_interactions=38, negative_interactions=3,
        first_interaction_at=T0 - timedelta(days=23, hours=2),
    )
    assert relationship_card(rel, T0) == (
        "Your Relationship with Me\n"
        "Level: Friend 🤝\n"
        "Score: 52/100\n"
        "We've had 47 conversations together!\n"
        "- Positive vibes: 38 times\n"
        "- Rough patches: 3 times\n"
        "We've known each other for 23 days."
    )
    assert "*" not in relationship_card(rel, T0)


def test_relationship_card_singulars():
    rel = Familiarity(
        score=0.55, total_interactions=1, positive_interactions=1, negative_interactions=1,
        first_interaction_at=T0 - timedelta(days=1),
    )
    card = relationship_card(rel, T0).splitlines()
    assert card[1] == f"Level: Stranger {LEVEL_EMOJI['stranger']}"
    assert card[2] == "Score: 0/100"
    assert card[3] == "We've had 1 conversation together!"
    assert card[4] == "- Positive vibes: 1 time"
    assert card[5] == "- Rough patches: 1 time"
    assert card[6] == "We've known each other for 1 day."


def test_card_after_recorded_interactions():
    rel = Familiarity()
    for i in range(3):
        rel = record_interaction(rel, 0.4, 100, 1, T0 + timedelta(days=i))
    card = relationship_card(rel, T0 + timedelta(days=5))
    assert "We've had 3 conversations together!" in card
    assert "- Positive vibes: 3 times" in card
    assert "- Rough patches: 0 times" in card
    assert "We've known each other for 5 days." in card
    assert "Score: 1/100" in card  # 3 * 0.55 = 1.65, rounded down
