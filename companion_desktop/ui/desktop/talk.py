"""Quiet time, speaking first and window awareness, attached to the running desktop.

:func:`attach_talk` is called once by ``Desktop`` (after its tray and reminder poller
exist). It adds the "Do not disturb" switch to the tray menu and the chat window's header
(the overlay's menu adds it through ``OverlayWindow.dnd``), keeps reminder tray messages
quiet while it is on, answers the ``toggle_dnd`` global hotkey, starts speaking first
(``ui.speak_first``) and gives the turn runner the ``<active_window>`` hook. ``windows``
is the desktop layer's active-window source (``engine.proactive.ActiveWindowSource``);
without one she never knows the window, and nothing counts as fullscreen.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from companion_desktop.engine.proactive import ActiveWindowSource
from companion_desktop.pipeline.proactive import SpeakFirst, window_context
from companion_desktop.pipeline.system_lines import SPOKE_FIRST_NOTICE, glance_line
from companion_desktop.ui.desktop.idle import IdleTime
from companion_desktop.ui.desktop.speak_first import SpeakFirstDriver
from companion_desktop.ui.dnd import DndState, add_dnd_action, dnd_button, quiet, watch_tray

#: The chat line above a moment she started herself.


class DesktopTalk(QObject):
    """What :func:`attach_talk` made: ``dnd``, ``driver``, ``speaker``, ``button``."""

    def __init__(self, desktop: Any, windows: ActiveWindowSource | None = None) -> None:
        super().__init__(desktop)
        self.desktop = desktop
        self.windows = windows
        db = desktop.service.db
        self.dnd = DndState(db, self)
        desktop.overlay.dnd = self.dnd  # her right-click menu shows the switch
        if desktop.tray is not None:
            menu = desktop.tray.contextMenu()
            actions = menu.actions()
            add_dnd_action(menu, self.dnd, before=actions[-2] if len(actions) > 1 else None)
            menu.aboutToShow.connect(self.dnd.reload)
            watch_tray(desktop.tray, self.dnd)
        desktop.poller.notify = quiet(desktop.poller.notify, self.dnd)
        self.button = dnd_button(self.dnd)
        chat = desktop.chat
        header = chat.settings_button.parentWidget().layout()
        header.insertWidget(header.indexOf(chat.settings_button), self.button)
        chat.backend_changed.connect(self._backend_changed)
        desktop.hotkeys.triggered.connect(self._hotkey)
        self.speaker = SpeakFirst(db, desktop.backend.clock, windows)
        self.idle = IdleTime(self)
        self.driver = SpeakFirstDriver(self.speaker, self.idle, desktop.backend, parent=self)
        self.driver.spoke.connect(self._spoke)
        chat.shutting_down.connect(self.driver.stop)
        self.driver.start()
        self._start_glances()
        self._backend_changed()

    def _start_glances(self) -> None:
        """She may glance at the screen now and then (off until turned on in Settings)."""
        from companion_desktop.pipeline.glance import Glances
        from companion_desktop.ui.desktop.screen.glance import GlanceDriver

        desktop = self.desktop
        self.glances = Glances(self.speaker, desktop.backend.clock)
        self.glance = GlanceDriver(self.glances, self.idle.idle, desktop.backend,
                                   desktop.overlay, parent=self)
        self.glance.speaking = lambda: bool(desktop.voice.busy)
        self.glance.glanced.connect(self._glanced)
        self.glance.refused.connect(lambda line: desktop.chat.transcript.add_notice(line))
        desktop.chat.shutting_down.connect(self.glance.stop)
        self.glance.start()

    def _glanced(self, result: Any, label: str) -> None:
        self._spoke(result, glance_line(label))

    @property
    def quiet(self) -> bool:
        """Do not disturb is on: no bubbles, tray messages or voice for reminders."""
        return self.dnd.on

    def set_windows(self, windows: ActiveWindowSource | None) -> None:
        """The desktop layer's active-window source, when it comes after this."""
        self.windows = self.speaker.windows = windows
        self._backend_changed()

    def _backend_changed(self) -> None:
        self.dnd.reload()  # Settings may have changed it
        runner = self.desktop.backend.runner
        if runner is not None:
            runner.window_layer = window_context(self.desktop.service.db, self.windows)

    def _hotkey(self, action: str) -> None:
        if action == "toggle_dnd":
            self.dnd.toggle()

    def _spoke(self, result: Any, line: str = SPOKE_FIRST_NOTICE) -> None:
        desktop = self.desktop
        desktop.chat.show_system_turn(line, result.reply)
        desktop.overlay.on_done(result.reply)
        if result.speech and not self.dnd.on:
            desktop.voice.say(result.speech, result.suggestion.expression, result.mood)


def attach_talk(desktop: Any, windows: ActiveWindowSource | None = None) -> DesktopTalk:
    return DesktopTalk(desktop, windows)
