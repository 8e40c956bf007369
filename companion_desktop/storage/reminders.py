"""Reminders: rows <-> ``ReminderRecord`` inside a caller's Session.

Firing is claimed: :func:`claim` marks the row as being fired by one process
(compare-and-set, so two processes never both win), :func:`finish_claim` sets
``executed`` only for the claim's owner (called inside the transaction that stores
the reply), and :func:`release_claim` gives the reminder back after a failure.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .models import ReminderRow
from .records import ReminderRecord

#: ``stale(claimed_by, claimed_at)``: True when that claim's process is gone or too old.
Stale = Callable[[str, datetime | None], bool]


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
    return [
        _record(r) for r in session.scalars(select(ReminderRow).order_by(ReminderRow.trigger_at))
    ]


def due_reminders(
    session: Session, now: datetime, stale: Stale | None = None
) -> list[ReminderRecord]:
    """Reminders not fired yet whose ``trigger_at`` has passed (missed ones included), soonest
    first. With ``stale``, those another live claim holds are left out."""
    rows = session.scalars(
        select(ReminderRow)
        .where(ReminderRow.executed.is_(False), ReminderRow.trigger_at <= now)
        .order_by(ReminderRow.trigger_at, ReminderRow.id)
    )
    return [
        _record(row) for row in rows
        if row.claimed_by is None or stale is None or stale(row.claimed_by, row.claimed_at)
    ]


def claim(session: Session, reminder_id: int, owner: str, now: datetime,
          stale: Stale) -> ReminderRecord | None:
    """Claim a due reminder for ``owner``; the reminder, or None when it does not exist,
    has fired, or another live claim holds it. The update is conditional on the claim
    seen, so of two processes racing for it exactly one wins."""
    row = session.get(ReminderRow, reminder_id)
    if row is None or row.executed:
        return None
    seen = row.claimed_by
    if seen is not None and not stale(seen, row.claimed_at):
        return None
    holder = ReminderRow.claimed_by.is_(None) if seen is None else ReminderRow.claimed_by == seen
    changed = session.execute(
        update(ReminderRow)
        .where(ReminderRow.id == reminder_id, ReminderRow.executed.is_(False), holder)
        .values(claimed_by=owner, claimed_at=now)
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]  # an UPDATE: a CursorResult
    if changed != 1:
        return None
    session.refresh(row)
    return _record(row)


def finish_claim(session: Session, reminder_id: int, owner: str) -> bool:
    """Mark the reminder fired if ``owner`` still holds its claim (call it in the transaction
    that stores the reply); False when the claim was lost, so that transaction must not commit."""
    changed = session.execute(
        update(ReminderRow)
        .where(ReminderRow.id == reminder_id, ReminderRow.executed.is_(False),
               ReminderRow.claimed_by == owner)
        .values(executed=True, claimed_by=None, claimed_at=None)
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]  # an UPDATE: a CursorResult
    return changed == 1


def release_claim(session: Session, reminder_id: int, owner: str) -> bool:
    """Give a claimed, unfired reminder back (its firing failed); False when not ours."""
    changed = session.execute(
        update(ReminderRow)
        .where(ReminderRow.id == reminder_id, ReminderRow.claimed_by == owner)
        .values(claimed_by=None, claimed_at=None)
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]  # an UPDATE: a CursorResult
    return changed == 1


def claim_of(session: Session, reminder_id: int) -> tuple[str | None, datetime | None]:
    """(claimed_by, claimed_at) of one reminder; (None, None) when unclaimed or missing."""
    row = session.get(ReminderRow, reminder_id)
    return (None, None) if row is None else (row.claimed_by, row.claimed_at)


def mark_executed(session: Session, reminder_id: int, now: datetime) -> bool:
    """Mark a reminder fired; False when it does not exist or had already fired."""
    row = session.get(ReminderRow, reminder_id)
    if row is None or row.executed:
        return False
    row.executed = True
    row.claimed_by = row.claimed_at = None
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
