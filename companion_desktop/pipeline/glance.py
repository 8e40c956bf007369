"""Glancing at the screen now and then (opt-in): when, and the moment itself (no Qt).

:class:`Glances` asks ``engine.screen_look.glance_verdict`` with what the database knows
(her speaking-first moments today and the last one: a glance is one of them, so the
daily cap and the gap are shared) and the settings (off by default; the interval bounded
to 5-120 minutes). :meth:`Glances.glance` runs the moment as a system event carrying the
picture (encoded bytes, prepared by the photo path: scaled, metadata stripped), sent once
to a model that can see and never kept. The desktop side captures and shows it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from companion_desktop.engine.proactive import Verdict
from companion_desktop.engine.screen_look import glance_event, glance_verdict
from companion_desktop.pipeline.images import prepare_image_bytes
from companion_desktop.pipeline.proactive import SpeakFirst, limits_of

log = logging.getLogger(__name__)


class Glances:
    """Decides and runs glances; ``speaker`` gives the shared history and the fullscreen
    check, ``clock`` aware datetimes."""

    def __init__(self, speaker: SpeakFirst, clock: Callable[[], datetime]) -> None:
        self.speaker = speaker
        self.clock = clock
        self.last_glance: datetime | None = None  # the last try, taken or not

    def verdict(self, idle: timedelta, her_busy: bool, now: datetime | None = None) -> Verdict:
        """Whether she glances now: ``idle`` the user's idle time, ``her_busy`` a turn runs
        or she is speaking."""
        now = now or self.clock()
        settings = self.speaker.settings()
        today, last_sent, _last_chat, _mode = self.speaker.history(now)
        return glance_verdict(
            now, enabled=settings.glance, interval=timedelta(minutes=settings.glance_minutes),
            idle=idle, her_busy=her_busy, dnd=settings.do_not_disturb,
            fullscreen=self.speaker.fullscreen(), limits=limits_of(settings),
            sent_today=today, last_sent=last_sent, last_glance=self.last_glance)

    def tried(self, now: datetime | None = None) -> None:
        """A glance was tried (taken, refused or failed): the interval starts again."""
        self.last_glance = now or self.clock()

    def glance(self, runner: Any, png: bytes, label: str, cancel: Any = None) -> Any:
        """Her moment about the picture ``png`` of ``label`` ("Firefox"); her TurnResult,
        or None when the picture could not be prepared or the call failed (nothing saved)."""
        try:
            image = replace(prepare_image_bytes(png, "glance"), screen=label, keep=False)
            return runner.run_system_event(glance_event(label), cancel=cancel, image=image)
        except Exception:  # noqa: BLE001 - a failed glance only means she stays quiet
            log.warning("glance: the moment failed", exc_info=True)
            return None
