"""The in-memory retrieval index: fact vectors and importances as numpy arrays.

Filled once from the database (``set_all``) and kept current on every write
(``upsert``, ``remove``, ``update_importance``). Rows are packed: row ``i`` of
``vectors`` belongs to ``ids[i]``; a removal moves the last row into the gap, so
every operation but ``set_all`` is O(dim). Vectors are stored L2-normalized, so a dot
product is the cosine similarity.

``search`` ranks by ``w_sim * similarity + w_imp * importance / 100`` with one
matrix-vector product and ``argpartition``: 100,000 facts rank in a few
milliseconds. All methods are safe to call from several threads.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from .vectors import l2_normalize

__all__ = ["FactIndex", "Hit"]

_INITIAL_CAPACITY = 64
#: Float32 slack in the threshold test, so a similarity "exactly at" the minimum counts.
SIMILARITY_EPSILON = 1e-6


@dataclass(frozen=True)
class Hit:
    """A fact found by ``search``: cosine ``similarity`` (-1..1) and the ranking ``score``."""

    id: int
    similarity: float
    score: float


class FactIndex:
    """Vectors (float32, ``dim`` wide) and importances (0..100) of embedded facts."""

    def __init__(self, dim: int = 384) -> None:
        self.dim = int(dim)
        self._lock = threading.RLock()
        self._reset(0)

    def _reset(self, capacity: int) -> None:
        capacity = max(capacity, _INITIAL_CAPACITY)
        self._ids = np.zeros(capacity, dtype=np.int64)
        self._vecs = np.zeros((capacity, self.dim), dtype=np.float32)
        self._imp = np.zeros(capacity, dtype=np.float32)
        self._row: dict[int, int] = {}
        self._n = 0

    # --- writes ---------------------------------------------------------------------------

    def set_all(
        self, ids: Sequence[int], vectors: np.ndarray, importances: Sequence[float]
    ) -> None:
        """Replace everything. ``vectors`` is ``(len(ids), dim)``; ids must be unique."""
        ids_arr = np.asarray(ids, dtype=np.int64).reshape(-1)
        n = len(ids_arr)
        vecs = np.asarray(vectors, dtype=np.float32).reshape(n, -1) if n else None
        imp = np.asarray(importances, dtype=np.float32).reshape(-1)
        if vecs is not None and vecs.shape[1] != self.dim:
            raise ValueError(f"vectors are {vecs.shape[1]} wide, the index holds {self.dim}")
        if len(imp) != n:
            raise ValueError(f"{n} ids but {len(imp)} importances")
        if len(np.unique(ids_arr)) != n:
            raise ValueError("ids must be unique")
        with self._lock:
            self._reset(n)
            if vecs is not None:  # n > 0
                self._ids[:n] = ids_arr
                self._vecs[:n] = l2_normalize(vecs)
                self._imp[:n] = imp
            self._row = {int(i): r for r, i in enumerate(ids_arr.tolist())}
            self._n = n

    def upsert(self, fact_id: int, vector: np.ndarray, importance: float) -> None:
        """Add a fact, or replace its vector and importance."""
        vec = np.asarray(vector, dtype=np.float32).reshape(-1)
        if vec.shape[0] != self.dim:
            raise ValueError(f"vector is {vec.shape[0]} wide, the index holds {self.dim}")
        with self._lock:
            row = self._row.get(int(fact_id))
            if row is None:
                if self._n == len(self._ids):
                    self._grow()
                row = self._n
                self._n += 1
                self._row[int(fact_id)] = row
                self._ids[row] = fact_id
            self._vecs[row] = l2_normalize(vec)
            self._imp[row] = importance

    def _grow(self) -> None:
        capacity = len(self._ids) * 2
        self._ids = np.resize(self._ids, capacity)
        vecs = np.zeros((capacity, self.dim), dtype=np.float32)
        vecs[: self._n] = self._vecs[: self._n]
        self._vecs = vecs
        self._imp = np.resize(self._imp, capacity)

    def remove(self, fact_id: int) -> bool:
        """Drop a fact; False when it was not indexed."""
        with self._lock:
            row = self._row.pop(int(fact_id), None)
            if row is None:
                return False
            last = self._n - 1
            if row != last:
                moved = int(self._ids[last])
                self._ids[row] = moved
                self._vecs[row] = self._vecs[last]
                self._imp[row] = self._imp[last]
                self._row[moved] = row
            self._n = last
            return True

    def update_importance(self, fact_id: int, importance: float) -> bool:
        """Change a fact's importance; False when it is not indexed."""
        with self._lock:
            row = self._row.get(int(fact_id))
            if row is None:
                return False
            self._imp[row] = importance
            return True

    # --- reads ----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._n

    def __contains__(self, fact_id: object) -> bool:
        return isinstance(fact_id, (int, np.integer)) and int(fact_id) in self._row

    def ids(self) -> list[int]:
        with self._lock:
            return self._ids[: self._n].tolist()

    def vector(self, fact_id: int) -> np.ndarray | None:
        """A copy of a fact's (normalized) vector, or None."""
        with self._lock:
            row = self._row.get(int(fact_id))
            return None if row is None else self._vecs[row].copy()

    def _top_rows(self, n: int) -> np.ndarray:
        """Rows of the ``n`` most important facts (ties: any order), unsorted."""
        if n >= self._n:
            return np.arange(self._n)
        if n <= 0:
            return np.zeros(0, dtype=np.int64)
        return np.argpartition(-self._imp[: self._n], n - 1)[:n]

    def top_important(self, n: int) -> list[int]:
        """Ids of the ``n`` most important facts, most important first."""
        with self._lock:
            rows = self._top_rows(n)
            order = np.lexsort((self._ids[rows], -self._imp[rows]))
            return self._ids[rows[order]].tolist()

    def search(
        self,
        query_vec: np.ndarray,
        *,
        limit: int,
        min_similarity: float,
        w_sim: float,
        w_imp: float,
        candidates: int | Iterable[int] | None = None,
    ) -> list[Hit]:
        """The best ``limit`` facts with ``similarity >= min_similarity``, best first.

        (The threshold test allows ``SIMILARITY_EPSILON`` of float32 rounding.)

        ``query_vec`` is one vector ``(dim,)`` or several ``(k, dim)``; with several, a
        fact's similarity is its best match among them. ``candidates``: None for every
        fact, an int ``n`` for the ``n`` most important facts, or an iterable of ids.
        Equal scores rank by id.
        """
        q = l2_normalize(np.asarray(query_vec, dtype=np.float32).reshape(-1, self.dim))
        with self._lock:
            if limit <= 0 or self._n == 0 or len(q) == 0:
                return []
            if candidates is None:
                rows = None
                vecs, imp, ids = self._vecs[: self._n], self._imp[: self._n], self._ids[: self._n]
            else:
                if isinstance(candidates, (int, np.integer)):
                    rows = self._top_rows(int(candidates))
                else:
                    found = (self._row.get(int(i)) for i in candidates)
                    rows = np.fromiter((r for r in found if r is not None), dtype=np.int64)
                vecs, imp, ids = self._vecs[rows], self._imp[rows], self._ids[rows]
            sims = vecs @ q[0] if len(q) == 1 else (vecs @ q.T).max(axis=1)
            return _rank(sims, imp, ids, limit, min_similarity, w_sim, w_imp)


def _rank(
    sims: np.ndarray,
    imp: np.ndarray,
    ids: np.ndarray,
    limit: int,
    min_similarity: float,
    w_sim: float,
    w_imp: float,
) -> list[Hit]:
    scores = w_sim * sims + w_imp * (imp / 100.0)
    eligible = np.flatnonzero(sims >= min_similarity - SIMILARITY_EPSILON)
    if len(eligible) == 0:
        return []
    if len(eligible) > limit:
        best = np.argpartition(-scores[eligible], limit - 1)[:limit]
        eligible = eligible[best]
    order = np.lexsort((ids[eligible], -scores[eligible]))
    chosen = eligible[order]
    return [
        Hit(int(i), float(s), float(sc))
        for i, s, sc in zip(ids[chosen], sims[chosen], scores[chosen], strict=True)
    ]
