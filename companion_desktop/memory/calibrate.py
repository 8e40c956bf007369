"""Recompute the per-model thresholds of ``calibration`` from the labelled set, and
measure retrieval quality (precision at 3) on it.

    python -m companion_desktop.memory.calibrate          # table, derivation, P@3
    python -m companion_desktop.memory.calibrate --json

The labelled set (``resources/memory_pairs.json``): twelve topics, each with three facts,
two questions they answer, a restatement of the first fact and a different fact on the
same subject, in English, Japanese, Spanish and German. It yields three pair sets:

- retrieval (question as query, fact as passage): a question and a fact of its topic
  should match, a fact of another topic should not. Used for the relevant-fact and the
  triggered-memory minimums.
- dedup (fact against fact): the first fact and its restatement should merge; against
  the different fact and the topic's two other facts it should not. Used for the 0.9.
- graph (fact against fact): two facts of one topic are related (linked), facts of two
  topics are not. Used for the memory graph's edge cut and its dashed-hint floor.

The reference is all-MiniLM-L6-v2 with the spec's numbers, scored on the English pairs
(the language it reads). Two methods:

- quantile mapping (relevant, triggered, graph_edge, graph_hint): for a threshold ``t``,
  ``q`` is the share of the reference's English pairs scoring ``t`` or more; the model's
  threshold is the score that the same share ``q`` of its English pairs reach. Each
  threshold accepts as large a part of the set as the spec's number does for the
  reference, so it keeps the spec's balance between finding and filtering.
- precision matching (dedup): the lowest score at which the model's precision on the
  same-language pairs of every language reaches the reference's precision at 0.9. A
  wrong merge loses a memory, so the merge keeps the reference's precision; acceptance
  share would instead copy how rarely MiniLM scores a loose restatement 0.9.

``evaluate`` prints each threshold's precision and recall on English, same-language and
cross-language pairs, for the reference and the model side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from functools import cache
from itertools import product
from typing import Any

import numpy as np

from .calibration import REFERENCE, Thresholds, thresholds_for
from .embeddings import FALLBACK_MODEL as REFERENCE_MODEL
from .embeddings import Embedder

__all__ = ["FIELDS", "PairSet", "derive", "evaluate", "labelled_set", "pair_sets",
           "precision_at_3"]

#: Threshold field -> (the pair set it is derived from, the method).
FIELDS = {"relevant": ("retrieval", "share"), "triggered": ("retrieval", "share"),
          "dedup": ("dedup", "precision"), "graph_edge": ("graph", "share"),
          "graph_hint": ("graph", "share")}


@cache
def labelled_set() -> dict[str, Any]:
    """The labelled sentences shipped with the app."""
    from companion_desktop.resources import memory_pairs_path

    return json.loads(memory_pairs_path().read_text(encoding="utf-8"))


@dataclass(frozen=True)
class PairSet:
    """Scores of one pair set, with labels and whether the two sides share a language."""

    scores: np.ndarray
    labels: np.ndarray
    same_language: np.ndarray
    english: np.ndarray  # both sides English


class _Vectors:
    """Every sentence of the set embedded once per role."""

    def __init__(self, embedder: Embedder, data: dict[str, Any]) -> None:
        passages, queries = [], []
        for topic, lang in product(data["topics"], data["languages"]):
            passages += [*topic["facts"][lang], topic["restated"][lang], topic["different"][lang]]
            queries += topic["questions"][lang]
        self.passage = dict(zip(passages, embedder.embed_passages(passages), strict=True))
        self.query = dict(zip(queries, embedder.embed_queries(queries), strict=True))


#: One scored pair: the two vectors, whether they belong together, their two languages.
_Pair = tuple[np.ndarray, np.ndarray, bool, str, str]


def _collect(rows: Iterable[_Pair]) -> PairSet:
    scores, labels, same, english = [], [], [], []
    for a, b, label, la, lb in rows:
        scores.append(float(np.dot(a, b)))
        labels.append(label)
        same.append(la == lb)
        english.append(la == lb == "en")
    return PairSet(np.array(scores), np.array(labels), np.array(same), np.array(english))


def pair_sets(embedder: Embedder, data: dict[str, Any] | None = None,
              vec: _Vectors | None = None) -> dict[str, PairSet]:
    """The retrieval, dedup and graph pair sets scored by ``embedder``."""
    data = data or labelled_set()
    vec = vec or _Vectors(embedder, data)
    topics, langs = data["topics"], data["languages"]

    def retrieval() -> Iterator[_Pair]:
        for (t, topic), (u, other), la, lb in product(enumerate(topics), enumerate(topics),
                                                       langs, langs):
            for q in topic["questions"][la]:
                for f in other["facts"][lb]:
                    yield vec.query[q], vec.passage[f], t == u, la, lb

    def dedup() -> Iterator[_Pair]:
        for topic, la, lb in product(topics, langs, langs):
            first = vec.passage[topic["facts"][la][0]]
            yield first, vec.passage[topic["restated"][lb]], True, la, lb
            for other in (topic["different"][lb], *topic["facts"][lb][1:]):
                yield first, vec.passage[other], False, la, lb

    def graph() -> Iterator[_Pair]:
        facts = [(t, i) for t, topic in enumerate(topics) for i in range(len(topic["facts"]["en"]))]
        for (t, i), (u, j), la, lb in product(facts, facts, langs, langs):
            if (t, i) < (u, j):
                a, b = topics[t]["facts"][la][i], topics[u]["facts"][lb][j]
                yield vec.passage[a], vec.passage[b], t == u, la, lb

    return {"retrieval": _collect(retrieval()), "dedup": _collect(dedup()),
            "graph": _collect(graph())}


def _accepted_share(scores: np.ndarray, threshold: float) -> float:
    return float(np.mean(scores >= threshold)) if len(scores) else 0.0


def map_threshold(reference: np.ndarray, threshold: float, target: np.ndarray) -> float:
    """The score of ``target`` that accepts the share of pairs ``threshold`` accepts in
    ``reference`` (linear interpolation between scores; 2 decimals)."""
    share = _accepted_share(reference, threshold)
    if share <= 0.0:
        value = float(np.max(target)) + 0.01
    elif share >= 1.0:
        value = float(np.min(target))
    else:
        value = float(np.quantile(target, 1.0 - share))
    return round(min(value, 0.99), 2)


def match_precision(reference: PairSet, threshold: float, target: PairSet) -> float:
    """The lowest score of ``target`` (same-language pairs, every language) at which its
    precision reaches the reference's at ``threshold`` (English pairs); 2 decimals."""
    wanted = _precision_recall(reference, reference.english, threshold)["precision"]
    mask = target.same_language
    for candidate in np.unique(np.round(target.scores[mask], 2)):
        if _precision_recall(target, mask, float(candidate))["precision"] >= wanted:
            return round(min(float(candidate), 0.99), 2)
    return 0.99


