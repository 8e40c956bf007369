"""Fact retrieval and re-embedding (``bench --only memory``)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from companion_desktop.cli.bench.stats import percentile


def bench_memory(report: Callable[[str], None] = print) -> None:
    """Retrieval over 500, 10,000 and 100,000 facts (query embedding apart), and backfill."""
    from companion_desktop.memory.index import FactIndex
    from companion_desktop.memory.retrieval import (
        CANDIDATE_POOL,
        RELEVANT_MIN_SIMILARITY,
        RELEVANT_W_IMP,
        RELEVANT_W_SIM,
    )

    rng = np.random.default_rng(0)
    for n in (500, 10_000, 100_000):
        vectors = rng.standard_normal((n, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        index = FactIndex(384)
        index.set_all(list(range(n)), vectors, rng.uniform(0, 100, n).tolist())
        query = vectors[7] * 0.8 + vectors[9] * 0.2
        query /= np.linalg.norm(query)
        for label, candidates in (("all facts", None),
                                  (f"{CANDIDATE_POOL} most important", CANDIDATE_POOL)):
            times = []
            for _ in range(30):
                t0 = time.perf_counter()
                index.search(query, limit=10, min_similarity=RELEVANT_MIN_SIMILARITY,
                             w_sim=RELEVANT_W_SIM, w_imp=RELEVANT_W_IMP, candidates=candidates)
                times.append((time.perf_counter() - t0) * 1000)
            report(f"  retrieval over {n:>7,} facts ({label}): "
                   f"p50 {statistics.median(times):.2f} ms, "
                   f"p95 {percentile(times, 95):.2f} ms (aim: 100,000 in < 10 ms)")
    try:
        from companion_desktop.memory.backfill import backfill
        from companion_desktop.memory.embeddings import (
            EmbedderUnavailable,
            load_embedder,
            resolve_model,
        )

        t0 = time.perf_counter()
        embedder = load_embedder(resolve_model())
        report(f"  embedding model {embedder.model_name}: "
               f"loaded in {time.perf_counter() - t0:.1f} s")
    except (ImportError, EmbedderUnavailable) as error:
        report(f"  embedding model: not available ({error}); query and backfill figures skipped")
        return
    embedder.embed(["warm up"])
    times = []
    for text in ("where did I grow up?", "what is my cat called", "do you remember our trip?") * 5:
        t0 = time.perf_counter()
        embedder.embed([text])
        times.append((time.perf_counter() - t0) * 1000)
    report(f"  query embedding: p50 {statistics.median(times):.1f} ms (apart from retrieval)")
    items = [(i, f"They mentioned detail number {i} about their day, their work and their family")
             for i in range(512)]
    t0 = time.perf_counter()
    count = sum(1 for _ in backfill(embedder, items, batch=32))
    elapsed = time.perf_counter() - t0
    report(f"  backfill: {count} facts in {elapsed:.2f} s = "
           f"{count / elapsed:.0f} facts/s (batches of 32)")
