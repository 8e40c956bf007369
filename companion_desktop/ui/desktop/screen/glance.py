"""Glancing at the screen now and then, on the desktop (opt-in, off by default).

A minute's tick asks ``pipeline.glance.Glances`` whether she may glance (the user active,
she quiet, the interval, speaking first's cap, gap, do not disturb and fullscreen). When
she may and the model can see, the active window is captured like "look at this"
(``capture``: the deny-list applied, her windows cut out) and the moment runs on
the pipeline thread. Each glance is visible: the eye on her overlay and a line in the
chat, with what she said. A denied window is not looked at, and the chat says so. The
picture lives in memory for that one request and is never kept.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from companion_desktop.engine.screen_look import ACTIVE
from companion_desktop.pipeline.glance import Glances
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import ProactiveSettings, load_settings

log = logging.getLogger(__name__)

TICK_MS = 60_000
DENIED_LINE = "👁 She was going to glance at your screen, but a private window was open, " \
              "so she didn't look."




class GlanceDriver(QObject):
    """``glanced(result, label)`` after a glance she spoke about; ``refused(line)`` when
    she did not look (a private window, a failed capture)."""

    glanced = Signal(object, str)
    refused = Signal(str)

    def __init__(self, glances: Glances, idle: Callable[[], timedelta], backend: Any,
                 overlay: Any, capture: Callable[..., Any] | None = None,
                 interval_ms: int = TICK_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.glances = glances
        self.idle = idle
        self.backend = backend
        self.overlay = overlay
        if capture is None:
            from companion_desktop.ui.desktop.screen.capture import take_screenshot

            capture = take_screenshot
        self.capture = capture
        self.speaking: Callable[[], bool] = lambda: False  # her voice is playing
        self.last_why = ""
        self.timer = QTimer(self, interval=interval_ms, timeout=self.tick)

    def start(self) -> None:
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def tick(self) -> bool:
        """One look at the rules; True when a glance was started."""
        controller, runner = self.backend.controller, self.backend.runner
        if controller is None or runner is None or not self.backend.ready:
            self.last_why = "no model"
            return False
        try:
            verdict = self.glances.verdict(self.idle(), controller.busy or self.speaking())
            with self.glances.speaker.db.read_session() as session:
                deny = load_settings(session, ProactiveSettings).window_deny
        except StorageError as error:
            log.warning("glance: %s", error)
            return False
        self.last_why = verdict.why
        if verdict.kind is None:
            return False
        if not self.backend.can_show_images():
            self.last_why = "the model cannot see"
            return False
        return self._glance(controller, runner, deny)

    def _glance(self, controller: Any, runner: Any, deny: list[str]) -> bool:
        from companion_desktop.ui.desktop.screen.capture import ScreenRefused
        from companion_desktop.ui.photos import as_path_or_bytes

        self.glances.tried()
        screen = self.overlay.screen() if self.overlay.isVisible() else None
        try:
            shot = self.capture(ACTIVE, deny, screen)
        except ScreenRefused as error:
            self.last_why = str(error)
            if "private" in str(error):
                self.refused.emit(DENIED_LINE)
            return False
        self.overlay.show_eye()
        png = as_path_or_bytes(shot.image)
        label = shot.label
        started = controller.run_job(
            lambda cancel: self.glances.glance(runner, png, label, cancel),
            lambda result: self._done(result, label))
        self.last_why = "glancing" if started else "busy"
        return bool(started)

    def _done(self, result: Any, label: str) -> None:
        if result is not None:
            self.glanced.emit(result, label)
