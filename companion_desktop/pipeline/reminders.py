"""Reminders outside the turn: the natural-phrase fallback, what is due, firing, dismissal.

No Qt here. :class:`ReminderService` is used by the UI's poller (``due`` then
``fire`` one at a time), by the chat flow (``schedule_fallback`` after a turn whose
reply set no reminder) and by the prompt builder (``next_reminder_text`` for the
``<system>`` layer). A fired reminder enters as a system event through
``runner.run_system_event``; it is marked executed only once that call succeeded,
so a failed model call leaves it pending and the next poll fires it again.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from companion_desktop.engine.reminder_phrases import natural_reminder
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database
from companion_desktop.storage.records import ReminderRecord

log = logging.getLogger(__name__)

EVENT_PREFIX = "Reminder you set earlier is due now: "


class SystemEventRunner(Protocol):
    def run_system_event(self, event_text: str, hooks: Any = None, cancel: Any = None) -> Any: ...


def event_text(record: ReminderRecord) -> str:
    """The ``<event>`` text a fired reminder enters with."""
    return f"{EVENT_PREFIX}{record.content}"


def describe_delay(seconds: float) -> str:
    """"in 10 minutes", "in 1 hour", "in 2 days"; "now" when already due."""
    seconds = int(round(seconds))
    if seconds <= 0:
        return "now"
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute")):
        if seconds >= size:
            count = int(round(seconds / size))
            break
    else:
        count, name = seconds, "second"
    return f"in {count} {name}{'' if count == 1 else 's'}"


class ReminderService:
    """Reminder operations on ``db``; ``clock`` (aware datetimes) is used where no ``now`` is passed."""

    def __init__(self, db: Database, clock: Callable[[], datetime] | None = None) -> None:
        self.db = db
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        self._lock = threading.Lock()
        self._in_flight: set[int] = set()

    def schedule_fallback(self, user_message: str, reply_had_tag: bool, now: datetime,
                          session_id: int | None) -> ReminderRecord | None:
        """Schedule the reminder ``user_message`` asks for in plain words, only when the
        turn's reply scheduled none itself (``reply_had_tag`` False)."""
        if reply_had_tag:
            return None
        request = natural_reminder(user_message)
        if request is None:
            return None
        with self.db.session() as session:
            return store.add_reminder(session, now + timedelta(seconds=request.seconds),
                                      request.text, now, session_id)

    def due(self, now: datetime | None = None) -> list[ReminderRecord]:
        """Not executed and ``trigger_at <= now`` (missed ones included), soonest first;
        reminders being fired right now are left out."""
        now = now or self.clock()
        with self.db.read_session() as session:
            records = store.due_reminders(session, now)
        with self._lock:
            return [r for r in records if r.id not in self._in_flight]

    def fire(self, record: ReminderRecord, runner: SystemEventRunner,
             hooks: Any = None, cancel: Any = None) -> Any:
        """Run ``record`` as a system event; mark it executed once the call succeeded.

        Returns the runner's TurnResult, or None when the call failed (the reminder
        stays pending and fires again on a later poll) or it was already firing/fired.
        """
        with self._lock:
            if record.id in self._in_flight:
                return None
            self._in_flight.add(record.id)
        try:
            with self.db.read_session() as session:
                current = next((r for r in store.all_reminders(session) if r.id == record.id), None)
            if current is None or current.executed:
                return None
            try:
                result = runner.run_system_event(event_text(current), hooks=hooks, cancel=cancel)
            except Exception:  # a failed model call must not lose the reminder
                log.warning("reminder %s: the system event failed; it stays pending", record.id,
                            exc_info=True)
                return None
            if result is None:
                return None
            with self.db.session() as session:
                store.mark_executed(session, record.id, self.clock())
            return result
        finally:
            with self._lock:
                self._in_flight.discard(record.id)

    def dismiss(self, reminder_id: int) -> bool:
        """Record that the user closed a reminder; False when there is no such reminder."""
        with self.db.session() as session:
            return store.dismiss(session, reminder_id)

    def undismissed(self) -> list[ReminderRecord]:
        """Fired reminders the user has not closed yet."""
        with self.db.read_session() as session:
            return store.undismissed_fired(session)

    def upcoming(self, now: datetime | None = None) -> list[ReminderRecord]:
        """Pending reminders still in the future, soonest first."""
        now = now or self.clock()
        with self.db.read_session() as session:
            return [r for r in store.pending_reminders(session) if r.trigger_at > now]

    def next_reminder_text(self, now: datetime | None = None) -> str | None:
        """The soonest pending reminder for the ``<system>`` layer, e.g.
        "in 10 minutes: stretch" ("now: ..." when due but not fired yet); None if none."""
        now = now or self.clock()
        with self.db.read_session() as session:
            pending = store.pending_reminders(session)
        if not pending:
            return None
        soonest = pending[0]
        delay = describe_delay((soonest.trigger_at - now).total_seconds())
        return f"{delay}: {soonest.content}"
