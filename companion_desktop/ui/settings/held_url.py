"""The line over a server address a restored backup brought: no key goes there until the
user confirms it here (``pipeline.key_hold``).

A page that has a server address and a key (LLM Model, Voice, Hearing) shows one
``HeldUrlNotice`` by that address. While the page shows the held address, the notice
says what the restore changed, with a button that confirms it, and ``held()`` tells
the page's key field to send no stored key (a key typed now is the user's own act).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QWidget

from companion_desktop.pipeline import key_hold
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.restore_trust import URL_SECTIONS
from companion_desktop.storage.settings import load_settings
from companion_desktop.ui.plain import plain_label

CONFIRM = "Use this address with my key"


class HeldUrlNotice(QFrame):
    """Shown while ``shown_url()`` (the address the page shows now) is one a restore
    brought for settings ``section`` ("llm", "voice", "hearing"); ``confirmed`` after
    the user confirmed it."""

    confirmed = Signal()

    def __init__(self, service: CompanionService, section: str,
                 shown_url: Callable[[], str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("heldUrlNotice")
        self.service, self.section, self.shown_url = service, section, shown_url
        #: Whether the page uses its address now (a voice page set to offline does not).
        self.applies: Callable[[], bool] = lambda: True
        self.text = plain_label(objectName="statusLine", wordWrap=True)  # the URL as written
        self.button = QPushButton(CONFIRM, objectName="secondaryButton")
        self.button.clicked.connect(self.confirm)
        line = QHBoxLayout(self)
        line.setContentsMargins(0, 0, 0, 4)
        line.addWidget(self.text, 1)
        line.addWidget(self.button)
        self.hide()  # until the page, set up, calls refresh()

    def held(self) -> str | None:
        """The held address when the page still shows it, else None."""
        with self.service.db.read_session() as session:
            url = key_hold.held_url(load_settings(session, URL_SECTIONS[self.section][0]))
        shown = (self.shown_url() or "").strip()
        return url if url and shown == url else None

    def refresh(self) -> None:
        """Show or hide the line for what the page shows now."""
        url = self.held()
        if url:
            self.text.setText(f"⚠  {key_hold.held_message(self.section, url)}")
        self.setVisible(url is not None and self.applies())

    def confirm(self) -> None:
        """Confirm the held address (the key may go there from now on)."""
        with self.service.db.session() as session:
            key_hold.confirm(session, (self.section,))
        self.refresh()
        self.confirmed.emit()
