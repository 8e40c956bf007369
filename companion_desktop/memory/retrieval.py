"""Which facts go into the prompt: the spec's ``retrieveRelevantContext``.

- Relevant facts: the message is embedded and compared by cosine similarity with up
  to 500 of the most important facts; rank 70% similarity + 30% importance/100,
  minimum similarity 0.3, up to ``limit`` (the caller's budget, at most 10).
- Triggered memories: each cue of ``engine.facts.memory_triggers`` ("remember when
  ...", names) is embedded; a fact's similarity is its best match with a cue; rank
  60% similarity + 40% importance/100, minimum 0.5, up to 5; the prompt takes at most
  3 of them (``Retrieved.triggered_in_prompt``).
- Keyword fallback, when no embedder is loaded, nothing is embedded yet, or the
  embeddings find nothing: facts sharing topic words with the message, by overlap then
  importance, up to ``limit``, plus the 5 most important facts, always.

The minimums are the spec's for its model's cosine scale; other models use their own
(``calibration.thresholds_for``). The message and cues are embedded as queries.

Pure: arrays, an optional ``Embedder`` and the facts the caller passes in. Bumping
reference counts of the returned ids is the caller's (storage's) job.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from companion_desktop.engine.facts import memory_triggers
from companion_desktop.engine.session_summary import keywords

from .calibration import thresholds_for
from .embeddings import Embedder
from .index import FactIndex

__all__ = [
    "CANDIDATE_POOL",
    "KEYWORD_ALWAYS_INCLUDED",
    "RELEVANT_MAX",
    "RELEVANT_MIN_SIMILARITY",
    "TRIGGERED_IN_PROMPT",
    "TRIGGERED_MAX",
    "TRIGGERED_MIN_SIMILARITY",
    "FactView",
    "Retrieved",
    "Retriever",
    "keyword_ranking",
]

CANDIDATE_POOL = 500
RELEVANT_W_SIM, RELEVANT_W_IMP = 0.7, 0.3
RELEVANT_MIN_SIMILARITY = 0.3
RELEVANT_MAX = 10
TRIGGERED_W_SIM, TRIGGERED_W_IMP = 0.6, 0.4
TRIGGERED_MIN_SIMILARITY = 0.5
TRIGGERED_MAX = 5
TRIGGERED_IN_PROMPT = 3
KEYWORD_ALWAYS_INCLUDED = 5


@dataclass(frozen=True)
class FactView:
    """What retrieval needs of a fact; ``importance`` is 0..100."""

    id: int
    content: str
    category: str = "user"
    importance: float = 50.0


@dataclass(frozen=True)
class Retrieved:
    """Fact ids, best first. ``used_embeddings``: ``relevant`` came from vectors."""

    relevant: list[int] = field(default_factory=list)
    triggered: list[int] = field(default_factory=list)
    used_embeddings: bool = False

    @property
    def triggered_in_prompt(self) -> list[int]:
        """Up to 3 triggered memories that are not already among the relevant facts."""
        chosen = set(self.relevant)
        return [i for i in self.triggered if i not in chosen][:TRIGGERED_IN_PROMPT]

    @property
    def all_ids(self) -> list[int]:
        """Every retrieved id once (relevant first): the ones to bump."""
        return list(dict.fromkeys(self.relevant + self.triggered))


def _by_importance(facts: Mapping[int, FactView]) -> list[FactView]:
    return sorted(facts.values(), key=lambda f: (-f.importance, f.id))


def keyword_ranking(
    text: str, facts: Mapping[int, FactView], limit: int, always: int = KEYWORD_ALWAYS_INCLUDED
) -> list[int]:
    """Facts sharing topic words with ``text`` (most shared, then most important) up to
    ``limit``, followed by the ``always`` most important facts not already listed."""
    query = keywords(text)
    scored = []
    if query:
        for fact in facts.values():
            overlap = len(query & keywords(fact.content))
            if overlap:
                scored.append((-overlap, -fact.importance, fact.id))
    chosen = [fid for _, _, fid in sorted(scored)[: max(0, limit)]]
    for fact in _by_importance(facts)[: max(0, always)]:
        if fact.id not in chosen:
            chosen.append(fact.id)
    return chosen


def _keyword_triggered(cues: list[str], facts: Mapping[int, FactView]) -> list[int]:
    words = set().union(*(keywords(c) for c in cues)) if cues else set()
    if not words:
        return []
    scored = []
    for fact in facts.values():
        overlap = len(words & keywords(fact.content))
        if overlap:
            scored.append((-overlap, -fact.importance, fact.id))
    return [fid for _, _, fid in sorted(scored)[:TRIGGERED_MAX]]


class Retriever:
    """Retrieval over a ``FactIndex``; ``embedder`` may be set later (when it loads)."""

    def __init__(self, index: FactIndex, embedder: Embedder | None = None) -> None:
        self.index = index
        self.embedder = embedder

    def retrieve(self, text: str, facts: Mapping[int, FactView], limit: int) -> Retrieved:
        """Relevant and triggered fact ids for the user message ``text``.

        ``facts`` holds every fact (id -> view); ids the index knows but ``facts`` lacks
        are skipped. ``limit`` is clamped to 0..10; 0 retrieves no relevant facts.
        """
        limit = max(0, min(RELEVANT_MAX, int(limit)))
        text = text or ""
        cues = memory_triggers(text)
        relevant: list[int] = []
        triggered: list[int] | None = None
        embedder = self.embedder
        if embedder is not None and len(self.index) and text.strip():
            vectors = embedder.embed_queries([text, *cues])
            minimums = thresholds_for(embedder.model_name)
            if limit:
                hits = self.index.search(
                    vectors[0],
                    limit=limit,
                    min_similarity=minimums.relevant,
                    w_sim=RELEVANT_W_SIM,
                    w_imp=RELEVANT_W_IMP,
                    candidates=CANDIDATE_POOL,
                )
                relevant = [h.id for h in hits if h.id in facts]
            if cues:
                hits = self.index.search(
                    vectors[1:],
                    limit=TRIGGERED_MAX,
                    min_similarity=minimums.triggered,
                    w_sim=TRIGGERED_W_SIM,
                    w_imp=TRIGGERED_W_IMP,
                    candidates=CANDIDATE_POOL,
                )
                triggered = [h.id for h in hits if h.id in facts]
        if triggered is None:
            triggered = _keyword_triggered(cues, facts)
        if relevant or limit == 0:
            return Retrieved(relevant, triggered, used_embeddings=bool(relevant))
        return Retrieved(keyword_ranking(text, facts, limit), triggered, used_embeddings=False)
