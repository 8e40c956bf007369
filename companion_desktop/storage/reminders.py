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


def due_reminders(session: Session, now: datetime) -> list[ReminderRecord]:
    """Reminders not fired yet whose ``trigger_at`` has passed (missed ones included), soonest first."""
    rows = session.scalars(
        select(ReminderRow)
        .where(ReminderRow.executed.is_(False), ReminderRow.trigger_at <= now)
        .order_by(ReminderRow.trigger_at, ReminderRow.id)
    )
    return [_record(row) for row in rows]


def mark_executed(session: Session, reminder_id: int, now: datetime) -> bool:
    """Mark a reminder fired; False when it does not exist or had already fired."""
    row = session.get(ReminderRow, reminder_id)
    if row is None or row.executed:
        return False
    row.executed = True
    session.flush()
    return True


def dismiss(session: Session, reminder_id: int) -> bool:
    """Record that the user closed a fired reminder; False when it does not exist."""
    row = session.get(ReminderRow, reminder_id)
    if row is None:
        return False
    row.dismissed = True
    session.flush()
    return True


def undismissed_fired(session: Session) -> list[ReminderRecord]:
    """Fired reminders the user has not closed yet, oldest first."""
    rows = session.scalars(
        select(ReminderRow)
        .where(ReminderRow.executed.is_(True), ReminderRow.dismissed.is_(False))
        .order_by(ReminderRow.trigger_at, ReminderRow.id)
    )
    return [_record(row) for row in rows]
