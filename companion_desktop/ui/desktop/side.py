"""The desktop side of the app: the overlay, the tray icon and her reactions to turns.

``Desktop`` wires the one conversation (``TurnController``) to both windows and
to the avatar: her mood face follows each turn's mood, the model's ``expression``
flashes, her mouth moves while a reply streams, and with voice on she speaks the
reply as it streams, a sentence at a time, and the rest when it is complete
(``VoiceLink``: talking clip, lip sync from the audio she plays, the flash held while she
speaks); a new message, Stop or a failed turn silence her, and speaking to her cuts her
voice off (``DesktopHearing``: barge-in, her own voice removed from what she hears, the
overlay's mic button and listening bubble).
Overlay placement and toggles are saved to the avatar settings.
"""

from __future__ import annotations

import logging
import math
import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction, QIcon, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.reminders import ReminderService
from companion_desktop.pipeline.system_lines import reminder_line
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import (
    AvatarSettings,
    DisplaySettings,
    HotkeySettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.desktop.hotkeys import GlobalHotkeys
from companion_desktop.ui.desktop.x11_probe import wm_cannot_keep_above
from companion_desktop.ui.overlay import OverlayWindow
from companion_desktop.ui.reminder_poller import ReminderPoller
from companion_desktop.ui.voice import VoiceLink

if TYPE_CHECKING:
    from companion_desktop.pipeline.runner import TurnResult

log = logging.getLogger(__name__)
TALK_HZ = 6.0  # mouth movements per second while text streams (until real lip sync)


class Desktop(QObject):
    """Owns the overlay and tray; ``chat`` is the chat window (shown on request)."""

    def __init__(self, service: CompanionService, host: AvatarHost, chat, backend) -> None:  # noqa: ANN001
        super().__init__(chat)  # owned by the chat window: freed with it, on the GUI thread
        self.service = service
        self.host = host
        self.chat = chat
        self.backend = backend
        settings = self._avatar_settings()
        self.overlay = OverlayWindow(host, self.send, settings.always_on_top,
                                     settings.click_through, settings.scale,
                                     show_image=self._show_image,
                                     open_photoboard=self._open_photoboard,
                                     bypass_wm=wm_cannot_keep_above())
        self.overlay.restore_position(settings.positions)
        self.overlay.card_dropped.connect(self.chat.import_card)
        from companion_desktop.ui.desktop.life import DesktopLife

        self.life = DesktopLife(self.overlay, service, host)  # gravity, window tops, fullscreen
        self.life.reload()
        self.overlay.open_chat.connect(self.show_chat)
        self.overlay.open_settings.connect(self._open_settings)
        self.overlay.quit_requested.connect(QApplication.quit)
        self.overlay.settings_changed.connect(self._save_overlay)
        self.overlay.photo_requested.connect(self.open_photo_mode)
        self.overlay.look_requested.connect(self.look_at_screen)
        chat.photo_problem.connect(self.overlay.on_failed)  # a refused drop says why on her too
        self._talking_since: float | None = None
        self._voiced = False  # her voice speaks this turn's reply (her lips follow it)
        self._mouth = QTimer(self, interval=40, timeout=self._move_mouth)
        self.voice = VoiceLink(service, host, report=self._voice_failed, parent=self)
        self.voice.voice.prepare()  # with voice output on, her voice loads now, not at a reply
        from companion_desktop.ui.voice import DesktopHearing

        self.hearing = DesktopHearing(chat.hearing, self.overlay, self.voice, self)
        if self.life.walker is not None:  # she stands still while she listens to you
            self.life.walker.busy = lambda: (
                "listening" if chat.hearing.state in ("hearing", "recognising")
                else None if self.overlay.isVisible() else "hidden")
        self.tray = self._make_tray()
        self.hotkeys = GlobalHotkeys(self)
        self.hotkeys.windows = [chat, self.overlay]
        self.hotkeys.triggered.connect(self._hotkey)
        self.hotkeys.talk.connect(lambda down: (chat.hearing.press if down else
                                                chat.hearing.release)())
        QApplication.instance().aboutToQuit.connect(self.hotkeys.stop)
        chat.shutting_down.connect(self.hotkeys.stop)
        self.start_hotkeys()
        self._wired = None
        self.rewire()
        host.model_changed.connect(self._on_model)
        self._on_model()
        self.reminders = ReminderService(service.db, backend.clock)
        self.poller = ReminderPoller(
            self.reminders, self._fire_reminder, notify=self._notify,
            windows_visible=lambda: self.chat.isVisible() or self.overlay.isVisible(),
        )
        self.poller.fired.connect(self._reminder_fired)
        self.poller.start()  # also surfaces reminders missed while the app was closed
        from companion_desktop.ui.desktop.talk import attach_talk

        self.talk = attach_talk(self, self.life.windows)  # quiet time, speaking first

    # ------------------------------------------------------------ conversation
    def send(self, text: str) -> bool:
        """A message from the overlay: through the same pipeline as the chat window."""
        controller = self.backend.controller
        if controller is None or not self.backend.ready:
            self.overlay.on_failed("Set up a language model first (right-click > Settings).")
            return True
        return controller.send(text)

    def rewire(self) -> None:
        controller = self.backend.controller
        if controller is None or controller is self._wired:
            return
        controller.started.connect(self._on_started)
        controller.phase.connect(self.overlay.on_phase)
        controller.text.connect(self._on_text)
        controller.speech.connect(self._on_speech)
        controller.done.connect(self._on_done)
        controller.failed.connect(self._on_failed)
        controller.stopping.connect(self.voice.stop)  # Stop: silent at once
        controller.approval_requested.connect(self._approval_needed)
        self._wired = controller

    def _on_started(self, message: str, retry: bool) -> None:
        self.voice.begin()  # a new message interrupts her; its reply is spoken as it comes
        self._voiced = False
        if self.host.director is not None:
            self.host.director.turn_started()
        self.host.poke(2.0)

    def _on_text(self, text: str) -> None:
        self.overlay.on_text(text)
        if self._talking_since is None and text.strip():
            self._talking_since = time.monotonic()
            if not self._voiced:
                self._mouth.start()
            if self.host.director is not None:
                self.host.director.text_started()

    def _on_speech(self, parts, mood) -> None:  # noqa: ANN001 - SpokenParts, MoodState
        """Finished sentences while the reply streams: she says them now, and her lips
        follow her voice, not the text, from here on."""
        if not self._voiced:
            self._voiced = True
            self._mouth.stop()
            if self.host.runtime is not None:
                self.host.runtime.mouth_open(0.0)
        self.voice.add(parts, mood)

    def _stop_talking(self, speaking_next: bool = False) -> None:
        """The text stopped streaming; the talking clip goes on when her voice follows."""
        if self.host.director is not None and not speaking_next:
            self.host.director.turn_ended()
        self._talking_since = None
        self._mouth.stop()
        if self.host.runtime is not None:
            self.host.runtime.mouth_open(0.0)
            if not speaking_next:
                self.host.runtime.speaking_ended()

    def _move_mouth(self) -> None:
        if self.host.runtime is None or self._talking_since is None:
            return
        t = time.monotonic() - self._talking_since
        self.host.poke(0.5)
        self.host.runtime.mouth_open(0.35 + 0.3 * math.sin(t * TALK_HZ * 2 * math.pi) ** 2)

    def _on_done(self, result: TurnResult) -> None:
        self.overlay.on_done(result.reply)
        runtime = self.host.runtime
        if runtime is not None:
            runtime.mood(result.mood.primary, result.mood.intensity)
        expression = result.suggestion.expression
        # the rest of her reply (none of it twice), in the mood the panel shows now
        speaking = self.voice.end(result.speech, expression, result.mood)
        self._stop_talking(speaking_next=speaking)
        if speaking:
            expression = None  # flashed by the voice link, held while she speaks
        if runtime is not None:
            if expression:
                runtime.flash(expression)
            if self.host.director is not None and result.suggestion.action:
                self.host.director.request_action(result.suggestion.action, time.monotonic())
            self.host.poke(4.0)

    def _approval_needed(self, ticket) -> None:  # noqa: ANN001 - pipeline.worker.ApprovalTicket
        """A tool she must ask for: the question is in the chat, so the chat comes up
        (a hidden chat would leave the turn waiting) and her bubble says why."""
        if not self.chat.isVisible() or self.chat.isMinimized():
            self.show_chat()
        tool = getattr(ticket.request, "tool", "a tool")
        self.overlay.on_text(f"May I use {tool}? Answer me in the chat.")

    def _voice_failed(self, message: str) -> None:
        self.chat.transcript.add_notice(f"Her voice: {message}", "error")

    def _show_image(self, source: str | bytes, name: str) -> None:
        """A photo dropped on her in the overlay: shown through the chat's path."""
        self.chat.show_image(source, name, send_now=True)

    def _open_photoboard(self) -> None:
        self.chat.open_photoboard()

    def _on_failed(self, message: str, retryable: bool) -> None:
        self.voice.stop()  # a failed (or stopped) turn says nothing more
        self._stop_talking()
        self.overlay.on_failed(message)

    def _on_model(self) -> None:
        """A model is in place: give it her current mood and the display settings."""
        runtime = self.host.runtime
        if runtime is None:
            return
        try:
            state = self.service.load(self.backend.clock()).state
            with self.service.db.read_session() as session:
                display = load_settings(session, DisplaySettings)
        except StorageError:
            return
        runtime.set_mood_expressions_enabled(display.mood_expressions)
        runtime.mood(state.mood.primary, state.mood.intensity)
        self.host.set_fps(self._avatar_settings().fps)

    def settings_applied(self) -> None:
        """Settings were saved: display toggles, frame rate, voice, hotkeys and the idle pool
        take effect now."""
        self._on_model()
        self.start_hotkeys()
        self.voice.reload()
        self.life.reload()
        director = self.host.director
        if director is not None and not (director.talking or director.thinking):
            director.back_to_idle()

    # ------------------------------------------------------------ reminders
    def _fire_reminder(self, record, done) -> None:  # noqa: ANN001
        """Run the reminder's system event on the pipeline thread (after any turn)."""
        controller, runner = self.backend.controller, self.backend.runner
        if controller is None or runner is None or not self.backend.ready:
            done(None)  # no model yet: it stays pending and fires later
            return
        def finished(result) -> None:  # noqa: ANN001 - pipeline TurnResult or None
            done(result.reply if result else None)
            if result is not None and result.speech and not self.talk.quiet:  # spoken too
                self.voice.say(result.speech, result.suggestion.expression, result.mood)

        started = controller.run_job(
            lambda cancel: self.reminders.fire(record, runner, cancel=cancel), finished)
        if not started:
            done(None)

    def _reminder_fired(self, record, reply: str) -> None:  # noqa: ANN001
        if not self.talk.quiet:  # do not disturb: kept in the chat, no bubble
            self.overlay.on_done(reply)
        self.chat.show_system_turn(reminder_line(record.content), reply,
                                   on_dismiss=lambda: self.reminders.dismiss(record.id))

    def _notify(self, title: str, text: str) -> None:
        if self.tray is not None:
            self.tray.showMessage(title, text)

    # ------------------------------------------------------------ windows
    def show_chat(self) -> None:
        self.chat.show()
        self.chat.raise_()
        self.chat.activateWindow()

    def _open_settings(self) -> None:
        self.show_chat()
        self.chat.open_settings()

    def start_hotkeys(self) -> None:
        """(Re)start the global hotkeys from Settings; a refusal is kept for Settings to show.
        While they are off or refused, the same keys work in her windows."""
        try:
            with self.service.db.read_session() as session:
                settings = load_settings(session, HotkeySettings)
        except StorageError:
            settings = HotkeySettings()
        self.hotkeys.start(settings.bindings())
        self.hotkeys.set_window_keys(settings.keys())

    def _hotkey(self, action: str) -> None:
        if action == "toggle_overlay":
            self.toggle_overlay()
        elif action == "toggle_click_through":
            self.overlay.set_click_through(not self.overlay.click_through)
        elif action == "look_at_screen":
            self.look_at_screen("active")

    def look_at_screen(self, mode: str = "active") -> None:
        """"Look at this" from her menu or the hotkey: the capture (the screen she is on)
        waits in the chat's preview strip, and the chat comes up to show it."""
        screen = self.overlay.screen() if self.overlay.isVisible() else None
        self.chat.look_at_screen(mode, screen, bring_up=True)

    def toggle_overlay(self) -> None:
        self.life.guard.user_toggled()
        self.overlay.setVisible(not self.overlay.isVisible())
        self._save_overlay()

    def open_photo_mode(self) -> None:
        from companion_desktop.ui.overlay import PhotoDialog

        self.overlay.bubble.hide()
        dialog = PhotoDialog(self.host, self.chat)
        if self.host.director is not None:
            self.host.director.posing = True
            dialog.finished.connect(lambda _r: setattr(self.host.director, "posing", False))
        dialog.open()

    def _make_tray(self) -> QSystemTrayIcon | None:
        if not QSystemTrayIcon.isSystemTrayAvailable():
            return None
        icon = QApplication.windowIcon()  # the app's icon (app.py sets it)
        if icon.isNull():
            pixmap = QPixmap(32, 32)
            pixmap.fill(0xFFE8578D)
            icon = QIcon(pixmap)
        tray = QSystemTrayIcon(icon, self)
        tray.setToolTip("companion-desktop")
        menu = QMenu()
        menu.addAction("Show or hide her", self.toggle_overlay)
        menu.addAction("Open chat", self.show_chat)
        menu.addAction("Photoboard", self._open_photoboard)
        menu.addSeparator()
        quit_action = QAction("Quit", menu)
        quit_action.triggered.connect(QApplication.quit)
        menu.addAction(quit_action)
        tray.setContextMenu(menu)
        tray.activated.connect(lambda reason: reason == QSystemTrayIcon.ActivationReason.Trigger
                               and self.show_chat())
        tray.show()
        self._tray_menu = menu
        return tray

    # ------------------------------------------------------------ settings
    def _avatar_settings(self) -> AvatarSettings:
        try:
            with self.service.db.read_session() as session:
                return load_settings(session, AvatarSettings)
        except StorageError:
            return AvatarSettings()

    def _save_overlay(self) -> None:
        overlay = self.overlay
        try:
            with self.service.db.session() as session:
                settings = load_settings(session, AvatarSettings)
                settings.positions = {k: tuple(v) for k, v in overlay.positions.items()}
                settings.scale = overlay.scale
                settings.always_on_top = overlay.always_on_top
                settings.click_through = overlay.click_through
                settings.overlay_visible = overlay.isVisible() or self.life.guard.hiding
                save_settings(session, settings)
        except StorageError as error:
            log.warning("could not save the overlay settings: %s", error)
