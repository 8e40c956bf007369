"""The reminder poll loop: every 15 s (and once right after start, so reminders
missed while the app was closed surface on launch) it asks ``ReminderService.due``
and fires what is due one at a time through the app's ``fire`` callable.

``fire(record, done)`` starts the system event (the app runs
``ReminderService.fire(record, runner)`` on the turn thread) and later calls
``done(reply)`` from any thread: the reply text on success, None on failure. A
failure stops this round; the reminder stays pending and the next poll retries it.
On success ``fired(record, reply)`` is emitted and, when her windows are hidden
(``windows_visible()`` is False), ``notify(title, message)`` is called (the app
passes the tray's ``showMessage``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from companion_desktop.storage.records import ReminderRecord

log = logging.getLogger(__name__)

POLL_INTERVAL_MS = 15_000
NOTIFY_TITLE = "Reminder"

Done = Callable[[str | None], None]


class ReminderPoller(QObject):
    """Polls ``service.due()`` and fires due reminders one at a time."""

    fired = Signal(object, str)  # (ReminderRecord, reply)
    failed = Signal(object)  # ReminderRecord whose system event failed (stays pending)
    _finished = Signal(object, object)  # (record, reply | None), marshalled to this thread

    def __init__(
        self,
        service: Any,
        fire: Callable[[ReminderRecord, Done], None],
        *,
        notify: Callable[[str, str], Any] | None = None,
        windows_visible: Callable[[], bool] | None = None,
        interval_ms: int = POLL_INTERVAL_MS,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.service = service
        self._fire = fire
        self.notify = notify
        self.windows_visible = windows_visible or (lambda: True)
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.poll)
        self._queue: list[ReminderRecord] = []
        self._current: ReminderRecord | None = None
        self._finished.connect(self._on_finished)

    @property
    def busy(self) -> bool:
        return self._current is not None

    def start(self) -> None:
        """Start polling, with one poll right away (missed reminders surface on launch)."""
        self.timer.start()
        QTimer.singleShot(0, self.poll)

    def stop(self) -> None:
        self.timer.stop()
        self._queue.clear()

    def poll(self) -> None:
        """Fire what is due now, unless a reminder is already firing."""
        if self.busy:
            return
        try:
            self._queue = list(self.service.due())
        except Exception:
            log.warning("reminder poll failed", exc_info=True)
            return
        self._next()

    def _next(self) -> None:
        if self.busy or not self._queue:
            return
        record = self._queue.pop(0)
        self._current = record
        try:
            self._fire(record, lambda reply, r=record: self._finished.emit(r, reply))
        except Exception:
            log.warning("reminder %s: firing failed", record.id, exc_info=True)
            self._on_finished(record, None)

    def _on_finished(self, record: ReminderRecord, reply: str | None) -> None:
        if self._current is None or self._current.id != record.id:
            return
        self._current = None
        if reply is None:
            self._queue.clear()  # retried on the next poll
            self.failed.emit(record)
            return
        self.fired.emit(record, reply)
        if self.notify is not None and not self.windows_visible():
            try:
                self.notify(NOTIFY_TITLE, reply or record.content)
            except Exception:
                log.warning("reminder notification failed", exc_info=True)
        self._next()