def derive(reference: dict[str, PairSet], target: dict[str, PairSet],
           spec: Thresholds = REFERENCE) -> Thresholds:
    """Thresholds for the model that scored ``target`` (see the module docstring)."""
    values = {}
    for name, (pair_set, method) in FIELDS.items():
        ref, tgt, number = reference[pair_set], target[pair_set], getattr(spec, name)
        if method == "precision":
            values[name] = match_precision(ref, number, tgt)
        else:
            values[name] = map_threshold(ref.scores[ref.english], number,
                                         tgt.scores[tgt.english])
    return Thresholds(**values)


def _precision_recall(pairs: PairSet, mask: np.ndarray, threshold: float) -> dict[str, float]:
    accepted = (pairs.scores >= threshold) & mask
    true = pairs.labels & mask
    hits = int(np.sum(accepted & pairs.labels))
    return {"precision": round(hits / max(1, int(np.sum(accepted))), 3),
            "recall": round(hits / max(1, int(np.sum(true))), 3)}


def evaluate(pairs: dict[str, PairSet], thresholds: Thresholds) -> dict[str, Any]:
    """Precision and recall of each threshold on its pair set: English pairs,
    same-language pairs and cross-language pairs."""
    out: dict[str, Any] = {}
    for name, (pair_set, _) in FIELDS.items():
        p, t = pairs[pair_set], getattr(thresholds, name)
        out[name] = {"threshold": t,
                     "english": _precision_recall(p, p.english, t),
                     "same_language": _precision_recall(p, p.same_language, t),
                     "cross_language": _precision_recall(p, ~p.same_language, t)}
    return out


