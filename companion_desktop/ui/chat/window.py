"""The chat window: her state beside the conversation, and the message box.

A turn goes: the user's bubble appears, the phase label shimmers ("Remembering…",
then "Thinking…"), her bubble fills in as the reply streams, and the side panel
shows the new state when the turn is done. A failed or stopped turn saves nothing:
the user's message stays, an inline error says what happened, and Retry (when a
retry can help) sends the same message again. ``/relationship`` shows the
relationship card without calling the model. Without a usable provider the window
still opens, says what to set up, and offers Settings.

Turns in the transcript: ``turns``; photos (paperclip, drop, paste, Photoboard):
``photos``; a character card's greetings: ``greeting``; tools asking the user's yes:
``tools``. What she hears (``ui.voice``) is sent through :meth:`submit` like typed text.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QMainWindow,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.memory import PHOTO_MARK as SHOW_ONLY_TEXT  # = pipeline.runner's
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.chat.backend import ChatBackend
from companion_desktop.ui.chat.composer import Composer
from companion_desktop.ui.chat.greeting import ChatGreeting
from companion_desktop.ui.chat.header import ChatHeader
from companion_desktop.ui.chat.photos import NO_MODEL_TEXT, ChatPhotos
from companion_desktop.ui.chat.screen import ChatScreen
from companion_desktop.ui.chat.state_panel import StatePanel
from companion_desktop.ui.chat.tools import ToolActivity
from companion_desktop.ui.chat.transcript import Notice, Transcript
from companion_desktop.ui.chat.turns import HISTORY_TURNS, PHASE_TEXT, ChatTurns  # noqa: F401
from companion_desktop.ui.photos import Source
from companion_desktop.ui.start.first_window import chat_column
from companion_desktop.ui.style import STYLE_SHEET
from companion_desktop.ui.voice import ChatHearing, Hearing

if TYPE_CHECKING:
    from companion_desktop.ui.photos import PhotoboardWindow

# Settings (every page), the photoboard and the provider registry are imported when first
# opened or needed: the window's first picture waits for none of them.

REFRESH_MS = 60_000
AVATAR_HEIGHT = 300
AVATAR_BACKGROUND = (0.965, 0.933, 0.98, 1.0)  # RGBA 0..1, behind her in the chat window
#: Her place before she arrives: the same colour as the view's background.
AVATAR_SLOT_STYLE = "#chatAvatarSlot { background: rgb(%d, %d, %d); }" % tuple(
    round(255 * c) for c in AVATAR_BACKGROUND[:3])
RELATIONSHIP_COMMAND = "/relationship"


class ChatWindow(QMainWindow):
    """The main window over ``service``; ``backend`` links it to the model."""

    settings_requested = Signal()
    backend_changed = Signal()  # the provider was (re)connected: rewire listeners
    photo_problem = Signal(str)  # a photo could not be shown (refused, gated, busy)
    shutting_down = Signal()  # quit began: listeners of the desktop (global hotkeys) stop

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 backend: ChatBackend, host: object | None = None,
                 avatar_later: bool = False) -> None:
        """``avatar_later``: no host yet; her place is kept (same size and colour) until
        :meth:`set_host` brings her, so the first picture needs no avatar code at all."""
        super().__init__()
        self._avatar_later = avatar_later
        self.host = host
        self.service = service
        self.clock = clock
        self.backend = backend
        self._setup: Notice | None = None
        self._wired = None
        self._reconnect_after_turn = False
        self.setWindowTitle("companion-desktop")
        self.setStyleSheet(STYLE_SHEET)
        self.resize(1040, 700)
        self._build()
        self.timer = QTimer(self, interval=REFRESH_MS, timeout=self.refresh)
        self.timer.start()
        self.refresh()
        self.turns.load_history()
        self.greeting.offer()
        self._show_readiness()

    # ------------------------------------------------------------------ build
    def _build(self) -> None:
        central = QWidget(objectName="chatRoot")
        row = QHBoxLayout(central)
        row.setContentsMargins(14, 14, 14, 14)
        row.setSpacing(14)
        self.panel = StatePanel()
        self.avatar_view = None
        self._avatar_slot: QFrame | None = None
        if self.host is not None or self._avatar_later:
            left = QVBoxLayout()
            left.setSpacing(10)
            self._avatar_slot = QFrame(objectName="chatAvatarSlot")
            self._avatar_slot.setStyleSheet(AVATAR_SLOT_STYLE)
            self._avatar_slot.setFixedSize(self.panel.minimumWidth(), AVATAR_HEIGHT)
            left.addWidget(self._avatar_slot)
            left.addWidget(self.panel, 1)
            row.addLayout(left)
            self._left = left
            if self.host is not None:
                self._place_avatar()
        else:
            row.addWidget(self.panel)
        right, column, top = chat_column()  # the first window has the same column
        header = ChatHeader(top, self.open_photoboard, self.open_settings)
        self.title, self.model_line = header.title, header.model_line
        self.photoboard_button, self.settings_button = header.photoboard, header.settings
        self.transcript = Transcript()
        column.addWidget(self.transcript, 1)
        column.addWidget(self._composer())
        row.addWidget(right, 1)
        self.setCentralWidget(central)
        self.photos = ChatPhotos(self, lambda image: self._start(SHOW_ONLY_TEXT, image=image))
        self.photo, self.drop_hint, self.drop_target = (
            self.photos.stage, self.photos.hint, self.photos.target)
        self.photo.changed.connect(self._update_buttons)
        self.screen_look = ChatScreen(self.photos)
        self.eye_button.clicked.connect(lambda: self.look_at_screen("active"))
        self.look_window_action.triggered.connect(lambda: self.look_at_screen("active"))
        self.look_full_action.triggered.connect(lambda: self.look_at_screen("full"))
        self.turns = ChatTurns(self)
        self.greeting = ChatGreeting(self)
        self.tools = ToolActivity(self.transcript, self.turns.still_thinking,
                                  PHASE_TEXT["thinking"])
        self.hearing = Hearing(self.service, self)
        self.hearing_view = ChatHearing(self, self.hearing)

    def set_host(self, host: object) -> None:
        """Her avatar arrives (the app makes it after the window's first paint)."""
        self.host = host
        if self._avatar_slot is not None and self.avatar_view is None:
            self._place_avatar()

    def _place_avatar(self) -> None:
        from companion_desktop.ui.avatar.view import AvatarView

        slot = self._avatar_slot
        self.avatar_view = AvatarView(self.host, "upper", background=AVATAR_BACKGROUND)
        self.avatar_view.setObjectName("chatAvatar")
        self.avatar_view.setFixedSize(self.panel.minimumWidth(), AVATAR_HEIGHT)
        self._left.replaceWidget(slot, self.avatar_view)
        self.avatar_view.show()  # a child added to a shown window stays hidden until shown
        slot.hide()
        slot.deleteLater()
        self._avatar_slot = None

    def _composer(self) -> QFrame:
        box = Composer()
        self.input, self.send_button, self.stop_button = box.input, box.send_button, box.stop_button
        self.clip_button, self.chip = box.clip_button, box.chip
        self.eye_button, self.look_window_action, self.look_full_action = (
            box.eye_button, box.look_window_action, box.look_full_action)
        self.mic_button, self.listen_line = box.mic_button, box.listen_line
        self.input.submitted.connect(self.submit)
        self.input.textChanged.connect(self._update_buttons)
        self.input.image_pasted.connect(self.stage_image)
        self.send_button.clicked.connect(lambda: self.submit(self.input.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        self.clip_button.clicked.connect(self.choose_photo)
        return box

    # ---------------------------------------------------------------- state
    @property
    def busy(self) -> bool:
        return self.backend.controller is not None and self.backend.controller.busy

    @property
    def pending(self) -> str | None:
        """The message of the running or failed turn, else None."""
        return self.turns.pending

    @pending.setter
    def pending(self, message: str | None) -> None:
        self.turns.pending = message

    @property
    def photoboard(self) -> PhotoboardWindow | None:  # once opened, else None
        return self.photos.board

    def refresh(self) -> None:
        """Reload her state (resolving time decay) into the panel and the header."""
        try:
            state = self.service.load(self.clock()).state
        except StorageError as exc:
            self.statusBar().showMessage(str(exc))
            return
        self.statusBar().clearMessage()
        self.panel.show_state(state)
        self.title.setText(state.name)

    def _show_readiness(self) -> None:
        """The setup notice and a disabled Send while no provider is ready."""
        self._wire_controller()
        ready = self.backend.ready
        if ready and self._setup is not None:
            self.transcript.remove(self._setup)
            self._setup = None
        if not ready:
            self.transcript.remove(self._setup)
            self._setup = self.transcript.add_notice(
                self.backend.problem or NO_MODEL_TEXT, "setup",
                [("Open Settings", self.open_settings)],
            )
        config = self.backend.config
        if ready and config is not None:
            from companion_desktop.llm.registry import SPECS

            spec = SPECS.get(config.provider_id)
            where = spec.name if spec else config.provider_id
            self.model_line.setText(f"{config.model} · {where}")
        else:
            self.model_line.setText("no model set up")
        self.input.set_ready(ready)
        self._update_buttons()

    def _wire_controller(self) -> None:
        controller = self.backend.controller
        if controller is None or controller is self._wired:
            return
        self.turns.wire(controller)
        controller.busy_changed.connect(self._on_busy)
        controller.approval_requested.connect(self.tools.ask)
        controller.tool_activity.connect(self.tools.activity)
        self._wired = controller

    def _update_buttons(self) -> None:
        busy = self.busy
        text = self.input.toPlainText().strip()
        command = text == RELATIONSHIP_COMMAND and not self.photo.staged
        content = bool(text) or self.photo.staged
        self.send_button.setEnabled(not busy and content and (self.backend.ready or command))
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        self.input.set_busy(busy)

    # ---------------------------------------------------------------- turns
    def submit(self, text: str, spoken: bool = False) -> None:
        """Send ``text`` (the box's content, or what she heard when ``spoken``: the box
        is then left as it is) with the staged photo, if any, as a turn, or run the
        ``/relationship`` command. A photo still preparing is sent when ready."""
        message = text.strip()
        if self.busy or not (message or self.photo.staged):
            return
        if self.photo.preparing:
            self.photos.when_ready(
                lambda: self.submit(text if spoken else self.input.toPlainText(), spoken))
            return
        image = self.photo.prepared
        if message == RELATIONSHIP_COMMAND and image is None:
            if not spoken:
                self.input.clear()
            self.show_relationship()
            return
        if not self.backend.ready:
            return
        if image is not None and not self.photos.allowed():
            return
        if not spoken:
            self.input.clear()
        self._start(text.strip("\n") if message else SHOW_ONLY_TEXT, image=image)

    def show_relationship(self) -> None:
        try:
            card = self.service.relationship_text(self.clock())
        except StorageError as exc:
            self.transcript.add_notice(f"Could not read the relationship: {exc}", "error")
            return
        self.transcript.add_notice(card, "card")

    def retry(self) -> None:
        if self.pending is None or self.busy or not self.backend.ready:
            return
        self.turns.clear_error()
        self._start(self.pending, retry=True)

    def stop(self) -> None:
        if self.backend.controller is not None:
            self.backend.controller.stop()

    def _start(self, message: str, retry: bool = False, image=None) -> bool:  # noqa: ANN001
        assert self.backend.controller is not None
        if image is None:
            return self.backend.controller.send(message, retry)
        sent = self.backend.controller.send(message, retry, image=image)
        if sent:
            self.photo.clear()
        return sent

    def _on_busy(self, busy: bool) -> None:
        self._update_buttons()
        if not busy and self._reconnect_after_turn:
            self._reconnect_after_turn = False
            self.reconnect()

    # ---------------------------------------------------------------- photos
    def choose_photo(self) -> None:  # the paperclip: pick a photo, stage it
        self.photos.choose()

    def stage_image(self, source: Source, name: str) -> None:
        """Prepare a photo (path, bytes or QImage) for the next message; replaces a staged one."""
        self.photos.stage_image(source, name)

    def show_image(self, source: Source, name: str, send_now: bool = False) -> None:
        """Show her a photo from elsewhere (a drop on the overlay). With ``send_now`` it
        goes at once with no words; while a turn runs, or when the model cannot see
        photos, it stays staged and the reason is shown."""
        self.photos.show_image(source, name, send_now)

    def import_card(self, path: str) -> None:
        """A character card dropped on her in the overlay: imported as a drop here is."""
        self.photos.card(path)

    def look_at_screen(self, mode: str = "active", screen=None,  # noqa: ANN001 - a QScreen
                       settle_ms: int | None = None, bring_up: bool = False) -> None:
        """"Look at this": capture the window the user is in ("active") or the whole
        ``screen`` ("full"; None: this window's) and stage it as a preview; nothing is
        sent until Send. A refusal or failure is one line in the chat. ``bring_up``: show
        this window once the picture is staged (from her menu or the hotkey)."""
        self.screen_look.look(mode, screen, settle_ms, bring_up)

    def open_photoboard(self) -> None:  # one window, reused, up to date
        self.photos.open_board()

    # ---------------------------------------------------------------- system
    def show_system_turn(self, notice: str, reply: str,
                         on_dismiss: Callable[[], None] | None = None) -> None:
        """A machine-generated turn (a fired reminder): the event, then her words.
        ``on_dismiss`` adds a Dismiss button (the dismissal is stored)."""
        self.turns.show_system_turn(notice, reply, on_dismiss)

    def play_event(self, event) -> None:  # noqa: ANN001 - engine.events.EventDefinition
        """A moment fired: show its scene; the choice is recorded by the scene window."""
        from companion_desktop.ui.chat.scene import SceneDialog

        self.transcript.add_notice(f"✨ {event.name}")
        dialog = SceneDialog(event, self.service, self.clock, self.host, self)
        dialog.finished_with.connect(self.panel.show_state)
        self._scene_dialog = dialog
        dialog.open()

    # -------------------------------------------------------------- settings
    def open_settings(self) -> None:
        from companion_desktop.ui.settings import SettingsDialog

        runner = self.backend.runner
        dialog = SettingsDialog(self.service, self.clock, self, host=self.host,
                                current_session=(lambda: runner.session_id) if runner else None)
        worker = getattr(self, "memory_worker", None)
        if worker is not None:
            dialog.rebuild_requested.connect(worker.restart)
        dialog.saved.connect(self.settings_saved)
        dialog.character.card.imported.connect(self.greeting.card_imported)
        self.settings_requested.emit()
        dialog.open()

    def settings_saved(self) -> None:
        """Settings changed: redraw her state and hearing; reopen the provider once no
        turn runs."""
        self.refresh()
        self.greeting.offer()
        self.hearing.reload()
        if self.busy:
            self._reconnect_after_turn = True
        else:
            self.reconnect()

    def reconnect(self) -> None:
        was_ready = self.backend.ready
        self.backend.connect()
        self._show_readiness()
        self.backend_changed.emit()
        if self.backend.ready and not was_ready:
            config = self.backend.config
            model = config.model if config else "the model"
            self.transcript.add_notice(f"Ready: talking through {model}.")

    def shutdown(self) -> None:
        """Stop the timer and the turn thread, end the session (the app calls this on quit)."""
        self.shutting_down.emit()
        self.timer.stop()
        self.hearing.close()
        self.backend.shutdown()
