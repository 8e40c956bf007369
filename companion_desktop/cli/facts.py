"""``companion-desktop facts [--json] [--search TEXT] [--limit N]``: what she remembers.

Without ``--search``: every fact, most important first (content, category,
importance, reference count, embedding model). With ``--search``: the facts ranked
for TEXT as retrieval ranks them for a message. The embedding model is loaded when
it is installed; facts without a vector of it are embedded first (and saved, as the
app's background backfill would). When no model can load, stderr says so and the
ranking uses keywords.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from companion_desktop.cli.common import print_json, terminal_text

JSON_KEYS = ("id", "content", "category", "importance", "confidence", "reference_count",
             "embedding_model", "created_at", "last_accessed", "source")


def add_parser(sub: argparse._SubParsersAction) -> None:
    facts = sub.add_parser("facts", help="list her memories, or rank them for a message")
    facts.add_argument("--json", action="store_true",
                       help="print a JSON list (id, content, category, importance, "
                            "reference_count, embedding_model, ...; score with --search)")
    facts.add_argument("--search", metavar="TEXT",
                       help="rank the facts for TEXT as retrieval would")
    facts.add_argument("--limit", type=int, default=10, metavar="N",
                       help="how many ranked facts --search prints (default 10)")


def fact_row(fact: Any, score: float | None = None) -> dict[str, Any]:
    """One fact as JSON-ready data (times in ISO-8601)."""
    row: dict[str, Any] = {
        "id": fact.id, "content": fact.content, "category": fact.category,
        "importance": fact.importance, "confidence": fact.confidence,
        "reference_count": fact.reference_count,
        "embedding_model": fact.embedding_model if fact.has_embedding else None,
        "created_at": fact.created_at.isoformat(),
        "last_accessed": fact.last_accessed.isoformat() if fact.last_accessed else None,
        "source": fact.source,
    }  # fmt: skip
    if score is not None:
        row["score"] = round(float(score), 4)
    return row


def format_rows(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "No memories yet."
    scored = "score" in rows[0]
    head = ("score  " if scored else "") + "imp  refs  category           model            memory"
    lines = [head]
    for r in rows:
        model = (r["embedding_model"] or "-").rsplit("/", 1)[-1][:16]
        lines.append(("{:5.3f}  ".format(r["score"]) if scored else "")
                     + f"{r['importance']:>3.0f}  {r['reference_count']:>4}  "
                       f"{r['category']:<17}  {model:<16} {r['content']}")
    return "\n".join(lines)


def _load_model(service: Any) -> None:
    """Load the embedding model and embed what lacks a vector; say on stderr when not."""
    if not service.load_model():
        detail = service.status().detail
        print(f"facts: the embedding model is not available ({detail}); ranking by keywords",
              file=sys.stderr)
        return
    stale = service.stale_count()
    if stale:
        print(f"facts: embedding {stale} memor{'y' if stale == 1 else 'ies'} without a vector "
              f"of {service.status().model_name}", file=sys.stderr)
        service.backfill_all()


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    from companion_desktop.pipeline.facts import FactService
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.paths import resolve_data_dir

    db = Database.open(resolve_data_dir(args.data_dir))
    try:
        service = FactService(db)
        if args.search is not None:
            _load_model(service)
            result = service.ranked(args.search, max(1, args.limit))
            if service.uses_embeddings and not result.used_embeddings:
                print("facts: no memory is close in meaning; ranking by keywords",
                      file=sys.stderr)
            rows = [fact_row(fact, score) for fact, score in result.hits]
        else:
            rows = [fact_row(fact) for fact in service.list()]
        if args.json:
            print_json(rows)
        else:
            print(terminal_text(format_rows(rows)))  # memories she wrote
    finally:
        db.close()
    return 0
