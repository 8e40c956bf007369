"""Retrieval: the spec's weights, thresholds, limits, candidate pool and keyword fallback."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.memory.index import FactIndex
from companion_desktop.memory.retrieval import (
    CANDIDATE_POOL,
    KEYWORD_ALWAYS_INCLUDED,
    RELEVANT_MIN_SIMILARITY,
    TRIGGERED_IN_PROMPT,
    TRIGGERED_MAX,
    TRIGGERED_MIN_SIMILARITY,
    FactView,
    Retrieved,
    Retriever,
    keyword_ranking,
)
from tests.memory.vector_helpers import DIM, ScriptedEmbedder, at_similarity, axis


def test_the_spec_numbers():
    assert (RELEVANT_MIN_SIMILARITY, TRIGGERED_MIN_SIMILARITY) == (0.3, 0.5)
    assert (TRIGGERED_MAX, TRIGGERED_IN_PROMPT, KEYWORD_ALWAYS_INCLUDED) == (5, 3, 5)
    assert CANDIDATE_POOL == 500


def build(
    rows: list[tuple[int, np.ndarray, float]], extra: dict[int, FactView] | None = None
) -> tuple[FactIndex, dict[int, FactView]]:
    index = FactIndex(DIM)
    index.set_all([r[0] for r in rows], np.stack([r[1] for r in rows]), [r[2] for r in rows])
    facts = {fid: FactView(fid, f"fact {fid}", "user", imp) for fid, _, imp in rows}
    facts.update(extra or {})
    return index, facts


# --- relevant facts ---------------------------------------------------------------------------


def test_relevant_threshold_is_exactly_0_3():
    index, facts = build(
        [(1, at_similarity(0.3), 50), (2, at_similarity(0.2999), 100), (3, at_similarity(0.8), 0)]
    )
    embedder = ScriptedEmbedder({"hello": axis(0)})
    got = Retriever(index, embedder).retrieve("hello", facts, limit=5)
    assert got.used_embeddings
    assert got.relevant == [3, 1]  # 0.56 + 0 vs 0.21 + 0.15; fact 2 is below 0.3


def test_relevant_rank_70_similarity_30_importance():
    # a: 0.7*0.6 + 0.3*0.0 = 0.42 ; b: 0.7*0.4 + 0.3*0.5 = 0.43 -> b first
    index, facts = build([(1, at_similarity(0.6), 0), (2, at_similarity(0.4), 50)])
    got = Retriever(index, ScriptedEmbedder({"q": axis(0)})).retrieve("q", facts, limit=5)
    assert got.relevant == [2, 1]


def test_limit_is_the_callers_budget_and_at_most_10():
    rows = [(i, at_similarity(0.5 + i / 100), 50) for i in range(1, 21)]
    index, facts = build(rows)
    retriever = Retriever(index, ScriptedEmbedder({"q": axis(0)}))
    assert retriever.retrieve("q", facts, limit=3).relevant == [20, 19, 18]
    assert len(retriever.retrieve("q", facts, limit=10).relevant) == 10
    assert len(retriever.retrieve("q", facts, limit=50).relevant) == 10
    nothing = retriever.retrieve("q", facts, limit=0)
    assert nothing.relevant == [] and not nothing.used_embeddings


def test_only_the_500_most_important_facts_are_compared():
    # 600 facts; the perfect match has the lowest importance and falls outside the pool
    rows = [(i, at_similarity(0.31), 10 + i / 10) for i in range(1, 600)]
    rows.append((999, axis(0), 0.0))
    index, facts = build(rows)
    got = Retriever(index, ScriptedEmbedder({"q": axis(0)})).retrieve("q", facts, limit=10)
    assert got.used_embeddings and 999 not in got.relevant
    assert got.relevant == list(range(599, 589, -1))
    index.update_importance(999, 100)
    got = Retriever(index, ScriptedEmbedder({"q": axis(0)})).retrieve("q", facts, limit=10)
    assert got.relevant[0] == 999


def test_ids_missing_from_the_facts_are_skipped():
    index, facts = build([(1, at_similarity(0.9), 50), (2, at_similarity(0.8), 50)])
    del facts[1]
    got = Retriever(index, ScriptedEmbedder({"q": axis(0)})).retrieve("q", facts, limit=5)
    assert got.relevant == [2]


# --- triggered memories -------------------------------------------------------------------------


def test_triggered_threshold_is_exactly_0_5_and_weights_60_40():
    index, facts = build(
        [
            (1, at_similarity(0.5, to=1, other=2), 0),  # 0.30 + 0.00
            (2, at_similarity(0.4999, to=1, other=2), 100),  # below 0.5
            (3, at_similarity(0.55, to=1, other=2), 50),  # 0.33 + 0.20
        ]
    )
    text = "I saw Sarah today"
    embedder = ScriptedEmbedder({text: axis(5), "Sarah": axis(1)})
    got = Retriever(index, embedder).retrieve(text, facts, limit=5)
    assert embedder.calls == [[text, "Sarah"]]  # one batch: the message and its cues
    assert got.triggered == [3, 1]


def test_triggered_up_to_5_and_3_in_the_prompt():
    rows = [(i, at_similarity(0.6 + i / 100, to=1, other=2), 50) for i in range(1, 9)]
    index, facts = build(rows)
    text = "Do you remember when we met Tom?"
    embedder = ScriptedEmbedder({"we met Tom": axis(1)})
    got = Retriever(index, embedder).retrieve(text, facts, limit=5)
    assert got.triggered == [8, 7, 6, 5, 4]
    assert got.triggered_in_prompt == [8, 7, 6]
    assert embedder.calls == [[text, "we met Tom", "Tom"]]


def test_triggered_in_prompt_skips_facts_already_relevant():
    got = Retrieved(relevant=[1, 2], triggered=[2, 3, 1, 4, 5], used_embeddings=True)
    assert got.triggered_in_prompt == [3, 4, 5]
    assert got.all_ids == [1, 2, 3, 4, 5]


def test_several_cues_take_the_best_match():
    index, facts = build([(1, axis(1), 50), (2, axis(2), 50), (3, axis(3), 50)])
    text = "I told Sarah about Tom"
    embedder = ScriptedEmbedder({"Sarah": axis(1), "Tom": axis(2)})
    got = Retriever(index, embedder).retrieve(text, facts, limit=3)
    assert sorted(got.triggered) == [1, 2]


def test_no_cues_no_triggered_memories():
    index, facts = build([(1, axis(0), 50)])
    got = Retriever(index, ScriptedEmbedder({"hi there": axis(0)})).retrieve("hi there", facts, 5)
    assert got.triggered == [] and got.relevant == [1]


# --- keyword fallback --------------------------------------------------------------------------


def keyword_facts() -> dict[int, FactView]:
    texts = {
        1: ("They grew up in Seattle", 40),
        2: ("They like pizza", 30),
        3: ("Their dog Max loves the beach", 20),
        4: ("They work at the hospital", 90),
        5: ("Their sister lives in Paris", 85),
        6: ("Their birthday is in May", 80),
        7: ("They are allergic to peanuts", 75),
        8: ("They play the guitar", 70),
        9: ("Max the dog is old now", 10),
    }
    return {i: FactView(i, t, "user", imp) for i, (t, imp) in texts.items()}


def test_keyword_fallback_without_an_embedder_keeps_the_5_most_important():
    facts = keyword_facts()
    got = Retriever(FactIndex(DIM), None).retrieve("How is my dog Max doing?", facts, limit=5)
    assert not got.used_embeddings
    # overlap (dog, max: 2 words each) by importance, then the five most important
    assert got.relevant == [3, 9, 4, 5, 6, 7, 8]
    # the trigger "Max" finds the facts naming him, by keyword too
    assert got.triggered == [3, 9]


def test_keyword_fallback_when_embeddings_find_nothing():
    facts = keyword_facts()
    index = FactIndex(DIM)
    importances = [f.importance for f in facts.values()]
    index.set_all(list(facts), np.stack([axis(i) for i in facts]), importances)
    embedder = ScriptedEmbedder()  # every text lands on the last axis: nothing similar
    got = Retriever(index, embedder).retrieve("Any pizza tonight?", facts, limit=3)
    assert not got.used_embeddings
    assert got.relevant == [2, 4, 5, 6, 7, 8]
    assert embedder.calls  # the model was asked first


def test_keyword_fallback_with_an_empty_index_or_no_words():
    facts = keyword_facts()
    got = Retriever(FactIndex(DIM), ScriptedEmbedder()).retrieve("...", facts, limit=3)
    assert got.relevant == [4, 5, 6, 7, 8] and not got.used_embeddings
    assert Retriever(FactIndex(DIM)).retrieve("hello", {}, limit=3) == Retrieved()


@pytest.mark.parametrize("always", [0, 2, 5])
def test_keyword_ranking_always_included(always):
    facts = keyword_facts()
    ranked = keyword_ranking("pizza", facts, limit=10, always=always)
    assert ranked[0] == 2
    assert ranked[1:] == [4, 5, 6, 7, 8][:always]
