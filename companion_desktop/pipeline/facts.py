"""Facts: the one place they are written and searched (spec "Memory System").

``FactService`` runs the spec's creation path (importance from the content,
confidence 0.8, dedup against the facts of the same category: the same normalized
text, or a cosine similarity at the loaded model's dedup threshold, 0.9 on the spec's
scale: see ``memory.calibration``), edits, deletions, reference bumps, search and the
re-embedding backfill. Every write is one ``Database.session()`` transaction; the in-memory
``FactIndex`` of the loaded model is updated after it commits, so searches see
what the database holds. Without an embedder the service works in keyword mode.

Threads: the GUI adds and edits, a worker loads the model and runs the backfill
(``fact_model.ModelState``), the turn pipeline retrieves and bumps. A lock guards the
embedder and the index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

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
from companion_desktop.memory.calibration import Thresholds
from companion_desktop.memory.embeddings import Embedder
from companion_desktop.memory.index import FactIndex
from companion_desktop.memory.retrieval import (
    CANDIDATE_POOL,
    RELEVANT_W_IMP,
    RELEVANT_W_SIM,
    FactView,
    Retrieved,
    Retriever,
    keyword_ranking,
)
from companion_desktop.memory.vectors import to_bytes
from companion_desktop.pipeline.fact_model import (
    LOADING,
    OFF,
    READY,
    UNAVAILABLE,
    EmbeddingStatus,
    ModelState,
)
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.records import FactRecord

__all__ = [
    "CATEGORIES", "CATEGORY_NAMES", "LOADING", "OFF", "READY", "UNAVAILABLE", "EmbeddingStatus",
    "FactProblem", "FactService", "GraphFacts", "MAX_CONTENT", "PendingFact", "SearchResult",
    "fact_views",
]  # fmt: skip

CATEGORY_NAMES = {"user": "About you", "relationship": "Relationship",
                  "shared_experience": "Shared experience"}
#: Most characters a fact may have (the model writes one short sentence).
MAX_CONTENT = 1000


class FactProblem(ValueError):
    """A fact that cannot be saved (empty, too long, unknown category or id)."""


@dataclass(frozen=True)
class SearchResult:
    """Facts ranked for a text, best first, each with its score; ``used_embeddings`` is
    False when the ranking came from keywords."""

    hits: list[tuple[FactRecord, float]] = field(default_factory=list)
    used_embeddings: bool = False


@dataclass(frozen=True)
class GraphFacts:
    """Facts for the memory graph; ``vectors`` (n, dim) float32 rows match ``facts`` when
    every one has a vector of the loaded model, else None. ``thresholds``: the loaded
    model's (the graph's edge cut and hint floor)."""

    facts: list[FactRecord]
    vectors: np.ndarray | None
    thresholds: Thresholds | None = None


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


class FactService(ModelState):
    """Facts over one database; ``embedder`` (optional) is a ``memory.embeddings.Embedder``."""

    def __init__(self, db: Database, embedder: Embedder | None = None) -> None:
        super().__init__(db)
        if embedder is not None:
            self.set_embedder(embedder)

    def _embed_one(self, text: str) -> tuple[Embedder, np.ndarray] | None:
        """(embedder, vector) of ``text``, or None in keyword mode."""
        embedder = self.embedder
        if embedder is None:
            return None
        return embedder, np.asarray(embedder.embed_passages([text]), np.float32)[0]

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
        cut = self.thresholds.dedup
        best: tuple[float, FactRecord] | None = None
        for fact in repo.list_facts(session):
            if fact.category != category or fact.id == skip:
                continue
            if fact.id in stored and embedded is not None:
                cosine: float | None = float(np.dot(embedded[1], stored[fact.id][0]))
            else:
                cosine = None
            if not is_duplicate(text, fact.content, cosine, cut):
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

        With a model: cosine at or above its relevant-fact minimum (0.3 on the spec's
        scale) among the 500 most important, score 0.7 similarity + 0.3 importance/100.
        Without one, or when that finds nothing: facts sharing topic
        words (score: the share of the text's words they hold), then the 5 most important.
        """
        facts = {f.id: f for f in self.list()}
        limit = max(0, int(limit))
        with self._lock:
            index, embedder = self.index, self.embedder
        if embedder is not None and index is not None and len(index) and text.strip():
            query = np.asarray(embedder.embed_queries([text]), np.float32)[0]
            hits = index.search(query, limit=limit, min_similarity=self.thresholds.relevant,
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
        return GraphFacts(facts, np.stack([stored[f.id][0] for f in facts]), self.thresholds)

