"""Similarity thresholds per embedding model: one table, fixed in code.

The spec fixes its numbers for its model's cosine scale: relevant facts need a
similarity of 0.3, triggered memories 0.5, a duplicate 0.9; the memory graph links
facts at 0.5 and hints at nearer neighbours down to 0.35. The MiniLM models score
unrelated sentences near 0 and paraphrases near 0.9, so they keep those numbers.
multilingual-e5-small scores unrelated sentences about 0.75 and translations about
0.9: the spec's numbers would accept everything there, so it has its own.

Each number of a model other than the reference (all-MiniLM-L6-v2) was derived by
quantile mapping on the labelled set (``resources/memory_pairs.json``; method in
``calibrate``): the threshold accepts the same share of the set's pairs as the spec's
number does for the reference on the English pairs. Recompute with
``python -m companion_desktop.memory.calibrate`` (or ``companion-desktop bench --only
memory``) after changing the set or adding a model, and copy the derived numbers here.

multilingual-e5-small (4-bit), derived from the set as shipped:

==========  =====  =================================================================
threshold   value  how
==========  =====  =================================================================
relevant    0.81   question/fact pairs, quantile mapping of MiniLM's 0.3
triggered   0.85   question/fact pairs, quantile mapping of MiniLM's 0.5
dedup       0.97   fact/restatement vs different facts of the topic: the lowest score
                   with MiniLM's precision at 0.9 (1.0) on same-language pairs
graph_edge  0.88   fact/fact pairs, same topic vs other topics: mapping of 0.5
graph_hint  0.84   the same pairs: mapping of the graph's 0.35
==========  =====  =================================================================
"""

from __future__ import annotations

from dataclasses import dataclass

from .e5 import E5_MODEL
from .embeddings import FALLBACK_MODEL, MULTILINGUAL_MODEL

__all__ = ["REFERENCE", "TABLE", "Thresholds", "thresholds_for"]


@dataclass(frozen=True)
class Thresholds:
    """Cosine similarities at or above which a model's vectors count as a match.

    ``relevant``: a fact goes into the prompt for a message; ``triggered``: a fact
    answers a memory cue ("remember when ..."); ``dedup``: a new fact repeats a stored
    one of its category; ``graph_edge``: the memory graph links two facts;
    ``graph_hint``: below the edge, the graph hints at a nearest neighbour.
    """

    relevant: float
    triggered: float
    dedup: float
    graph_edge: float
    graph_hint: float


#: The spec's numbers (for its model and for all-MiniLM-L6-v2, the reference).
REFERENCE = Thresholds(relevant=0.3, triggered=0.5, dedup=0.9, graph_edge=0.5, graph_hint=0.35)

TABLE: dict[str, Thresholds] = {
    FALLBACK_MODEL: REFERENCE,
    MULTILINGUAL_MODEL: REFERENCE,
    E5_MODEL: Thresholds(relevant=0.81, triggered=0.85, dedup=0.97, graph_edge=0.88,
                         graph_hint=0.84),
}


def thresholds_for(model_name: str | None) -> Thresholds:
    """The table's thresholds for ``model_name``; the spec's numbers for a model the
    table does not know (a configured folder)."""
    return TABLE.get(model_name or "", REFERENCE)
