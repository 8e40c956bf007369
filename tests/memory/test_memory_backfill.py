"""Backfill: which facts need vectors, batches, progress and cancellation."""

from __future__ import annotations

import numpy as np
import pytest

from companion_desktop.memory.backfill import backfill, stale_ids
from tests.memory.vector_helpers import ScriptedEmbedder


def test_stale_ids_are_unembedded_or_from_another_model():
    facts = [(1, "sentence-transformers/all-MiniLM-L6-v2"), (2, None), (3, "old/model"), (4, "")]
    assert stale_ids(facts, "sentence-transformers/all-MiniLM-L6-v2") == [2, 3, 4]
    assert stale_ids([], "m") == []


def test_backfill_embeds_in_batches_with_progress():
    embedder = ScriptedEmbedder()
    items = [(i, f"fact {i}") for i in range(70)]
    progress: list[tuple[int, int]] = []
    out = list(backfill(embedder, items, batch=32, progress=lambda d, t: progress.append((d, t))))
    assert [len(c) for c in embedder.calls] == [32, 32, 6]
    assert embedder.calls[0][0] == "fact 0" and embedder.calls[2][-1] == "fact 69"
    assert [fid for fid, _ in out] == list(range(70))
    assert all(vec.shape == (384,) and vec.dtype == np.float32 for _, vec in out)
    assert progress == [(0, 70), (32, 70), (64, 70), (70, 70)]


def test_backfill_is_lazy_and_stops_when_cancelled():
    embedder = ScriptedEmbedder()
    items = [(i, f"fact {i}") for i in range(100)]
    stop = {"now": False}
    walk = backfill(embedder, items, batch=10, cancelled=lambda: stop["now"])
    assert embedder.calls == []  # nothing happens before the first item is asked for
    got = [next(walk) for _ in range(15)]  # two batches started
    stop["now"] = True
    got += list(walk)  # the rest of the current batch, then stop
    assert len(embedder.calls) == 2 and len(got) == 20


def test_cancelled_before_start_embeds_nothing():
    embedder = ScriptedEmbedder()
    progress: list[tuple[int, int]] = []
    out = list(backfill(embedder, [(1, "a")], progress=lambda d, t: progress.append((d, t)),
                        cancelled=lambda: True))
    assert out == [] and embedder.calls == [] and progress == [(0, 1)]


def test_empty_and_bad_batch():
    assert list(backfill(ScriptedEmbedder(), [])) == []
    with pytest.raises(ValueError):
        list(backfill(ScriptedEmbedder(), [(1, "a")], batch=0))
