"""Reminders outside the turn: the natural-phrase fallback, what is due, firing, dismissal.

No Qt here. :class:`ReminderService` is used by the UI's poller (``due`` then
``fire`` one at a time), by ``companion-desktop reminders --fire``, by the chat
flow (``schedule_fallback`` after a turn whose reply set no reminder) and by the
prompt builder (``next_reminder_text`` for the ``<system>`` layer).

Firing is safe against crashes and against a second process on the same data
folder: the reminder is first claimed in the database (only one process wins;
the others leave it alone), then it enters as a system event through
``runner.run_system_event``, whose transaction that stores her reply also marks
the reminder executed, only if the claim is still ours. So a kill at any moment
leaves either no reply and a pending reminder (fired once more later) or the
reply and the mark, never two replies. A failed model call gives the claim back
and the next poll fires it again. The claim of a process that is gone (on this
computer) is taken over at once; any claim older than :data:`CLAIM_TTL` too.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol

from companion_desktop.engine.reminder_phrases import natural_reminder
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database
from companion_desktop.storage.records import ReminderRecord

log = logging.getLogger(__name__)

EVENT_PREFIX = "Reminder you set earlier is due now: "
#: A claim this old is taken over even when its process may still run (a turn never takes
#: this long).
CLAIM_TTL = timedelta(minutes=10)
_HOST = socket.gethostname()[:60]


class SystemEventRunner(Protocol):
    def run_system_event(self, event_text: str, hooks: Any = None, cancel: Any = None,
                         also: Callable[[Any], None] | None = None) -> Any: ...


class ReminderTaken(RuntimeError):
    """Raised inside the reply's transaction when the claim was lost: nothing is stored."""


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this computer (always True where that cannot be asked)."""
    if os.name != "posix" or pid <= 0:
        return True  # elsewhere os.kill would end the process: the claim then ages out instead
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def event_text(record: ReminderRecord) -> str:
    """The ``<event>`` text a fired reminder enters with."""
    return f"{EVENT_PREFIX}{record.content}"


def describe_delay(seconds: float) -> str:
    """"in 10 minutes", "in 1 hour", "in 2 days"; "now" when already due."""
    seconds = int(round(seconds))
    if seconds <= 0:
        return "now"
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute")):  # noqa: B007 - name is read after the loop
        if seconds >= size:
            count = int(round(seconds / size))
            break
    else:
        count, name = seconds, "second"
    return f"in {count} {name}{'' if count == 1 else 's'}"


class ReminderService:
    """Reminder operations on ``db``; ``clock`` (aware datetimes) is used where no ``now`` is
    passed."""

    def __init__(self, db: Database, clock: Callable[[], datetime] | None = None) -> None:
        self.db = db
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        #: Who this service's claims belong to: "host:pid:token" (a token per service).
        self.owner = f"{_HOST}:{os.getpid()}:{secrets.token_hex(4)}"

    def schedule_fallback(self, user_message: str, reply_had_tag: bool, now: datetime,
                          session_id: int | None) -> ReminderRecord | None:
        """Schedule the reminder ``user_message`` asks for in plain words, only when the
        turn's reply scheduled none itself (``reply_had_tag`` False). A time or day
        ("tomorrow at 6pm") is read in the system's local time at ``now``."""
        if reply_had_tag:
            return None
        request = natural_reminder(user_message, now.astimezone())
        if request is None:
            return None
        with self.db.session() as session:
            return store.add_reminder(session, now + timedelta(seconds=request.seconds),
                                      request.text, now, session_id)

    def stale(self, owner: str, claimed_at: datetime | None) -> bool:
        """Whether a claim may be taken over: older than CLAIM_TTL, or its process is gone."""
        if claimed_at is None or self.clock() - claimed_at > CLAIM_TTL:
            return True
        host, _, rest = owner.partition(":")
        pid = rest.partition(":")[0]
        if host != _HOST or not pid.isdigit() or int(pid) == os.getpid():
            return False  # another computer, or another service of this live process
        return not _process_alive(int(pid))

    def due(self, now: datetime | None = None) -> list[ReminderRecord]:
        """Not executed and ``trigger_at <= now`` (missed ones included), soonest first;
        reminders being fired right now (here or by another live process) are left out."""
        now = now or self.clock()
        with self.db.read_session() as session:
            return store.due_reminders(session, now, self.stale)

    def fire(self, record: ReminderRecord, runner: SystemEventRunner,
             hooks: Any = None, cancel: Any = None) -> Any:
        """Claim ``record``, run it as a system event, and mark it executed in the same
        transaction that stores her reply.

        Returns the runner's TurnResult, or None when the call failed (the claim is given
        back, so a later poll fires it again) or it was already firing or fired.
        """
        with self.db.session() as session:
            current = store.claim(session, record.id, self.owner, self.clock(), self.stale)
        if current is None:
            return None
        owner = self.owner

        def mark(session: Any) -> None:
            if not store.finish_claim(session, record.id, owner):
                raise ReminderTaken(f"reminder {record.id} was claimed by another process")

        result = None
        try:
            result = runner.run_system_event(event_text(current), hooks=hooks, cancel=cancel,
                                             also=mark)
        except ReminderTaken:
            log.info("reminder %s: fired elsewhere; this reply was not kept", record.id)
        except Exception:  # a failed model call must not lose the reminder
            log.warning("reminder %s: the system event failed; it stays pending", record.id,
                        exc_info=True)
        finally:
            if result is None:
                self._release(record.id)
        return result

    def _release(self, reminder_id: int) -> None:
        try:
            with self.db.session() as session:
                store.release_claim(session, reminder_id, self.owner)
        except Exception:  # noqa: BLE001 - the claim then ages out (CLAIM_TTL)
            log.warning("reminder %s: could not give the claim back", reminder_id, exc_info=True)

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