def precision_at_3(embedder: Embedder, data: dict[str, Any] | None = None,
                   vec: _Vectors | None = None) -> dict[str, float]:
    """Retrieval quality: for each question, the share of the 3 facts ranked highest
    (by cosine, among the 36 facts written in one language) that belong to its topic.
    Averaged over questions with facts in the same language (``same_language``), in each
    other language (``cross_language``), and English only (``english``)."""
    data = data or labelled_set()
    vec = vec or _Vectors(embedder, data)
    topics, langs = data["topics"], data["languages"]
    found: dict[str, list[float]] = {"same_language": [], "cross_language": [], "english": []}
    for la, lb in product(langs, langs):
        corpus = [(t, vec.passage[f]) for t, topic in enumerate(topics) for f in topic["facts"][lb]]
        owners = np.array([t for t, _ in corpus])
        matrix = np.stack([v for _, v in corpus])
        for t, topic in enumerate(topics):
            for q in topic["questions"][la]:
                top = np.argsort(-(matrix @ vec.query[q]), kind="stable")[:3]
                share = float(np.mean(owners[top] == t))
                found["same_language" if la == lb else "cross_language"].append(share)
                if la == lb == "en":
                    found["english"].append(share)
    return {k: round(float(np.mean(v)), 3) for k, v in found.items()}


def available_embedders() -> list[tuple[str, Callable[[], Embedder]]]:
    """(model name, loader) of every backend that can run here, the reference first."""
    from .choice import backend_loaders

    return backend_loaders()


def report(as_json: bool = False) -> tuple[str, dict[str, Any]]:
    """The derivation for every available model: thresholds derived now, the table's,
    their precision/recall and precision at 3."""
    loaders = available_embedders()
    if not loaders or loaders[0][0] != REFERENCE_MODEL:
        raise RuntimeError("the reference model (all-MiniLM-L6-v2) is not installed")
    data = labelled_set()
    reference: dict[str, PairSet] = {}
    results: dict[str, Any] = {}
    for name, load in loaders:
        embedder = load()
        vec = _Vectors(embedder, data)
        pairs = pair_sets(embedder, data, vec)
        reference = reference or pairs
        derived = REFERENCE if pairs is reference else derive(reference, pairs)
        results[name] = {"table": asdict(thresholds_for(name)), "derived": asdict(derived),
                         "evaluation": evaluate(pairs, thresholds_for(name)),
                         "precision_at_3": precision_at_3(embedder, data, vec)}
    if as_json:
        return json.dumps(results, indent=2), results
    return _format(results), results


def _format(results: dict[str, Any]) -> str:
    lines = []
    for name, r in results.items():
        lines.append(name)
        p3 = r["precision_at_3"]
        lines.append(f"  precision@3: same-language {p3['same_language']:.3f}, "
                     f"cross-language {p3['cross_language']:.3f}, English {p3['english']:.3f}")
        for field, ev in r["evaluation"].items():
            same, cross, en = ev["same_language"], ev["cross_language"], ev["english"]
            lines.append(
                f"  {field:<10} table {r['table'][field]:.2f} "
                f"(derived now {r['derived'][field]:.2f})"
                f"  P/R English {en['precision']:.2f}/{en['recall']:.2f}"
                f"  same {same['precision']:.2f}/{same['recall']:.2f}"
                f"  cross {cross['precision']:.2f}/{cross['recall']:.2f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m companion_desktop.memory.calibrate",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    try:
        text, _ = report(args.json)
    except RuntimeError as error:
        print(f"calibrate: {error}", file=sys.stderr)
        return 1
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
