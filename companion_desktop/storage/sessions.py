"""Session summaries: the turns of a past session, and writing its summary."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import SessionRow, TurnRow


def unsummarized_sessions(session: Session, exclude: int | None = None) -> list[int]:
    """Ids of sessions with turns but no summary yet (oldest first), except ``exclude``."""
    query = select(SessionRow.id).where(SessionRow.summary.is_(None)).order_by(SessionRow.id)
    ids = [i for i in session.scalars(query) if i != exclude]
    with_turns = set(session.scalars(select(TurnRow.session_id).where(TurnRow.session_id.in_(ids))))
    return [i for i in ids if i in with_turns]


def session_turns(session: Session, session_id: int) -> list[tuple[str, str]]:
    rows = session.execute(
        select(TurnRow.role, TurnRow.content)
        .where(TurnRow.session_id == session_id)
        .order_by(TurnRow.id)
    )
    return [(role, content) for role, content in rows]


def set_summary(session: Session, session_id: int, summary: str, topics: list[str]) -> None:
    row = session.get(SessionRow, session_id)
    if row is not None:
        row.summary = summary
        row.key_topics = list(topics)
