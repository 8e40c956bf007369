"""The facts table: what she knows about the user, with each fact's vector.

Plain functions over a SQLAlchemy session; the memory service decides what is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, cast

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from .models import FactRow
from .records import FactRecord


def add_fact(
    session: Session,
    content: str,
    category: str,
    now: datetime,
    importance: float = 50,
    confidence: float = 0.8,
    source: str | None = None,
    *,
    reference_count: int = 0,
    last_accessed: datetime | None = None,
) -> int:
    """Store a fact created at ``now`` (importance 0-100, confidence 0-1) without a vector.

    No deduplication here: the memory service decides whether a fact is new.
    """
    row = FactRow(
        content=content,
        category=category,
        importance=float(importance),
        confidence=float(confidence),
        source=source,
        reference_count=reference_count,
        created_at=now,
        last_accessed=last_accessed,
    )
    session.add(row)
    session.flush()
    return row.id


def list_facts(session: Session) -> list[FactRecord]:
    """Every fact, oldest first."""
    rows = session.execute(
        select(
            FactRow.id, FactRow.content, FactRow.category, FactRow.importance,
            FactRow.confidence, FactRow.created_at, FactRow.source, FactRow.reference_count,
            FactRow.last_accessed, FactRow.embedding_model, FactRow.embedding.is_not(None),
        ).order_by(FactRow.created_at, FactRow.id)
    )  # fmt: skip
    return [FactRecord(*row) for row in rows]


def _fact_record(row: FactRow) -> FactRecord:
    return FactRecord(
        id=row.id, content=row.content, category=row.category, importance=row.importance,
        confidence=row.confidence, created_at=row.created_at, source=row.source,
        reference_count=row.reference_count, last_accessed=row.last_accessed,
        embedding_model=row.embedding_model, has_embedding=row.embedding is not None,
    )  # fmt: skip


def get_fact(session: Session, fact_id: int) -> FactRecord | None:
    """One fact, or None when there is no such id."""
    row = session.get(FactRow, fact_id)
    return None if row is None else _fact_record(row)


def update_fact(session: Session, fact_id: int, **values: Any) -> None:
    """Change columns of one fact (content, category, importance, confidence, source,
    reference_count, last_accessed). Raises KeyError for an unknown id or column."""
    row = session.get(FactRow, fact_id)
    if row is None:
        raise KeyError(f"no fact {fact_id}")
    allowed = {"content", "category", "importance", "confidence", "source", "reference_count",
               "last_accessed"}
    for name, value in values.items():
        if name not in allowed:
            raise KeyError(f"facts have no editable column {name!r}")
        setattr(row, name, value)
    session.flush()


def delete_fact(session: Session, fact_id: int) -> bool:
    """Delete one fact; False when there was none."""
    row = session.get(FactRow, fact_id)
    if row is None:
        return False
    session.delete(row)
    session.flush()
    return True


def set_fact_embedding(
    session: Session, fact_id: int, vector: bytes | None, model: str | None
) -> None:
    """Store (or clear, with None) a fact's float32 vector bytes and the model that made it."""
    row = session.get(FactRow, fact_id)
    if row is None:
        raise KeyError(f"no fact {fact_id}")
    row.embedding = vector
    row.embedding_model = model if vector is not None else None
    session.flush()


def bump_references(session: Session, ids: Iterable[int], now: datetime) -> int:
    """Reference count +1 and ``last_accessed = now`` for each id; returns rows changed."""
    wanted = sorted(set(ids))
    if not wanted:
        return 0
    result = session.execute(
        update(FactRow)
        .where(FactRow.id.in_(wanted))
        .values(reference_count=FactRow.reference_count + 1, last_accessed=now)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]  # an UPDATE: a CursorResult


def fact_vectors(
    session: Session, model: str, category: str | None = None
) -> list[tuple[int, bytes, float]]:
    """(id, vector bytes, importance) of the facts embedded by ``model`` (one category or all)."""
    query = select(FactRow.id, FactRow.embedding, FactRow.importance).where(
        FactRow.embedding.is_not(None), FactRow.embedding_model == model
    )
    if category is not None:
        query = query.where(FactRow.category == category)
    rows = session.execute(query.order_by(FactRow.id))
    # the query leaves out facts without a vector: the column is never NULL here
    return [(int(i), bytes(cast(bytes, v)), float(imp)) for i, v, imp in rows]


def stale_facts(session: Session, model: str, limit: int | None = None) -> list[tuple[int, str]]:
    """(id, content) of facts with no vector or one from another model, most important first."""
    query = (
        select(FactRow.id, FactRow.content)
        .where(or_(FactRow.embedding.is_(None), FactRow.embedding_model.is_(None),
                   FactRow.embedding_model != model))
        .order_by(FactRow.importance.desc(), FactRow.id)
    )  # fmt: skip
    if limit is not None:
        query = query.limit(limit)
    return [(int(i), str(c)) for i, c in session.execute(query)]


def count_stale_facts(session: Session, model: str) -> int:
    """How many facts have no vector, or one from a model other than ``model``."""
    query = select(func.count()).select_from(FactRow).where(
        or_(FactRow.embedding.is_(None), FactRow.embedding_model.is_(None),
            FactRow.embedding_model != model)
    )  # fmt: skip
    return int(session.scalar(query) or 0)
