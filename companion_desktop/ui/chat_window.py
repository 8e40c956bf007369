"""The chat window: her state beside the conversation, and the message box.

A turn goes: the user's bubble appears, the phase label shimmers ("Remembering…",
then "Thinking…"), her bubble fills in as the reply streams, and the side panel
shows the new state when the turn is done. A failed or stopped turn saves nothing:
the user's message stays, an inline error says what happened, and Retry (when a
retry can help) sends the same message again. ``/relationship`` shows the
relationship card without calling the model. Without a usable provider the window
still opens, says what to set up, and offers Settings.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.llm.registry import SPECS
from companion_desktop.pipeline.companion import STAGE_NAMES, CompanionService
from companion_desktop.pipeline.runner import TurnResult
from companion_desktop.storage import repository
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.chat_backend import ChatBackend
from companion_desktop.ui.chat_input import ChatInput
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.state_panel import StatePanel
from companion_desktop.ui.style import STYLE_SHEET
from companion_desktop.ui.transcript import Bubble, Notice, Transcript

REFRESH_MS = 60_000
HISTORY_TURNS = 60
PHASE_TEXT = {"remembering": "Remembering…", "seeing": "Seeing…", "thinking": "Thinking…"}
RELATIONSHIP_COMMAND = "/relationship"


class ChatWindow(QMainWindow):
    """The main window over ``service``; ``backend`` links it to the model."""

    settings_requested = Signal()
    backend_changed = Signal()  # the provider was (re)connected: rewire listeners

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 backend: ChatBackend, host: object | None = None) -> None:
        super().__init__()
        self.host = host
        self.service = service
        self.clock = clock
        self.backend = backend
        self.pending: str | None = None  # the message of the running or failed turn
        self._her: Bubble | None = None
        self._error: Notice | None = None
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
        self._load_history()
        self._show_readiness()

    # ------------------------------------------------------------------ build
    def _build(self) -> None:
        central = QWidget(objectName="chatRoot")
        row = QHBoxLayout(central)
        row.setContentsMargins(14, 14, 14, 14)
        row.setSpacing(14)
        self.panel = StatePanel()
        self.avatar_view = None
        if self.host is not None:
            from companion_desktop.ui.avatar_view import AvatarView

            left = QVBoxLayout()
            left.setSpacing(10)
            self.avatar_view = AvatarView(self.host, "upper", background=(0.965, 0.933, 0.98, 1.0))
            self.avatar_view.setObjectName("chatAvatar")
            self.avatar_view.setFixedSize(self.panel.minimumWidth(), 300)
            left.addWidget(self.avatar_view)
            left.addWidget(self.panel, 1)
            row.addLayout(left)
        else:
            row.addWidget(self.panel)
        right = QFrame(objectName="chatColumn")
        column = QVBoxLayout(right)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        header = QFrame(objectName="chatHeader")
        top = QHBoxLayout(header)
        top.setContentsMargins(18, 10, 12, 10)
        self.title = QLabel(objectName="chatTitle")
        self.model_line = QLabel(objectName="modelLine")
        top.addWidget(self.title)
        top.addWidget(self.model_line, 1)
        self.settings_button = QPushButton("⚙  Settings", objectName="headerButton")
        self.settings_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.settings_button.clicked.connect(self.open_settings)
        top.addWidget(self.settings_button)
        column.addWidget(header)
        self.transcript = Transcript()
        column.addWidget(self.transcript, 1)
        column.addWidget(self._composer())
        row.addWidget(right, 1)
        self.setCentralWidget(central)

    def _composer(self) -> QFrame:
        box = QFrame(objectName="composer")
        line = QHBoxLayout(box)
        line.setContentsMargins(12, 10, 12, 12)
        line.setSpacing(8)
        self.input = ChatInput()
        self.input.submitted.connect(self.submit)
        self.input.textChanged.connect(self._update_buttons)
        line.addWidget(self.input, 1)
        self.send_button = QPushButton("Send", objectName="sendButton")
        self.stop_button = QPushButton("■  Stop", objectName="stopButton")
        for button in (self.send_button, self.stop_button):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            line.addWidget(button, 0, Qt.AlignmentFlag.AlignBottom)
        self.send_button.clicked.connect(lambda: self.submit(self.input.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        self.stop_button.hide()
        return box

    # ---------------------------------------------------------------- state
    @property
    def busy(self) -> bool:
        return self.backend.controller is not None and self.backend.controller.busy

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

    def _load_history(self) -> None:
        try:
            with self.service.db.read_session() as session:
                turns = repository.recent_turns(session, HISTORY_TURNS)
        except StorageError as exc:
            self.transcript.add_notice(f"Could not load earlier messages: {exc}", "error")
            return
        for turn in turns:
            self.transcript.add_day(turn.created_at.astimezone().date())
            if turn.role == "user":
                self.transcript.add_user(turn.content)
            elif turn.role == "assistant":
                self.transcript.add_her(turn.content)
            else:
                self.transcript.add_notice(turn.content)

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
                self.backend.problem or "No language model is set up yet.", "setup",
                [("Open Settings", self.open_settings)],
            )
        config = self.backend.config
        if ready and config is not None:
            spec = SPECS.get(config.provider_id)
            where = spec.name if spec else config.provider_id
            self.model_line.setText(f"{config.model} · {where}")
        else:
            self.model_line.setText("no model set up")
        self.input.setPlaceholderText(
            "Say something…  (Enter sends, Shift+Enter for a new line)" if ready
            else "Set up a language model in Settings to start talking"
        )
        self._update_buttons()

    def _wire_controller(self) -> None:
        controller = self.backend.controller
        if controller is None or controller is self._wired:
            return
        controller.started.connect(self._on_started)
        controller.phase.connect(self._on_phase)
        controller.text.connect(self._on_text)
        controller.done.connect(self._on_done)
        controller.failed.connect(self._on_failed)
        controller.busy_changed.connect(self._on_busy)
        self._wired = controller

    def _update_buttons(self) -> None:
        busy = self.busy
        text = self.input.toPlainText().strip()
        command = text == RELATIONSHIP_COMMAND
        self.send_button.setEnabled(not busy and bool(text) and (self.backend.ready or command))
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        self.input.set_busy(busy)

    # ---------------------------------------------------------------- turns
    def submit(self, text: str) -> None:
        """Send ``text`` (the box's content) as a turn, or run the ``/relationship`` command."""
        message = text.strip()
        if not message or self.busy:
            return
        if message == RELATIONSHIP_COMMAND:
            self.input.clear()
            self.show_relationship()
            return
        if not self.backend.ready:
            return
        self.input.clear()
        self._start(text.strip("\n"))

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
        self._clear_error()
        self._start(self.pending, retry=True)

    def stop(self) -> None:
        if self.backend.controller is not None:
            self.backend.controller.stop()

    def _start(self, message: str, retry: bool = False) -> None:
        assert self.backend.controller is not None
        self.backend.controller.send(message, retry)

    def _on_started(self, message: str, retry: bool) -> None:
        """A turn began, from this window or the overlay: show the message once."""
        if not retry:
            self._retire_error()
            self.transcript.add_day(self.clock().date())
            self.transcript.add_user(message)
        self.pending = message
        self._her = None
        self.transcript.show_phase(PHASE_TEXT["remembering"])

    def _retire_error(self) -> None:
        """A new message moves on from a failed one: its notice stays, its buttons go."""
        if self._error is not None:
            for button in self._error.buttons.values():
                button.hide()
        self._error = None
        self.pending = None

    def _clear_error(self) -> None:
        self.transcript.remove(self._error)
        self._error = None

    def _on_phase(self, phase: str) -> None:
        if self._her is None:
            self.transcript.show_phase(PHASE_TEXT.get(phase, phase.capitalize() + "…"))

    def _on_text(self, visible: str) -> None:
        if not self.busy and self.pending is None:
            return  # a late chunk after the turn ended
        if self._her is None:
            if not visible.strip():
                return
            self.transcript.hide_phase()
            self._her = self.transcript.add_her(visible)
        else:
            self._her.set_text(visible)

    def _on_done(self, result: TurnResult) -> None:
        self.transcript.hide_phase()
        if self._her is None:
            self._her = self.transcript.add_her(result.reply)
        else:
            self._her.set_text(result.reply)
        self._her = None
        self.pending = None
        self.panel.show_state(result.state)
        self.title.setText(result.state.name)
        if result.stage_changed:
            self.transcript.add_notice(
                f"{result.state.name} now sees you as: {STAGE_NAMES[result.stage]}")
        if result.event is not None:
            self.play_event(result.event)
        for reminder in result.reminders:
            when = datetime.fromisoformat(reminder["triggerAt"]).astimezone().strftime("%H:%M")
            self.transcript.add_notice(f"⏰ Reminder set for {when}: {reminder['text']}")

    def _on_failed(self, message: str, retryable: bool) -> None:
        self.transcript.hide_phase()
        self.transcript.remove(self._her)
        self._her = None
        if message == "Stopped.":
            text = "Stopped. Nothing was saved; your message is still here."
        else:
            text = f"{message}\nNothing was saved; your message is still here."
        if retryable:
            actions = [("↻  Retry", self.retry)]
        else:
            actions = [("Open Settings", self.open_settings)]
        self._clear_error()
        self._error = self.transcript.add_notice(text, "error", actions)

    def _on_busy(self, busy: bool) -> None:
        self._update_buttons()
        if not busy and self._reconnect_after_turn:
            self._reconnect_after_turn = False
            self.reconnect()

    def show_system_turn(self, notice: str, reply: str, on_dismiss=None) -> None:  # noqa: ANN001
        """A machine-generated turn (a fired reminder): the event, then her words.
        ``on_dismiss`` adds a Dismiss button (the dismissal is stored)."""
        self.transcript.add_day(self.clock().date())
        holder: list = []

        def dismiss() -> None:
            on_dismiss()
            for button in holder[0].buttons.values():
                button.hide()

        actions = [("Dismiss", dismiss)] if on_dismiss is not None else None
        holder.append(self.transcript.add_notice(notice, "info", actions))
        if reply.strip():
            self.transcript.add_her(reply)
        self.refresh()

    def play_event(self, event) -> None:  # noqa: ANN001 - engine.events.EventDefinition
        """A moment fired: show its scene; the choice is recorded by the scene window."""
        from companion_desktop.ui.scene import SceneDialog

        self.transcript.add_notice(f"✨ {event.name}")
        dialog = SceneDialog(event, self.service, self.clock, self.host, self)
        dialog.finished_with.connect(self.panel.show_state)
        self._scene_dialog = dialog
        dialog.open()

    # -------------------------------------------------------------- settings
    def open_settings(self) -> None:
        runner = self.backend.runner
        dialog = SettingsDialog(self.service, self.clock, self, host=self.host,
                                current_session=(lambda: runner.session_id) if runner else None)
        worker = getattr(self, "memory_worker", None)
        if worker is not None:
            dialog.rebuild_requested.connect(worker.restart)
        dialog.saved.connect(self.settings_saved)
        self.settings_requested.emit()
        dialog.open()

    def settings_saved(self) -> None:
        """Settings changed: redraw her state; reopen the provider once no turn runs."""
        self.refresh()
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
        self.timer.stop()
        self.backend.shutdown()
