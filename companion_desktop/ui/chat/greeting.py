"""Her card's greetings in the chat: what the window shows after a character card came in
(by a drop here or on her, or from Settings), and the arrows under her open greeting.

A new relationship clears the conversation view and shows her greeting as the first
message. While that greeting is unanswered and the card has more than one, a small row
under it ("‹ 2/3 ›") offers the others: each click rewrites the greeting in place
(``storage.card_greeting.choose_greeting``) and in the running session's memory, so her
next reply follows the greeting shown. The row goes as soon as any message follows.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.chat.transcript import Bubble

ARROWS_TIP = "Her other greetings from the character card"


class GreetingArrows(QFrame):
    """‹ n/N ›: ``previous`` and ``next`` buttons around the position label."""

    def __init__(self) -> None:
        super().__init__(objectName="greetingArrows")
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 0, 6, 0)
        row.setSpacing(6)
        self.previous = QPushButton("‹", objectName="greetingPrevious")
        self.next = QPushButton("›", objectName="greetingNext")
        self.position = QLabel(objectName="greetingPosition")
        for button, tip in ((self.previous, "The greeting before"),
                            (self.next, "The next greeting")):
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setFixedSize(26, 22)
            button.setToolTip(tip)
        row.addWidget(self.previous)
        row.addWidget(self.position)
        row.addWidget(self.next)
        self.setToolTip(ARROWS_TIP)

    def show_position(self, index: int, count: int) -> None:
        self.position.setText(f"{index + 1}/{count}")

    def fit(self, _max_width: int) -> None:
        """Its own size (the transcript asks every row)."""


class ChatGreeting(QObject):
    """The window's side of card imports and greeting choices (see the module). The
    window's ``transcript``, ``turns``, ``photos.cards`` (its ``ui.card_import``),
    ``backend``, ``service`` and ``busy`` are used."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.bubble: Bubble | None = None
        self.arrows: GreetingArrows | None = None
        self.index = 0
        self.count = 0
        window.transcript.added.connect(self._row_added)
        window.photos.cards.imported.connect(self.card_imported)
        window.photos.cards.working.connect(self._working)

    def _working(self, doing: str) -> None:
        """An import under way is shown where her thinking is; "" hides it."""
        if doing:
            self.window.transcript.show_phase(doing)
        elif not self.window.busy:
            self.window.transcript.hide_phase()

    # ---------------------------------------------------------------- imports
    def card_imported(self, done: object) -> None:
        """A card came in (or a new relationship began on hers): say so; a new
        relationship starts the conversation view anew with her greeting."""
        window = self.window
        name = getattr(done, "name", "")
        notes = "".join(f" {note}" for note in getattr(done, "notes", ()))
        if getattr(done, "lorebook_only", False):
            window.transcript.add_notice(f"Added to her lorebook: it has "
                                         f"{getattr(done, 'entries', 0)} entries now.", "info")
            return
        if not getattr(done, "new_relationship", False):
            window.transcript.add_notice(f"She is now {name}; your relationship stays as it "
                                         f"is.{notes}", "info")
            return
        if getattr(done, "restarted", False):
            line = f"A new relationship with {name} begins (the old one is backed up)."
        else:
            line = (f"She is now {name}: a new relationship begins (the old one is backed "
                    f"up).{notes}")
        if window.busy:  # her reply is still being drawn: the view is kept
            window.transcript.add_notice(line, "info")
            greeting = getattr(done, "greeting", "")
            if greeting:
                window.transcript.add_her(greeting)
            return
        self.close()
        window.transcript.clear()
        window.transcript.add_notice(line, "info")
        window.turns.load_history()
        self.offer()
        window.refresh()

    # ------------------------------------------------------------------ arrows
    def offer(self) -> None:
        """Arrows under her greeting when it is the newest message, unanswered, and her
        card has others (after the history is shown, a card came in or Settings were
        saved: a greeting chosen there is shown)."""
        from companion_desktop.storage.card_greeting import open_greeting

        self.close()
        bubbles = self.window.transcript.bubbles()
        if not bubbles or bubbles[-1].role != "her":
            return
        try:
            with self.window.service.db.read_session() as session:
                found = open_greeting(session)
        except StorageError:
            return
        if found is None or bubbles[-1].text() not in found.choices:
            return
        if bubbles[-1].text() != found.text:  # chosen in Settings meanwhile
            self._say(bubbles[-1], found.text)
        if len(found.choices) < 2:
            return
        self.bubble, self.index, self.count = bubbles[-1], found.index, len(found.choices)
        arrows = GreetingArrows()
        arrows.previous.clicked.connect(lambda: self.step(-1))
        arrows.next.clicked.connect(lambda: self.step(1))
        arrows.show_position(self.index, self.count)
        self.arrows = arrows
        self.window.transcript.add_row(arrows)

    def step(self, by: int) -> None:
        """Show the greeting ``by`` places on (wrapping round)."""
        if self.bubble is None or self.count < 2 or self.window.busy:
            return
        self.choose((self.index + by) % self.count)

    def choose(self, index: int) -> None:
        """Her open greeting becomes greeting ``index``; if it is no longer open (she or
        the user spoke meanwhile), the arrows go."""
        from companion_desktop.storage.card_greeting import choose_greeting

        bubble = self.bubble
        if bubble is None:
            return
        try:
            found = choose_greeting(self.window.service.db, index)
        except (StorageError, ValueError) as error:
            self.window.transcript.add_notice(f"The greeting could not be changed: {error}",
                                              "error")
            self.close()
            return
        if found is None:
            self.close()
            return
        self._say(bubble, found.text)
        self.index = found.index
        if self.arrows is not None:
            self.arrows.show_position(self.index, self.count)

    def _say(self, bubble: Bubble, text: str) -> None:
        """``bubble`` (her open greeting) now says ``text``, in the view and in the
        running session's memory."""
        old = bubble.text()
        bubble.set_text(text)
        runner = getattr(self.window.backend, "runner", None)
        if runner is not None:
            runner.working.revise("assistant", old, text)

    def close(self) -> None:
        """Take the arrows away (answered, or the view is redrawn)."""
        if self.arrows is not None:
            self.window.transcript.remove(self.arrows)
        self.arrows, self.bubble = None, None

    def _row_added(self, row: object) -> None:
        if self.arrows is not None and isinstance(row, Bubble):
            self.close()
