"""FactIndex: writes keep the arrays current; search ranks, thresholds and is fast."""

from __future__ import annotations

import time

import numpy as np
import pytest

from companion_desktop.memory.index import FactIndex, Hit
from tests.memory.vector_helpers import DIM, at_similarity, unit

Q = unit(1.0)  # the query: the first basis vector


def small_index() -> FactIndex:
    index = FactIndex(DIM)
    index.set_all(
        [10, 20, 30],
        np.stack([at_similarity(0.9), at_similarity(0.5), at_similarity(0.1)]),
        [10, 50, 90],
    )
    return index


def search(index: FactIndex, **kw) -> list[Hit]:
    args = {"limit": 10, "min_similarity": 0.0, "w_sim": 0.7, "w_imp": 0.3} | kw
    return index.search(Q, **args)


def test_score_is_weighted_similarity_and_importance():
    hits = search(small_index())
    assert [h.id for h in hits] == [10, 20, 30]
    first = hits[0]
    assert first.similarity == pytest.approx(0.9, abs=1e-6)
    assert first.score == pytest.approx(0.7 * 0.9 + 0.3 * 0.10, abs=1e-6)
    # importance weighs more: the important, less similar fact wins
    assert [h.id for h in search(small_index(), w_sim=0.1, w_imp=0.9)] == [30, 20, 10]


def test_limit_and_min_similarity():
    index = small_index()
    assert [h.id for h in search(index, limit=2)] == [10, 20]
    assert [h.id for h in search(index, min_similarity=0.5)] == [10, 20]
    assert [h.id for h in search(index, min_similarity=0.95)] == []
    assert search(index, limit=0) == []


@pytest.mark.parametrize("threshold", [0.3, 0.5])
def test_similarity_exactly_at_the_threshold_counts(threshold):
    index = FactIndex(DIM)
    index.set_all(
        [1, 2, 3],
        np.stack([at_similarity(threshold + d) for d in (0.0, -1e-4, 1e-4)]),
        [50, 50, 50],
    )
    hits = search(index, min_similarity=threshold)
    assert sorted(h.id for h in hits) == [1, 3]


def test_several_queries_take_the_best_match():
    index = FactIndex(DIM)
    index.set_all([1, 2], np.stack([unit(1.0), unit(0.0, 1.0)]), [50, 50])
    hits = index.search(
        np.stack([unit(1.0), unit(0.0, 1.0)]), limit=5, min_similarity=0.9, w_sim=0.6, w_imp=0.4
    )
    assert sorted(h.id for h in hits) == [1, 2]
    assert all(h.similarity == pytest.approx(1.0) for h in hits)


def test_candidates_restrict_to_the_most_important_or_to_ids():
    index = small_index()
    assert [h.id for h in search(index, candidates=2)] == [20, 30]  # 90 and 50 most important
    assert [h.id for h in search(index, candidates=[10, 30, 999])] == [10, 30]
    assert index.top_important(2) == [30, 20]
    assert index.top_important(10) == [30, 20, 10]
    assert index.top_important(0) == []


def test_writes_keep_the_index_current():
    index = small_index()
    assert len(index) == 3 and 20 in index and 99 not in index
    index.upsert(40, at_similarity(0.95), 0)
    assert len(index) == 4 and search(index)[0].id == 40
    index.upsert(40, at_similarity(0.0), 0)  # replaced, not added
    assert len(index) == 4 and search(index, min_similarity=0.05)[-1].id != 40
    assert index.remove(10) and not index.remove(10)
    assert len(index) == 3 and 10 not in index
    assert sorted(index.ids()) == [20, 30, 40]
    assert index.update_importance(30, 100) and not index.update_importance(10, 1)
    assert index.top_important(1) == [30]
    np.testing.assert_allclose(index.vector(20), at_similarity(0.5), atol=1e-6)
    assert index.vector(10) is None


def test_growth_and_removal_keep_rows_consistent():
    rng = np.random.default_rng(7)
    index = FactIndex(DIM)
    vectors = {i: rng.standard_normal(DIM).astype(np.float32) for i in range(300)}
    for i, vec in vectors.items():
        index.upsert(i, vec, i % 100)
    for i in range(0, 300, 3):
        index.remove(i)
    assert len(index) == 200
    for i in (1, 2, 299):
        got = index.vector(i)
        np.testing.assert_allclose(got, vectors[i] / np.linalg.norm(vectors[i]), atol=1e-6)
        hit = index.search(vectors[i], limit=1, min_similarity=0.99, w_sim=1.0, w_imp=0.0)
        assert [h.id for h in hit] == [i]


def test_vectors_are_normalized_and_checked():
    index = FactIndex(4)
    index.upsert(1, np.array([3.0, 4.0, 0, 0]), 50)
    np.testing.assert_allclose(index.vector(1), [0.6, 0.8, 0, 0], atol=1e-7)
    with pytest.raises(ValueError):
        index.upsert(2, np.ones(5), 50)
    with pytest.raises(ValueError):
        index.set_all([1, 2], np.ones((2, 5)), [1, 2])
    with pytest.raises(ValueError):
        index.set_all([1, 1], np.ones((2, 4)), [1, 2])
    with pytest.raises(ValueError):
        index.set_all([1, 2], np.ones((2, 4)), [1])
    index.set_all([], np.zeros((0, 4)), [])
    assert len(index) == 0
    assert index.search(np.ones(4), limit=3, min_similarity=0, w_sim=1, w_imp=0) == []


def test_equal_scores_rank_by_id():
    index = FactIndex(DIM)
    index.set_all([5, 3, 4], np.stack([Q, Q, Q]), [50, 50, 50])
    assert [h.id for h in search(index)] == [3, 4, 5]


def test_ranks_100000_facts_fast():
    rng = np.random.default_rng(0)
    n = 100_000
    index = FactIndex(DIM)
    index.set_all(
        np.arange(n), rng.standard_normal((n, DIM)).astype(np.float32), rng.uniform(0, 100, n)
    )
    query = rng.standard_normal(DIM).astype(np.float32)
    args = {"limit": 10, "min_similarity": 0.0, "w_sim": 0.7, "w_imp": 0.3}
    index.search(query, **args)  # warm up
    times = []
    for _ in range(7):
        start = time.perf_counter()
        hits = index.search(query, **args)
        times.append(time.perf_counter() - start)
    best, median = min(times) * 1000, sorted(times)[3] * 1000
    print(f"\nFactIndex.search over {n:,} facts: best {best:.2f} ms, median {median:.2f} ms")
    assert len(hits) == 10
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    # the same answer as a brute-force ranking
    vecs = index._vecs[:n]  # noqa: SLF001 - checking against the stored arrays
    sims = vecs @ (query / np.linalg.norm(query))
    brute = 0.7 * sims + 0.3 * index._imp[:n] / 100  # noqa: SLF001
    assert [h.id for h in hits] == np.argsort(-brute, kind="stable")[:10].tolist()
    assert best < 100, f"{best:.1f} ms"  # < 10 ms on a quiet machine; generous for CI
