"""Re-embedding facts that have no vector from the current model, in batches.

A fact counts as unembedded when it has no vector or its vector was made by another
model (spec: "Facts from an older model count as unembedded"). After the model loads,
the app walks ``stale_ids`` through ``backfill`` on its embedding worker and writes each
``(id, vector)`` as it comes; cancelling stops before the next batch.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

import numpy as np

from .embeddings import Embedder

__all__ = ["BATCH_SIZE", "backfill", "stale_ids"]

BATCH_SIZE = 32
Id = TypeVar("Id", bound=Hashable)


def stale_ids(facts: Iterable[tuple[Id, str | None]], model_name: str) -> list[Id]:
    """Ids of ``(id, embedding_model)`` pairs whose model is not ``model_name``.

    Pass ``None`` as the model of a fact without a stored vector.
    """
    return [fid for fid, model in facts if model != model_name]


def backfill(
    embedder: Embedder,
    items: list[tuple[Id, str]],
    batch: int = BATCH_SIZE,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Iterator[tuple[Id, np.ndarray]]:
    """Yield ``(id, vector)`` for ``items`` (``(id, text)``), embedding ``batch`` at a time.

    ``progress(done, total)`` runs once before the first batch and after each one;
    ``cancelled()`` is asked before each batch, and True ends the walk there.
    """
    if batch < 1:
        raise ValueError(f"batch must be at least 1 (got {batch})")
    total = len(items)
    report = progress or (lambda _done, _total: None)
    stop = cancelled or (lambda: False)
    report(0, total)
    done = 0
    for start in range(0, total, batch):
        if stop():
            return
        chunk = items[start : start + batch]
        vectors = embedder.embed_passages([text for _, text in chunk])
        for (fid, _), vec in zip(chunk, vectors, strict=True):
            yield fid, vec
        done += len(chunk)
        report(done, total)
