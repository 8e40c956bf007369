"""The embedding model behind ``FactService``: loading it, its status and the backfill.

``ModelState`` is the part of ``FactService`` that holds the embedder and the
in-memory index of its vectors: which model (the user's choice in Settings > Memory,
read from the database, see ``memory.choice``), its state and the reason it is the one
in use, and the re-embedding of facts whose vector is missing or from another model
(the model's name is stored with each vector, so switching models re-embeds through
the same backfill, with progress in ``status()``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from companion_desktop.memory.backfill import BATCH_SIZE, backfill
from companion_desktop.memory.calibration import Thresholds, thresholds_for
from companion_desktop.memory.embeddings import Embedder
from companion_desktop.memory.index import FactIndex
from companion_desktop.memory.vectors import from_bytes, to_bytes
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.memory_settings import MemorySettings
from companion_desktop.storage.settings import load_settings

__all__ = ["LOADING", "OFF", "READY", "UNAVAILABLE", "EmbeddingStatus", "ModelState"]

#: Embedding states (``EmbeddingStatus.state``).
OFF, LOADING, READY, UNAVAILABLE = "off", "loading", "ready", "unavailable"


@dataclass(frozen=True)
class EmbeddingStatus:
    """The embedding model as the Memory page shows it.

    ``state``: off, loading, ready or unavailable (``detail`` says why). ``done`` and
    ``total`` count the facts of the running re-embedding (0/0 when none runs).
    ``reason``: in plain words, why this model is the one in use (e.g. the multilingual
    model cannot run on this computer).
    """

    state: str
    model_name: str | None = None
    detail: str = ""
    done: int = 0
    total: int = 0
    reason: str = ""

    @property
    def backfilling(self) -> bool:
        return self.total > 0 and self.done < self.total


class ModelState:
    """The embedder, its index and the backfill; ``FactService`` builds on it."""

    db: Database

    def __init__(self, db: Database) -> None:
        self.db = db
        self._lock = threading.RLock()
        self.embedder: Embedder | None = None
        self.index: FactIndex | None = None
        self._state, self._model_name, self._detail, self._reason = OFF, None, "", ""
        self._run_done = self._run_total = 0

    def set_embedder(self, embedder: Embedder | None) -> None:
        """Use ``embedder`` (None: keyword mode) and build the index from the stored vectors
        of the same model; facts with no vector or another model's wait for the backfill."""
        with self._lock:
            self.embedder = embedder
            if embedder is None:
                self.index = None
                self._state = OFF if self._state == READY else self._state
                return
            self._state, self._model_name, self._detail = READY, embedder.model_name, ""
            self._rebuild_index_locked()

    def rebuild_index(self) -> None:
        """Reload the index from the database (after an import changed the facts)."""
        with self._lock:
            if self.embedder is not None:
                self._rebuild_index_locked()

    def _rebuild_index_locked(self) -> None:
        embedder = self.embedder
        assert embedder is not None
        with self.db.read_session() as session:
            stored = self._vectors(session, embedder)
        index = FactIndex(embedder.dim)
        ids = list(stored)
        vectors = (np.stack([stored[i][0] for i in ids]) if ids
                   else np.zeros((0, embedder.dim), np.float32))
        index.set_all(ids, vectors, [stored[i][1] for i in ids])
        self.index = index

    @staticmethod
    def _vectors(session: Session, embedder: Embedder,
                 category: str | None = None) -> dict[int, tuple[np.ndarray, float]]:
        """id -> (vector, importance) of the facts holding a valid vector of ``embedder``."""
        found = {}
        for fact_id, data, importance in repo.fact_vectors(session, embedder.model_name, category):
            vector = from_bytes(data, embedder.dim)
            if vector is not None:
                found[fact_id] = (vector, importance)
        return found

    def mark_loading(self, model_name: str | None) -> None:
        """Say that ``model_name`` is loading (searches stay on keywords meanwhile)."""
        with self._lock:
            self._state, self._model_name, self._detail = LOADING, model_name, ""

    def mark_unavailable(self, model_name: str | None, detail: str) -> None:
        """Say that no model could load; the service stays in keyword mode."""
        with self._lock:
            self.embedder, self.index = None, None
            self._state, self._model_name, self._detail = UNAVAILABLE, model_name, detail
            self._reason = ""

    def preference(self) -> str:
        """Settings > Memory's model choice ("auto", "multilingual" or "english")."""
        with self.db.read_session() as session:
            return load_settings(session, MemorySettings).model

    def load_model(self, configured_path: str | None = None,
                   preference: str | None = None) -> bool:
        """Load the model the settings ask for (blocking, about a second: call it on a
        worker); it replaces a loaded one, and the backfill then re-embeds.

        ``preference``: "auto", "multilingual" or "english" (None: the stored setting);
        ``configured_path``: a model folder that wins over both. When the multilingual
        model cannot run here the English one loads and ``status().reason`` says why.
        True when a model is ready; on a failure the service stays in keyword mode with
        the reason in ``status().detail``.
        """
        from companion_desktop.memory.choice import load_preferred
        from companion_desktop.memory.embeddings import FALLBACK_MODEL, EmbedderUnavailable

        wanted = preference or self.preference()
        self.mark_loading(self._model_name)
        try:
            loaded = load_preferred(wanted, configured_path)
        except EmbedderUnavailable as error:
            self.mark_unavailable(FALLBACK_MODEL, str(error))
            return False
        self.set_embedder(loaded.embedder)
        with self._lock:
            self._reason = loaded.reason
        return True

    @property
    def thresholds(self) -> Thresholds:
        """The similarity thresholds of the loaded model (the spec's without one)."""
        embedder = self.embedder
        return thresholds_for(embedder.model_name if embedder is not None else None)

    def status(self) -> EmbeddingStatus:
        with self._lock:
            return EmbeddingStatus(self._state, self._model_name, self._detail,
                                   self._run_done, self._run_total, self._reason)

    @property
    def uses_embeddings(self) -> bool:
        return self.embedder is not None


    def stale_count(self) -> int:
        """Facts without a vector of the loaded model (without one: facts with no vector)."""
        model = self.embedder.model_name if self.embedder is not None else ""
        with self.db.read_session() as session:
            return repo.count_stale_facts(session, model)

    def backfill_step(self, batch: int = BATCH_SIZE) -> tuple[int, int]:
        """Re-embed up to ``batch`` facts whose vector is missing or from another model
        (most important first), writing the bytes and the model name in one transaction.

        Returns (done, total) of the current run: facts re-embedded so far and how many it
        has to do; done == total once nothing is stale. (0, 0) in keyword mode.
        """
        embedder = self.embedder
        if embedder is None:
            return 0, 0
        with self.db.read_session() as session:
            stale = repo.stale_facts(session, embedder.model_name, max(1, batch))
            remaining = repo.count_stale_facts(session, embedder.model_name)
        with self._lock:
            if self._run_total == 0:
                self._run_done, self._run_total = 0, remaining
        written: list[tuple[int, np.ndarray, float]] = []
        if stale:
            vectors = dict(backfill(embedder, stale, batch=max(1, batch)))
            texts = dict(stale)
            with self.db.session() as session:
                for fact_id, vector in vectors.items():
                    fact = repo.get_fact(session, fact_id)
                    if fact is None or fact.content != texts[fact_id]:
                        continue  # deleted or edited meanwhile (an edit embeds itself)
                    repo.set_fact_embedding(session, fact_id, to_bytes(vector),
                                            embedder.model_name)
                    written.append((fact_id, vector, fact.importance))
        left = self.stale_count()
        with self._lock:
            if self.index is not None and self.embedder is embedder:
                for fact_id, vector, importance in written:
                    self.index.upsert(fact_id, vector, importance)
            self._run_done += len(written)
            self._run_total = max(self._run_total, self._run_done + left)
            done, total = self._run_done, self._run_total
            if left == 0:
                done = total
                self._run_done = self._run_total = 0
        return done, total

    def backfill_all(self, batch: int = BATCH_SIZE,
                     should_stop: Callable[[], bool] | None = None,
                     progress: Callable[[int, int], None] | None = None) -> int:
        """``backfill_step`` until nothing is stale or ``should_stop()``; returns the facts
        re-embedded. Blocking: run it on the embedding worker."""
        count = 0
        while self.embedder is not None and not (should_stop and should_stop()):
            before = self.stale_count()
            if before == 0:
                break
            done, total = self.backfill_step(batch)
            if progress is not None:
                progress(done, total)
            after = self.stale_count()
            count += max(0, before - after)
            if after >= before:
                break  # nothing could be written (facts changing underneath): later
        return count

    def describe(self) -> dict[str, Any]:
        """The status as plain data (for the command line)."""
        state = self.status()
        return {"state": state.state, "model": state.model_name, "detail": state.detail,
                "reason": state.reason, "stale": self.stale_count()}
