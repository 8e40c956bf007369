"""The chat window's turns in the transcript: earlier ones, the running one, system ones.

On opening, the last ``HISTORY_TURNS`` stored turns come back as bubbles (with the
photos still kept). A running turn goes: the user's bubble appears, the phase label
shimmers ("Remembering…", then "Thinking…"), her bubble fills in as the reply
streams, and the side panel shows the new state when the turn is done. A failed or
stopped turn saves nothing: the user's message stays ``pending``, an inline error
says what happened, and Retry (when a retry can help) sends the same message again;
the next new message retires that error's buttons. A machine-generated turn (a
fired reminder) shows its notice, then her words. ``ChatTurns`` is owned by the chat
window, which keeps ``pending``, ``retry`` and ``show_system_turn`` and hands them to it.
A screen shown to her has a line above its turn ("You showed her your screen (Firefox)"),
from the stored turn's meta when the history comes back.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject

from companion_desktop.pipeline.companion import STAGE_NAMES
from companion_desktop.pipeline.memory import PHOTO_MARK as SHOW_ONLY_TEXT  # = pipeline.runner's
from companion_desktop.pipeline.system_lines import system_line
from companion_desktop.storage import repository
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.chat.transcript import Bubble, Notice
from companion_desktop.ui.photos import kept_thumbnails
from companion_desktop.ui.shimmer import PHASE_TEXT, phase_text

if TYPE_CHECKING:
    from companion_desktop.pipeline.runner import TurnResult
    from companion_desktop.ui.chat.surface import TurnSurface

#: How many stored turns the window shows when it opens.
HISTORY_TURNS = 60


def screen_label(meta: dict[str, Any] | None) -> str | None:
    """What a stored user turn showed of the screen ("Firefox"), None for other turns."""
    image = (meta or {}).get("image")
    screen = image.get("screen") if isinstance(image, dict) else None
    return str(screen) if screen is not None else None


def screen_line(label: str) -> str:
    """The chat's line for a screen shown to her: "You showed her your screen (Firefox)"."""
    what = "your screen" if label == "your screen" else f"your screen ({label})"
    return f"👁 You showed her {what}"


