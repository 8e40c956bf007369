"""Speaking first on the desktop: a minute's tick samples the user's idle time
(``ui.idle``), asks ``pipeline.proactive.SpeakFirst`` whether she may speak, and runs the
moment on the pipeline thread when no turn runs. ``spoke(result)`` follows with her
TurnResult (already saved); the desktop shows it and says it when her voice is on."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from companion_desktop.pipeline.proactive import SpeakFirst
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.desktop.idle import IdleTime

log = logging.getLogger(__name__)

TICK_MS = 60_000


class SpeakFirstDriver(QObject):
    spoke = Signal(object)  # TurnResult

    def __init__(self, speaker: SpeakFirst, idle: IdleTime, backend: Any,
                 interval_ms: int = TICK_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.speaker = speaker
        self.idle = idle
        self.backend = backend
        self.last_why = ""
        self.timer = QTimer(self, interval=interval_ms, timeout=self.tick)

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def tick(self) -> bool:
        """One look; True when a moment was started."""
        controller, runner = self.backend.controller, self.backend.runner
        try:
            self.speaker.observe(self.idle.idle())
            if controller is None or runner is None or not self.backend.ready:
                self.last_why = "no model"
                return False
            verdict = self.speaker.verdict(busy=controller.busy)
        except StorageError as error:
            log.warning("speaking first: %s", error)
            return False
        self.last_why = verdict.why
        if verdict.kind is None:
            return False
        return bool(controller.run_job(
            lambda cancel: self.speaker.speak(verdict, runner, cancel), self._done))

    def _done(self, result: Any) -> None:
        if result is not None:
            self.spoke.emit(result)
