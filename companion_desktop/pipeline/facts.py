"""Facts: the one place they are written and searched (spec "Memory System").

``FactService`` runs the spec's creation path (importance from the content,
confidence 0.8, dedup against the facts of the same category: the same
normalized text, or a cosine similarity of 0.9 or more when an embedding model
is loaded), edits, deletions, reference bumps, search and the re-embedding
backfill. Every write is one ``Database.session()`` transaction; the in-memory
``FactIndex`` of the loaded model is updated after it commits, so searches see
what the database holds. Without an embedder the service works in keyword mode.

Threads: the GUI adds and edits, a worker loads the model and runs the backfill,
the turn pipeline retrieves and bumps. A lock guards the embedder and the index.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from companion_desktop.engine.facts import (
    CATEGORIES,
    DEFAULT_CONFIDENCE,
    calculate_fact_importance,
    is_duplicate,
    normalize_fact,
)
from companion_desktop.engine.session_summary import keywords
from companion_desktop.memory.backfill import BATCH_SIZE, backfill
from companion_desktop.memory.embeddings import Embedder
from companion_desktop.memory.index import FactIndex
from companion_desktop.memory.retrieval import (
    CANDIDATE_POOL,
    RELEVANT_MIN_SIMILARITY,
    RELEVANT_W_IMP,
    RELEVANT_W_SIM,
    FactView,
    Retrieved,
    Retriever,
    keyword_ranking,
)
from companion_desktop.memory.vectors import from_bytes, to_bytes
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.records import FactRecord

__all__ = [
    "CATEGORIES", "CATEGORY_NAMES", "LOADING", "OFF", "READY", "UNAVAILABLE", "EmbeddingStatus",
    "FactProblem", "FactService", "GraphFacts", "PendingFact", "SearchResult", "fact_views",
]  # fmt: skip

CATEGORY_NAMES = {"user": "About you", "relationship": "Relationship",
                  "shared_experience": "Shared experience"}
#: Most characters a fact may have (the model writes one short sentence).
MAX_CONTENT = 1000
#: Embedding states (``EmbeddingStatus.state``).
OFF, LOADING, READY, UNAVAILABLE = "off", "loading", "ready", "unavailable"


class FactProblem(ValueError):
    """A fact that cannot be saved (empty, too long, unknown category or id)."""


@dataclass(frozen=True)
class EmbeddingStatus:
    """The embedding model as the Memory page shows it.

    ``state``: off, loading, ready or unavailable (``detail`` says why). ``done`` and
    ``total`` count the facts of the running re-embedding (0/0 when none runs).
    """

    state: str
    model_name: str | None = None
    detail: str = ""
    done: int = 0
    total: int = 0

    @property
    def backfilling(self) -> bool:
        return self.total > 0 and self.done < self.total


@dataclass(frozen=True)
class SearchResult:
    """Facts ranked for a text, best first, each with its score; ``used_embeddings`` is
    False when the ranking came from keywords."""

    hits: list[tuple[FactRecord, float]] = field(default_factory=list)
    used_embeddings: bool = False


@dataclass(frozen=True)
class GraphFacts:
    """Facts for the memory graph; ``vectors`` (n, dim) float32 rows match ``facts`` when
    every one has a vector of the loaded model, else None."""

    facts: list[FactRecord]
    vectors: np.ndarray | None


def fact_views(facts: Iterable[FactRecord]) -> dict[int, FactView]:
    """Facts as the retriever takes them (id -> view)."""
    return {f.id: FactView(f.id, f.content, f.category, f.importance) for f in facts}


@dataclass
class PendingFact:
    """A fact written in a transaction not committed yet; call it after the commit to
    update the index. ``fact_id`` holds the memory; ``merged``: it was a duplicate."""

    service: FactService
    fact_id: int
    merged: bool
    embedded: tuple[Embedder, np.ndarray] | None
    importance: float

    def __call__(self) -> None:
        self.service._reindex(self.fact_id, self.embedded, self.importance)


class FactService:
    """Facts over one database; ``embedder`` (optional) is a ``memory.embeddings.Embedder``."""

    def __init__(self, db: Database, embedder: Embedder | None = None) -> None:
        self.db = db
        self._lock = threading.RLock()
        self.embedder: Embedder | None = None
        self.index: FactIndex | None = None
        self._state, self._model_name, self._detail = OFF, None, ""
        self._run_done = self._run_total = 0
        if embedder is not None:
            self.set_embedder(embedder)

    # ------------------------------------------------------------ embedder
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

    def load_model(self, configured_path: str | None = None) -> bool:
        """Find and load the embedding model (blocking, seconds: call it on a worker).

        ``configured_path``: a model folder from the settings (else the cached
        multilingual model or the shipped all-MiniLM-L6-v2). True when it is ready; on a
        failure the service stays in keyword mode with the reason in ``status().detail``.
        """
        from companion_desktop.memory.embeddings import (
            FALLBACK_MODEL,
            EmbedderUnavailable,
            load_embedder,
            resolve_model,
        )

        try:
            choice = resolve_model(configured_path)
        except EmbedderUnavailable as error:
            self.mark_unavailable(FALLBACK_MODEL, str(error))
            return False
        self.mark_loading(choice.name)
        try:
            embedder = load_embedder(choice)
        except EmbedderUnavailable as error:
            self.mark_unavailable(choice.name, str(error))
            return False
        self.set_embedder(embedder)
        return True

    def status(self) -> EmbeddingStatus:
        with self._lock:
            return EmbeddingStatus(self._state, self._model_name, self._detail,
                                   self._run_done, self._run_total)

    @property
    def uses_embeddings(self) -> bool:
        return self.embedder is not None

    def _embed_one(self, text: str) -> tuple[Embedder, np.ndarray] | None:
        """(embedder, vector) of ``text``, or None in keyword mode."""
        embedder = self.embedder
        if embedder is None:
            return None
        return embedder, np.asarray(embedder.embed([text]), np.float32)[0]

    # --------------------------------------------------------------- writes
    @staticmethod
    def _check(content: str, category: str) -> str:
        text = " ".join(str(content).split())
        if not normalize_fact(text):
            raise FactProblem("A memory needs some words.")
        if len(text) > MAX_CONTENT:
            raise FactProblem(f"A memory can be at most {MAX_CONTENT} characters long.")
        if category not in CATEGORIES:
            raise FactProblem(f"Unknown category {category!r}; use one of {', '.join(CATEGORIES)}.")
        return text

    def _duplicate(self, session: Session, text: str, category: str,
                   embedded: tuple[Embedder, np.ndarray] | None,
                   skip: int | None = None) -> FactRecord | None:
        """The fact of ``category`` that ``text`` repeats: the same normalized text first,
        else the highest cosine at or above the dedup threshold; None when it is new."""
        stored = self._vectors(session, embedded[0], category) if embedded else {}
        best: tuple[float, FactRecord] | None = None
        for fact in repo.list_facts(session):
            if fact.category != category or fact.id == skip:
                continue
            if fact.id in stored and embedded is not None:
                cosine: float | None = float(np.dot(embedded[1], stored[fact.id][0]))
            else:
                cosine = None
            if not is_duplicate(text, fact.content, cosine):
                continue
            rank = 2.0 if normalize_fact(text) == normalize_fact(fact.content) else cosine or 0.0
            if best is None or rank > best[0]:
                best = (rank, fact)
        return best[1] if best else None

    def add(self, content: str, category: str, now: datetime,
            source: str | None = None) -> tuple[int, bool]:
        """Create a fact (importance from its text, confidence 0.8, embedded when a model
        is loaded), or merge it into the duplicate of the same category, in one transaction.

        Returns (id, merged); on a merge the existing fact's reference count goes up by
        one and it keeps the larger importance. Raises FactProblem for bad input.
        """
        text = self._check(content, category)
        embedded = self._embed_one(text)  # before the write lock is taken
        with self.db.session() as session:
            pending = self._write_new(session, text, category, now, source, embedded)
        pending()
        return pending.fact_id, pending.merged

    def add_in(self, session: Session, content: str, category: str, now: datetime,
               source: str | None = None) -> PendingFact:
        """``add`` inside the caller's transaction (the turn's). Returns the pending index
        update: call it after the commit (it also tells the id and whether it merged).
        Raises FactProblem (a ValueError) for bad input."""
        text = self._check(content, category)
        return self._write_new(session, text, category, now, source, self._embed_one(text))

    def _write_new(self, session: Session, text: str, category: str, now: datetime,
                   source: str | None,
                   embedded: tuple[Embedder, np.ndarray] | None) -> PendingFact:
        importance = float(calculate_fact_importance(text))
        match = self._duplicate(session, text, category, embedded)
        if match is not None:
            importance = max(importance, match.importance)
            repo.update_fact(session, match.id, importance=importance,
                             reference_count=match.reference_count + 1)
            return PendingFact(self, match.id, True, None, importance)
        fact_id = repo.add_fact(session, text, category, now, importance, DEFAULT_CONFIDENCE,
                                source)
        if embedded is not None:
            repo.set_fact_embedding(session, fact_id, to_bytes(embedded[1]),
                                    embedded[0].model_name)
        return PendingFact(self, fact_id, False, embedded, importance)

    def edit(self, fact_id: int, content: str, category: str) -> tuple[int, bool]:
        """Change a fact's text and category; a new text gets a new importance and vector.

        When the new text repeats another fact of the category, the edited fact is folded
        into that one (references added, larger importance kept) and deleted. Returns (id
        of the fact that holds the memory now, merged).
        """
        text = self._check(content, category)
        embedded = self._embed_one(text)
        with self.db.session() as session:
            old = repo.get_fact(session, fact_id)
            if old is None:
                raise FactProblem("That memory is gone (deleted meanwhile).")
            same_text = old.content == text
            importance = old.importance if same_text else float(calculate_fact_importance(text))
            match = self._duplicate(session, text, category, embedded, skip=fact_id)
            if match is not None:
                importance = max(importance, match.importance, old.importance)
                repo.update_fact(session, match.id, importance=importance,
                                 reference_count=match.reference_count + old.reference_count + 1)
                repo.delete_fact(session, fact_id)
            else:
                repo.update_fact(session, fact_id, content=text, category=category,
                                 importance=importance)
                if embedded is not None:
                    repo.set_fact_embedding(session, fact_id, to_bytes(embedded[1]),
                                            embedded[0].model_name)
                elif not same_text:  # the old vector no longer describes the text
                    repo.set_fact_embedding(session, fact_id, None, None)
        if match is not None:
            self._unindex(fact_id)
            self._reindex(match.id, None, importance)
            return match.id, True
        if embedded is None and not same_text:
            self._unindex(fact_id)
        else:
            self._reindex(fact_id, embedded, importance)
        return fact_id, False

    def delete(self, fact_id: int) -> bool:
        """Delete a fact; False when it was already gone."""
        with self.db.session() as session:
            gone = repo.delete_fact(session, fact_id)
        self._unindex(fact_id)
        return gone

    def bump(self, ids: Iterable[int], now: datetime) -> int:
        """Reference count +1 and last accessed = ``now`` for each retrieved fact."""
        wanted = list(ids)
        if not wanted:
            return 0
        with self.db.session() as session:
            return repo.bump_references(session, wanted, now)

    def _reindex(self, fact_id: int, embedded: tuple[Embedder, np.ndarray] | None,
                 importance: float) -> None:
        """After a commit: index the new vector, or just the new importance."""
        with self._lock:
            if self.index is None or self.embedder is None:
                return
            if embedded is not None and embedded[0].model_name == self.embedder.model_name:
                self.index.upsert(fact_id, embedded[1], importance)
            else:
                self.index.update_importance(fact_id, importance)

    def _unindex(self, fact_id: int) -> None:
        with self._lock:
            if self.index is not None:
                self.index.remove(fact_id)

    # ---------------------------------------------------------------- reads
    def get(self, fact_id: int) -> FactRecord | None:
        with self.db.read_session() as session:
            return repo.get_fact(session, fact_id)

    def list(self, search: str | None = None, category: str | None = None) -> list[FactRecord]:
        """Facts whose text contains every word of ``search`` (case-insensitive), of one
        category or all; most important first."""
        with self.db.read_session() as session:
            facts = repo.list_facts(session)
        words = (search or "").casefold().split()
        chosen = [f for f in facts
                  if (category is None or f.category == category)
                  and all(w in f.content.casefold() for w in words)]
        chosen.sort(key=lambda f: (-f.importance, -f.reference_count, f.id))
        return chosen

    def search(self, text: str, limit: int = 10) -> list[tuple[FactRecord, float]]:
        """Facts ranked for ``text`` as retrieval ranks them, best first (see ``ranked``)."""
        return self.ranked(text, limit).hits

    def ranked(self, text: str, limit: int = 10) -> SearchResult:
        """Retrieval's ranking of the facts for ``text``.

        With a model: cosine >= 0.3 among the 500 most important, score 0.7 similarity +
        0.3 importance/100. Without one, or when that finds nothing: facts sharing topic
        words (score: the share of the text's words they hold), then the 5 most important.
        """
        facts = {f.id: f for f in self.list()}
        limit = max(0, int(limit))
        with self._lock:
            index, embedder = self.index, self.embedder
        if embedder is not None and index is not None and len(index) and text.strip():
            query = np.asarray(embedder.embed([text]), np.float32)[0]
            hits = index.search(query, limit=limit, min_similarity=RELEVANT_MIN_SIMILARITY,
                                w_sim=RELEVANT_W_SIM, w_imp=RELEVANT_W_IMP,
                                candidates=CANDIDATE_POOL)
            found = [(facts[h.id], h.score) for h in hits if h.id in facts]
            if found:
                return SearchResult(found, True)
        query_words = keywords(text)
        ranked = []
        for fact_id in keyword_ranking(text, fact_views(facts.values()), limit):
            shared = len(query_words & keywords(facts[fact_id].content))
            ranked.append((facts[fact_id], shared / len(query_words) if query_words else 0.0))
        return SearchResult(ranked, False)

    def retrieve(self, text: str, limit: int) -> tuple[Retrieved, dict[int, FactRecord]]:
        """The turn pipeline's retrieval (relevant and triggered ids) and the facts by id.
        The caller bumps ``Retrieved.all_ids`` when it uses them."""
        facts = {f.id: f for f in self.list()}
        with self._lock:
            retriever = Retriever(self.index or FactIndex(), self.embedder)
        return retriever.retrieve(text, fact_views(facts.values()), limit), facts

    def graph_facts(self, limit: int = 300) -> GraphFacts:
        """The ``limit`` most important facts, with their vectors when every one has a
        vector of the loaded model."""
        facts = self.list()[:limit]
        embedder = self.embedder
        if embedder is None or not facts:
            return GraphFacts(facts, None)
        with self.db.read_session() as session:
            stored = self._vectors(session, embedder)
        if any(f.id not in stored for f in facts):
            return GraphFacts(facts, None)
        return GraphFacts(facts, np.stack([stored[f.id][0] for f in facts]))

    # ------------------------------------------------------------- backfill
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
                "stale": self.stale_count()}
