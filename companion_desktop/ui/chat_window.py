"""The chat window: her state beside the conversation, and the message box.

A turn goes: the user's bubble appears, the phase label shimmers ("Remembering…",
then "Thinking…"), her bubble fills in as the reply streams, and the side panel
shows the new state when the turn is done. A failed or stopped turn saves nothing:
the user's message stays, an inline error says what happened, and Retry (when a
retry can help) sends the same message again. ``/relationship`` shows the
relationship card without calling the model. Without a usable provider the window
still opens, says what to set up, and offers Settings.

Showing her a photo: the paperclip, a drop anywhere on the window, or a paste
stages it (prepared off the GUI thread) in a chip above the box; Send sends it
with the text, or alone. A text-only model gets a notice to switch instead; the
first photo per provider gets the privacy notice. The Photoboard (header button)
keeps every photo shown. Tools that need the user's yes ask inline (Allow / Deny).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

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
from companion_desktop.pipeline.runner import SHOW_ONLY_TEXT, TurnResult
from companion_desktop.storage import repository
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.chat_backend import ChatBackend
from companion_desktop.ui.chat_input import Composer
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.state_panel import StatePanel
from companion_desktop.ui.style import STYLE_SHEET
from companion_desktop.ui.photoboard import PhotoboardWindow, kept_thumbnails
from companion_desktop.ui.shown_image import (
    DropHint,
    DropTarget,
    PhotoStage,
    Source,
    choose_image_file,
)
from companion_desktop.ui.transcript import ApprovalNotice, Bubble, Notice, Transcript

REFRESH_MS = 60_000
HISTORY_TURNS = 60
PHASE_TEXT = {"remembering": "Remembering…", "seeing": "Seeing…", "thinking": "Thinking…"}
RELATIONSHIP_COMMAND = "/relationship"


class ChatWindow(QMainWindow):
    """The main window over ``service``; ``backend`` links it to the model."""

    settings_requested = Signal()
    backend_changed = Signal()  # the provider was (re)connected: rewire listeners
    photo_problem = Signal(str)  # a photo could not be shown (refused, gated, busy)

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
        self._vision: Notice | None = None
        self._approvals: list[ApprovalNotice] = []
        self._after_photo: Callable[[], None] | None = None  # what to do once it is prepared
        self.photoboard: PhotoboardWindow | None = None
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
        self.photoboard_button = QPushButton("▦  Photoboard", objectName="headerButton")
        self.photoboard_button.setToolTip("Every photo you showed her, with her notes")
        self.photoboard_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.photoboard_button.clicked.connect(self.open_photoboard)
        top.addWidget(self.photoboard_button)
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
        self.drop_hint = DropHint(self)
        self.drop_target = DropTarget(self, self._dropped, self.drop_hint.cover)

    def _composer(self) -> QFrame:
        box = Composer()
        self.input, self.send_button, self.stop_button = box.input, box.send_button, box.stop_button
        self.clip_button, self.chip = box.clip_button, box.chip
        self.input.submitted.connect(self.submit)
        self.input.textChanged.connect(self._update_buttons)
        self.input.image_pasted.connect(self.stage_image)
        self.send_button.clicked.connect(lambda: self.submit(self.input.toPlainText()))
        self.stop_button.clicked.connect(self.stop)
        self.clip_button.clicked.connect(self.choose_photo)
        self.photo = PhotoStage(self.chip, self)
        self.photo.changed.connect(self._update_buttons)
        self.photo.ready.connect(self._photo_ready)
        self.photo.refused.connect(self._photo_refused)
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
        photos = kept_thumbnails(self.service)
        for turn in turns:
            self.transcript.add_day(turn.created_at.astimezone().date())
            if turn.role == "user":
                photo = photos.get(turn.id)
                self.transcript.add_user(turn.content, photo, turn.content == SHOW_ONLY_TEXT)
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
        controller.approval_requested.connect(self._on_approval)
        controller.tool_activity.connect(self._on_tool)
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
    def submit(self, text: str) -> None:
        """Send ``text`` (the box's content) with the staged photo, if any, as a turn,
        or run the ``/relationship`` command. A photo still preparing is sent when ready."""
        message = text.strip()
        if self.busy or not (message or self.photo.staged):
            return
        if self.photo.preparing:
            self._after_photo = lambda: self.submit(self.input.toPlainText())
            return
        image = self.photo.prepared
        if message == RELATIONSHIP_COMMAND and image is None:
            self.input.clear()
            self.show_relationship()
            return
        if not self.backend.ready:
            return
        if image is not None and not self._photo_allowed():
            return
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
        self._clear_error()
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

    def _on_started(self, message: str, retry: bool) -> None:
        """A turn began, from this window or the overlay: show the message once."""
        if not retry:
            self._retire_error()
            self.transcript.add_day(self.clock().date())
            image = getattr(self.backend.controller, "current_image", None)
            thumbnail = image.thumbnail if image is not None else None
            photo_only = image is not None and message == SHOW_ONLY_TEXT
            self.transcript.add_user(message, thumbnail, photo_only)
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
        self._expire_approvals()
        if getattr(result, "keepsake", None) is not None and self.photoboard is not None:
            self.photoboard.refresh()
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
        self._expire_approvals()
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

    # ---------------------------------------------------------------- photos
    def choose_photo(self) -> None:
        """The paperclip: pick a photo with the system dialog and stage it."""
        path = choose_image_file(self)
        if path:
            self.stage_image(path, Path(path).name)

    def stage_image(self, source: Source, name: str) -> None:
        """Prepare a photo (path, bytes or QImage) for the next message; replaces a staged one."""
        self._after_photo = None
        self.photo.stage(source, name)

    def show_image(self, source: Source, name: str, send_now: bool = False) -> None:
        """Show her a photo from elsewhere (a drop on the overlay). With ``send_now`` it
        goes at once with no words; while a turn runs, or when the model cannot see
        photos, it stays staged and the reason is shown."""
        self.stage_image(source, name)
        if send_now:
            self._after_photo = self._send_photo_now

    def _send_photo_now(self) -> None:
        if self.busy:
            self._photo_problem("She's still answering. The photo is ready in the chat; "
                                "send it when she's done.")
        elif not self.backend.ready:
            self._photo_problem(self.backend.problem or "No language model is set up yet.")
        elif self._photo_allowed():
            self._start(SHOW_ONLY_TEXT, image=self.photo.prepared)

    def _photo_ready(self, _image: object) -> None:
        then, self._after_photo = self._after_photo, None
        if then is not None:
            then()

    def _photo_refused(self, message: str) -> None:
        self._after_photo = None
        self.transcript.add_notice(message, "error")
        self.photo_problem.emit(message)

    def _photo_problem(self, message: str, actions=None) -> None:  # noqa: ANN001
        self.transcript.remove(self._vision)
        self._vision = self.transcript.add_notice(message, "setup", actions)
        self.photo_problem.emit(message)

    def _photo_allowed(self) -> bool:
        """Vision gating, then the first-photo privacy notice; False keeps the photo staged."""
        if not self.backend.can_show_images():
            actions = [("Open Settings", self.open_settings)]
            self._photo_problem(self.backend.vision_refusal(), actions)
            return False
        self.transcript.remove(self._vision)
        self._vision = None
        notice = self.backend.photo_notice()
        if notice:
            self.transcript.add_notice(notice, "info")
        return True

    def _dropped(self, source: Source, name: str) -> None:
        self.stage_image(source, name)
        self.input.setFocus()

    def open_photoboard(self) -> None:
        """Show the photoboard window (one, reused), up to date."""
        if self.photoboard is None:
            self.photoboard = PhotoboardWindow(self.service, self)
        else:
            self.photoboard.refresh()
        self.photoboard.show()
        self.photoboard.raise_()
        self.photoboard.activateWindow()

    # ----------------------------------------------------------------- tools
    def _on_approval(self, ticket) -> None:  # noqa: ANN001 - the pipeline's approval ticket
        """A tool needs the user's yes: ask inline; the answer goes back to the ticket."""
        self._approvals = [a for a in self._approvals if a.open]
        self._approvals.append(self.transcript.add_approval(ticket))

    def _expire_approvals(self) -> None:
        for notice in self._approvals:
            notice.expire()
        self._approvals = []

    def _on_tool(self, label: str, status: str) -> None:
        """A tool runs ("running") or ended ("done", "declined", "failed"): the phase line."""
        label = " ".join(label.split())[:60] or "a tool"
        for notice in self._approvals:
            if getattr(notice.ticket, "cancelled", False):
                notice.expire()  # it timed out: she went on without it
        if status == "running":
            self.transcript.show_phase(f"Using {label}…")
        elif self._her is None and self.busy:
            self.transcript.show_phase(PHASE_TEXT["thinking"])
        else:
            self.transcript.hide_phase()

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
