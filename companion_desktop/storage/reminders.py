"""Reminders: rows <-> ``ReminderRecord`` inside a caller's Session."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import ReminderRow
from .records import ReminderRecord


def _record(row: ReminderRow) -> ReminderRecord:
    return ReminderRecord(
        id=row.id, trigger_at=row.trigger_at, content=row.content, created_at=row.created_at,
        executed=row.executed, dismissed=row.dismissed, session_id=row.session_id,
    )


def add_reminder(
    session: Session, trigger_at: datetime, content: str, now: datetime, session_id: int | None
) -> ReminderRecord:
    """Schedule a reminder for ``trigger_at`` (aware)."""
    row = ReminderRow(
        trigger_at=trigger_at, content=content, created_at=now, session_id=session_id,
        executed=False, dismissed=False,
    )
    session.add(row)
    session.flush()
    return _record(row)


def pending_reminders(session: Session) -> list[ReminderRecord]:
    """Reminders not fired yet, soonest first."""
    rows = session.scalars(
        select(ReminderRow).where(ReminderRow.executed.is_(False)).order_by(ReminderRow.trigger_at)
    )
    return [_record(row) for row in rows]


def all_reminders(session: Session) -> list[ReminderRecord]:
    """Every reminder, soonest first."""
    return [_record(r) for r in session.scalars(select(ReminderRow).order_by(ReminderRow.trigger_at))]
