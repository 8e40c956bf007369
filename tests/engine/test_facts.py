"""Facts: importance points, normalization, dedup rule, pattern extraction, baseline, cues."""

from __future__ import annotations

import pytest

from companion_desktop.engine.facts import (
    DEDUP_COSINE,
    DEFAULT_CONFIDENCE,
    DEFAULT_IMPORTANCE,
    baseline_memory,
    calculate_fact_importance,
    extract_potential_facts,
    is_duplicate,
    memory_triggers,
    normalize_fact,
)


def test_defaults_of_the_spec():
    assert DEFAULT_IMPORTANCE == 50
    assert DEFAULT_CONFIDENCE == 0.8
    assert DEDUP_COSINE == 0.9


# --- importance --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "expected", "why"),
    [
        ("They like pizza", 50, "nothing special"),
        ("They like the colour of old trains in the rain", 55, "> 40 chars"),
        ("They like to watch the old trains roll past the station late at night in the rain",
         60, "> 80 chars (5 + 5)"),
        ("They are jealous of the neighbours", 60, "emotional word, sentiment 0"),
        ("They have a dog", 65, "personal detail: pet"),
        ("Their sister has a dog", 70, "two kinds: family + pet (15 + 5)"),
        ("They enjoy pizza", 60, "strong sentiment (s = 1.0)"),
        ("They feel lonely", 70, "emotional word + strong sentiment (s = -1.0)"),
        ("They enjoy pizza but hate the rain", 60, "sentiment cancels out; 'hate' is emotional"),
        ("great great bad", 55, "moderate sentiment (s = 1/3)"),
        ("Their mother was diagnosed with cancer and they are terrified", 85,
         "> 40 chars 5, emotional 10, family + health 20"),
    ],
)
def test_importance_table(content, expected, why):
    assert calculate_fact_importance(content) == expected, why


def test_importance_is_capped_at_100_and_takes_a_base():
    text = (
        "Their mother was diagnosed with cancer on their birthday and they feel terrified, "
        "sad and lonely"
    )
    assert calculate_fact_importance(text) == 100
    assert calculate_fact_importance(text, base=90) == 100
    assert calculate_fact_importance("They like pizza", base=20) == 20
    assert calculate_fact_importance("They like pizza", base=-10) == 0
    assert isinstance(calculate_fact_importance("x"), int)


# --- normalization and dedup -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("They like pizza", "they like pizza"),
        ("  They   LIKE\tpizza!! ", "they like pizza"),
        ("\u201cThey like pizza.\u201d", "they like pizza"),
        ("\uff34hey like \ufb01sh", "they like fish"),  # NFKC: fullwidth T, fi ligature
        ("They\u2019re from Ohio...", "they're from ohio"),
        ("Their name is Dr. Who?", "their name is dr. who"),
        ("...", ""),
    ],
)
def test_normalize_fact(raw, normalized):
    assert normalize_fact(raw) == normalized


def test_is_duplicate_by_text_or_cosine():
    assert is_duplicate("They like pizza.", "they like PIZZA", None)
    assert is_duplicate("They like pizza", "They enjoy pizza", 0.9)
    assert is_duplicate("They like pizza", "They enjoy pizza", 0.95)
    assert not is_duplicate("They like pizza", "They enjoy pizza", 0.8999)
    assert not is_duplicate("They like pizza", "They like pasta", None)


# --- extraction -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "facts"),
    [
        ("I work at Google.", ["They work at Google"]),
        ("i work as a nurse in Leeds because I like it", ["They work as a nurse in Leeds"]),
        ("I live in New York City, it's loud", ["They live in New York City"]),
        ("My name is alex and I love jazz", ["Their name is Alex"]),
        ("I'm from Ohio", ["They are from Ohio"]),
        ("I grew up in Seattle", ["They grew up in Seattle"]),
        ("my favourite food is sushi!", ["Their favourite food is sushi"]),
        ("My favorite band is The Cure.", ["Their favorite band is The Cure"]),
        ("I have a dog named max", ["They have a dog named Max"]),
        ("I work for my dad", ["They work for their dad"]),
        ("hello there", []),
    ],
)
def test_user_message_patterns(message, facts):
    assert [c for c, _ in extract_potential_facts(message, "", False)] == facts
    assert all(cat == "user" for _, cat in extract_potential_facts(message, "", False))


@pytest.mark.parametrize(
    ("reply", "facts"),
    [
        ("You mentioned your sister lives in Paris, so I looked it up.",
         ["Their sister lives in Paris"]),
        ("I'll remember that you were born in May!", ["They were born in May"]),
        ("I will remember that your mom calls you Bee.", ["Their mom calls them Bee"]),
        ("I'll remember that!", []),
        ("You mentioned it before.", []),
    ],
)
def test_reply_patterns(reply, facts):
    assert [c for c, _ in extract_potential_facts("", reply, False)] == facts


def test_at_most_two_per_turn_or_one_with_a_model_memory():
    message = "My name is Alex. I work at Google. I live in Berlin. I'm from Ohio."
    reply = "You mentioned you love jazz."
    two = extract_potential_facts(message, reply, model_wrote_memory=False)
    assert [c for c, _ in two] == ["Their name is Alex", "They work at Google"]
    one = extract_potential_facts(message, reply, model_wrote_memory=True)
    assert [c for c, _ in one] == ["Their name is Alex"]
    # the reply fills the second slot when the message has one fact
    mixed = extract_potential_facts("I live in Berlin", reply, model_wrote_memory=False)
    assert [c for c, _ in mixed] == ["They live in Berlin", "They love jazz"]


def test_extraction_drops_duplicates_of_the_turn():
    facts = extract_potential_facts("I live in Berlin. i live in berlin!", "", False)
    assert [c for c, _ in facts] == ["They live in Berlin"]


# --- baseline memory --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "memory"),
    [
        ("I like hiking", "They like hiking"),
        ("I love my dog and my cats", "They love their dog"),
        ("I'm a nurse", "They are a nurse"),
        ("Honestly, I am 25 years old", "They are 25 years old"),
        ("I'm from Ohio", "They are from Ohio"),
        ("I'm fine, thanks", None),
        ("i am a bit tired", None),
        ("I'm not sure", None),
        ("I like it", None),
        ("I like you", None),
        ("What's up?", None),
        ("", None),
    ],
)
def test_baseline_memory(message, memory):
    assert baseline_memory(message) == memory


# --- triggered-memory cues ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cues"),
    [
        ("Do you remember when we went to the beach?", ["we went to the beach"]),
        ("remember the time I cried at the movies", ["I cried at the movies"]),
        ("What about that time we got lost", ["we got lost"]),
        ("I told Sarah about it", ["Sarah"]),
        ("We flew to New York with Sarah and Tom", ["New York", "Sarah", "Tom"]),
        ("Sarah is here. I think I'm OK", []),  # sentence start, "I", "I'm" and "OK"
        ("Do you remember Sarah?", ["Sarah"]),
        ("how are you", []),
    ],
)
def test_memory_triggers(text, cues):
    assert memory_triggers(text) == cues