class ChatTurns(QObject):
    """The turn display of ``window`` (the chat window, as ``surface.TurnSurface``):
    ``pending`` (the message of the running or
    failed turn, else None), ``her`` (her bubble while it streams, else None) and
    ``error`` (the failed turn's notice, else None).

    The window's ``transcript``, ``clock``, ``service``, ``busy``, ``photos``,
    ``tools``, ``panel``, ``title``, ``play_event``, ``retry``, ``open_settings``
    and ``refresh`` are used as they are.
    """

    def __init__(self, window: TurnSurface) -> None:
        super().__init__(window)
        self.window = window
        self.pending: str | None = None
        self.her: Bubble | None = None
        self.error: Notice | None = None

    def wire(self, controller: Any) -> None:
        """Follow ``controller``'s turn signals (started, phase, text, done, failed)."""
        controller.started.connect(self.on_started)
        controller.phase.connect(self.on_phase)
        controller.text.connect(self.on_text)
        controller.done.connect(self.on_done)
        controller.failed.connect(self.on_failed)

    def still_thinking(self) -> bool:
        """True while a turn runs and her reply has not started showing."""
        return self.her is None and self.window.busy

    # ------------------------------------------------------------- history
    def load_history(self) -> None:
        """Show the last ``HISTORY_TURNS`` stored turns, each under its day."""
        window = self.window
        try:
            with window.service.db.read_session() as session:
                turns = repository.recent_turns(session, HISTORY_TURNS)
        except StorageError as exc:
            window.transcript.add_notice(f"Could not load earlier messages: {exc}", "error")
            return
        photos = kept_thumbnails(window.service)
        for turn in turns:
            window.transcript.add_day(turn.created_at.astimezone().date())
            if turn.role == "user":
                screen = screen_label(turn.meta)
                if screen is not None:  # the picture was never kept, unless kept like a photo
                    window.transcript.add_notice(screen_line(screen))
                    if turn.content == SHOW_ONLY_TEXT and turn.id not in photos:
                        continue
                photo = photos.get(turn.id)
                window.transcript.add_user(turn.content, photo, turn.content == SHOW_ONLY_TEXT)
            elif turn.role == "assistant":
                window.transcript.add_her(turn.content)
            else:  # a machine-made turn: the line it had when it happened
                window.transcript.add_notice(system_line(turn.content))

    def show_system_turn(self, notice: str, reply: str,
                         on_dismiss: Callable[[], None] | None = None) -> None:
        """A machine-generated turn (a fired reminder): the event, then her words.
        ``on_dismiss`` adds a Dismiss button (the dismissal is stored)."""
        window = self.window
        window.transcript.add_day(window.clock().date())
        holder: list = []

        def dismiss() -> None:
            on_dismiss()
            for button in holder[0].buttons.values():
                button.hide()

        actions = [("Dismiss", dismiss)] if on_dismiss is not None else None
        holder.append(window.transcript.add_notice(notice, "info", actions))
        if reply.strip():
            window.transcript.add_her(reply)
        window.refresh()

    # -------------------------------------------------------- running turn
    def on_started(self, message: str, retry: bool) -> None:
        """A turn began, from this window or the overlay: show the message once."""
        window = self.window
        if not retry:
            self.retire_error()
            window.transcript.add_day(window.clock().date())
            screen = window.photos.screen_shown()
            photo, photo_only = window.photos.shown_with(message)
            if screen is not None:
                window.transcript.add_notice(screen_line(screen))
            if screen is None or not photo_only or window.photos.kept_now():
                window.transcript.add_user(message, photo, photo_only)
            # a screen sent without words and not kept: the line says it (as in history)
        self.pending = message
        self.her = None
        window.transcript.show_phase(PHASE_TEXT["remembering"])

    def retire_error(self) -> None:
        """A new message moves on from a failed one: its notice stays, its buttons go."""
        if self.error is not None:
            for button in self.error.buttons.values():
                button.hide()
        self.error = None
        self.pending = None

    def clear_error(self) -> None:
        """Remove the failed turn's notice (a retry is on its way)."""
        self.window.transcript.remove(self.error)
        self.error = None

    def on_phase(self, phase: str) -> None:
        """The pipeline moved on ("remembering", "seeing", "thinking", …): the label."""
        if self.her is None:
            self.window.transcript.show_phase(phase_text(phase))

    def on_text(self, visible: str) -> None:
        """Her reply so far (the visible part): start or update her bubble."""
        if not self.window.busy and self.pending is None:
            return  # a late chunk after the turn ended
        if self.her is None:
            if not visible.strip():
                return
            self.window.transcript.hide_phase()
            self.her = self.window.transcript.add_her(visible)
        else:
            self.her.set_text(visible)

    def on_done(self, result: TurnResult) -> None:
        """The turn was saved: her final words, the new state, stage, moment, reminders."""
        window = self.window
        window.tools.expire()
        window.photos.kept(result)
        window.transcript.hide_phase()
        if self.her is None:
            self.her = window.transcript.add_her(result.reply)
        else:
            self.her.set_text(result.reply)
        self.her = None
        self.pending = None
        window.panel.show_state(result.state)
        window.title.setText(result.state.name)
        if result.stage_changed:
            window.transcript.add_notice(
                f"{result.state.name} now sees you as: {STAGE_NAMES[result.stage]}")
        if result.event is not None:
            window.play_event(result.event)
        for reminder in result.reminders:
            when = datetime.fromisoformat(reminder["triggerAt"]).astimezone().strftime("%H:%M")
            window.transcript.add_notice(f"⏰ Reminder set for {when}: {reminder['text']}")

    def on_failed(self, message: str, retryable: bool) -> None:
        """The turn failed or was stopped: nothing saved; an error with Retry or Settings."""
        window = self.window
        window.tools.expire()
        window.transcript.hide_phase()
        window.transcript.remove(self.her)
        self.her = None
        if message == "Stopped.":
            text = "Stopped. Nothing was saved; your message is still here."
        else:
            text = f"{message}\nNothing was saved; your message is still here."
        if retryable:
            actions = [("↻  Retry", window.retry)]
        else:
            actions = [("Open Settings", window.open_settings)]
        self.clear_error()
        self.error = window.transcript.add_notice(text, "error", actions)
