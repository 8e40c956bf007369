"""Completed events: when each event last played."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import CompletedEventRow


def event_history(session: Session) -> dict[str, datetime]:
    """Event id -> the latest completion time."""
    history: dict[str, datetime] = {}
    for row in session.scalars(select(CompletedEventRow).order_by(CompletedEventRow.completed_at)):
        history[row.event_id] = row.completed_at
    return history
