"""Speaking first and window awareness outside the turn (no Qt).

:class:`SpeakFirst` asks ``engine.proactive.decide`` with what the database knows (her
speaking-first events today, the user's last message, the mode, the settings) and, when
she may, runs the moment as a system event through ``runner.run_system_event``: saved
like her other messages, no stats moved. A failed try is remembered (in memory, for
this run of the app) and backs the next one off (``engine.proactive.retry_wait``).
:func:`window_context` is the runner's hook for the ``<active_window>`` prompt layer:
read for one turn, never stored.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select

from companion_desktop.engine.proactive import (
    EVENT_PREFIX,
    ActiveWindow,
    ActiveWindowSource,
    Limits,
    Presence,
    Verdict,
    decide,
    event_text,
    speak_first_on,
    start_of_day,
)
from companion_desktop.engine.window_context import window_layer
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import TurnRow
from companion_desktop.storage.settings import ProactiveSettings, load_settings

log = logging.getLogger(__name__)


def limits_of(settings: ProactiveSettings) -> Limits:
    return Limits(absence=timedelta(hours=settings.absence_hours),
                  silence=timedelta(minutes=settings.silence_minutes),
                  daily_cap=settings.daily_cap, gap=timedelta(minutes=settings.gap_minutes))


class SpeakFirst:
    """Decides and runs speaking-first moments on ``db``; ``clock`` gives aware datetimes."""

    def __init__(self, db: Database, clock: Callable[[], datetime],
                 windows: ActiveWindowSource | None = None) -> None:
        self.db = db
        self.clock = clock
        self.windows = windows
        self.presence = Presence()
        self.failures = 0  # failed tries in a row since her last spoken moment
        self.last_failed: datetime | None = None

    def settings(self) -> ProactiveSettings:
        with self.db.read_session() as session:
            return load_settings(session, ProactiveSettings)

    def _history(self, now: datetime) -> tuple[int, datetime | None, datetime | None, str]:
        """(her speaking-first events today, the last one, the user's last message, mode)."""
        mine = (TurnRow.role == "system") & TurnRow.content.startswith(EVENT_PREFIX,
                                                                        autoescape=True)
        with self.db.read_session() as session:
            today = session.scalar(select(func.count()).where(
                mine, TurnRow.created_at >= start_of_day(now))) or 0
            last_sent = session.scalar(select(func.max(TurnRow.created_at)).where(mine))
            last_chat = session.scalar(
                select(func.max(TurnRow.created_at)).where(TurnRow.role == "user"))
            character = repo.load_character(session)
        mode = character.app_mode if character is not None else "dating_sim"
        return today, last_sent, last_chat, mode

    def history(self, now: datetime) -> tuple[int, datetime | None, datetime | None, str]:
        """(her speaking-first moments today, the last one, the user's last message, mode)."""
        return self._history(now)

    def fullscreen(self) -> bool:
        window = self._window()
        return bool(window and window.fullscreen)

    def _window(self) -> ActiveWindow | None:
        if self.windows is None:
            return None
        try:
            return self.windows.active_window()
        except Exception:  # noqa: BLE001 - the desktop layer must not stop her
            log.debug("active window unknown", exc_info=True)
            return None

    def observe(self, idle: timedelta, now: datetime | None = None) -> None:
        """A sample of the user's idle time (the desktop samples it every minute)."""
        settings = self.settings()
        self.presence.absence = timedelta(hours=settings.absence_hours)
        self.presence.observe(now or self.clock(), idle)

    def verdict(self, busy: bool = False, now: datetime | None = None) -> Verdict:
        """Whether she speaks first now (after :meth:`observe`)."""
        now = now or self.clock()
        settings = self.settings()
        today, last_sent, last_chat, mode = self._history(now)
        if last_chat is not None and self.presence.returned_at is not None \
                and last_chat >= self.presence.returned_at:
            self.presence.greeted()  # they spoke first
        return decide(now, self.presence, limits_of(settings),
                      enabled=speak_first_on(settings.speak_first, mode),
                      dnd=settings.do_not_disturb, fullscreen=self.fullscreen(), busy=busy,
                      last_chat=last_chat, sent_today=today, last_sent=last_sent,
                      failures=self.failures, last_failed=self.last_failed)

    def speak(self, verdict: Verdict, runner: Any, cancel: Any = None) -> Any:
        """Run the moment as a system event; her TurnResult, or None (nothing to say, or
        the call failed: nothing saved, and the next try backs off)."""
        if verdict.kind is None:
            return None
        text = event_text(verdict.kind, self.presence.away_for)
        try:
            result = runner.run_system_event(text, cancel=cancel)
        except Exception:  # noqa: BLE001 - a failed model call only means she stays quiet
            self.failures, self.last_failed = self.failures + 1, self.clock()
            log.warning("speaking first: the system event failed (%d in a row)", self.failures,
                        exc_info=True)
            return None
        self.failures, self.last_failed = 0, None
        self.presence.greeted()
        return result


def window_context(db: Database, windows: ActiveWindowSource | None) -> Callable[[], str | None]:
    """The runner's ``window_layer`` hook: the ``<active_window>`` text for this turn when
    window awareness is on and the window is not denied; else None."""

    def layer() -> str | None:
        if windows is None:
            return None
        with db.read_session() as session:
            settings = load_settings(session, ProactiveSettings)
        if not settings.window_awareness:
            return None
        try:
            window = windows.active_window()
        except Exception:  # noqa: BLE001
            return None
        return window_layer(window, settings.window_deny)

    return layer
