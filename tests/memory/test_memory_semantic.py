"""Retrieval with real vectors from the shipped model: related facts come first."""

from __future__ import annotations

import pytest

from companion_desktop.memory.index import FactIndex
from companion_desktop.memory.retrieval import FactView, Retriever

pytestmark = pytest.mark.slow

FACTS = [
    "They grew up in Seattle",
    "They like pizza",
    "They have a dog named Max",
    "They are afraid of spiders",
    "They work as a nurse at the city hospital",
    "Their sister Emma lives in Paris",
    "They went to the beach with Sarah last summer",
    "They play the guitar in a band",
    "They are allergic to peanuts",
    "Their birthday is on March 3rd",
]


@pytest.fixture(scope="module")
def retriever_and_facts(real_embedder):
    facts = {i: FactView(i, text, "user", 50) for i, text in enumerate(FACTS, start=1)}
    index = FactIndex(real_embedder.dim)
    index.set_all(list(facts), real_embedder.embed(FACTS), [50] * len(FACTS))
    return Retriever(index, real_embedder), facts


def fact_id(text: str) -> int:
    return FACTS.index(text) + 1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("where did I grow up?", "They grew up in Seattle"),
        ("what food do I like?", "They like pizza"),
        ("what scares me?", "They are afraid of spiders"),
        ("I miss my dog", "They have a dog named Max"),
        ("Can I eat this peanut butter cookie?", "They are allergic to peanuts"),
        ("I should practice my music", "They play the guitar in a band"),
        ("when is my birthday?", "Their birthday is on March 3rd"),
        ("do you know where my sister lives?", "Their sister Emma lives in Paris"),
    ],
)
def test_related_fact_ranks_first(retriever_and_facts, query, expected):
    retriever, facts = retriever_and_facts
    got = retriever.retrieve(query, facts, limit=5)
    assert got.used_embeddings
    assert got.relevant[0] == fact_id(expected), [facts[i].content for i in got.relevant]


def test_unrelated_facts_stay_below_the_threshold(retriever_and_facts):
    retriever, facts = retriever_and_facts
    got = retriever.retrieve("where did I grow up?", facts, limit=10)
    assert got.relevant == [fact_id("They grew up in Seattle")]
    assert fact_id("They like pizza") not in got.relevant


def test_a_named_cue_triggers_its_memory(retriever_and_facts):
    retriever, facts = retriever_and_facts
    got = retriever.retrieve("Do you remember Sarah?", facts, limit=5)
    assert got.triggered[:1] == [fact_id("They went to the beach with Sarah last summer")]
    got = retriever.retrieve("Tell me about Emma", facts, limit=5)
    assert got.triggered[:1] == [fact_id("Their sister Emma lives in Paris")]
