"""Session summaries from the user's most frequent topic words."""

from __future__ import annotations

import pytest

from companion_desktop.engine.session_summary import fold_plural, keywords, summarize_session


def test_summary_of_the_most_frequent_topics():
    turns = [
        ("user", "I went hiking near Seattle last weekend."),
        ("assistant", "Work work work! Pizza pizza pizza pizza."),  # not the user's words
        ("user", "Hiking in Seattle is the best. Work has been busy."),
        ("user", "My work is stressful, but hiking helps."),
    ]
    summary, topics = summarize_session(turns, max_topics=3)
    assert topics == ["hiking", "Seattle", "work"]
    assert summary == "Talked about hiking, Seattle and work."


def test_default_is_five_topics_and_ties_keep_first_appearance():
    turns = [("user", "cats dogs birds fish snakes lizards frogs")]
    summary, topics = summarize_session(turns)
    assert topics == ["cat", "dog", "bird", "fish", "snake"]
    assert summary == "Talked about cat, dog, bird, fish and snake."


def test_plurals_fold_together():
    _, topics = summarize_session([("user", "my dog. Dogs bark, dogs and cities; a city")])
    assert topics[:2] == ["dog", "city"]


@pytest.mark.parametrize(
    ("word", "singular"),
    [("dogs", "dog"), ("cities", "city"), ("boxes", "box"), ("dishes", "dish"),
     ("glass", "glass"), ("news", "news"), ("bus", "bus"), ("tennis", "tennis"),
     ("hiking", "hiking")],
)
def test_fold_plural(word, singular):
    assert fold_plural(word) == singular


def test_one_and_two_topics_read_naturally():
    assert summarize_session([("user", "Guitar!")]) == ("Talked about guitar.", ["guitar"])
    assert summarize_session([("user", "guitar guitar and Berlin")]) == (
        "Talked about guitar and Berlin.", ["guitar", "Berlin"]
    )


@pytest.mark.parametrize(
    "turns",
    [[], [("assistant", "hiking in Seattle")], [("user", "")], [("user", "ok, yes, I am so")]],
)
def test_nothing_to_summarize(turns):
    assert summarize_session(turns) == ("", [])


def test_keywords_drop_stopwords_and_fold():
    assert keywords("Where are my dogs? I miss them!") == {"dog", "miss"}
