"""Her card's greetings after the import: the one she opens a conversation with, chosen
among the card's first message and alternate greetings, and a new relationship begun on
the card she already is.

Her greeting is "open" while it is the newest message and nobody has answered it: then
choosing another greeting (the arrows under it in the chat, or Settings > Character)
rewrites it in place, and the next turn's prompt reads the new words. Once answered it
stays as it was; the choice is kept for her next new relationship.

``start_again`` is the Settings button of that name: the current relationship is
backed up first (no backup, nothing changes), then, in one transaction, it is removed
as a "start a new relationship" import removes it, and she, with the same name and
persona, opens the new one with the chosen greeting.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..engine.card_text import fill_macros
from . import repository
from .backup import BackupError, auto_backup
from .card_store import CardImport, StoredCard, greet, load_card, start_anew
from .db import Database
from .models import TurnRow
from .settings import save_settings

REASON_AGAIN = "before a new relationship"


@dataclass(frozen=True)
class OpenGreeting:
    """Her unanswered greeting: the turn, the index of its text among ``choices`` (the
    card's greetings, macros filled) and those choices."""

    turn_id: int
    index: int
    choices: tuple[str, ...]

    @property
    def text(self) -> str:
        return self.choices[self.index]


def _choices(session: Session) -> tuple[StoredCard, tuple[str, ...]]:
    stored = load_card(session)
    character = repository.load_character(session)
    name = character.name if character is not None else ""
    return stored, tuple(fill_macros(g, name, stored.user_name) for g in stored.greetings())


def open_greeting(session: Session) -> OpenGreeting | None:
    """Her greeting if it is the newest message and unanswered, else None."""
    row = session.scalar(select(TurnRow).order_by(TurnRow.id.desc()).limit(1))
    if row is None or row.role != "assistant" or not (row.meta or {}).get("greeting"):
        return None
    stored, choices = _choices(session)
    if not stored.present or not choices:
        return None
    index = (row.meta or {}).get("greeting_index")
    if not isinstance(index, int) or not 0 <= index < len(choices):
        index = next((i for i, text in enumerate(choices) if text == row.content), 0)
    return OpenGreeting(row.id, index, choices)


def choose_greeting(db: Database, index: int) -> OpenGreeting | None:
    """Make greeting ``index`` (0: the first message) the chosen one; her open greeting,
    if there is one, now says it (returned, else None). ValueError for an index the
    card does not have. One transaction."""
    with db.session() as session:
        stored, choices = _choices(session)
        if not 0 <= index < len(choices):
            raise ValueError(f"her card has {len(choices)} greetings; there is no greeting "
                             f"{index}")
        if stored.greeting != index:
            save_settings(session, StoredCard(**{**stored.model_dump(), "greeting": index}))
        found = open_greeting(session)
        if found is None:
            return None
        row = session.get(TurnRow, found.turn_id)
        assert row is not None  # open_greeting found it in this transaction
        row.content = choices[index]
        row.meta = {**(row.meta or {}), "greeting": True, "greeting_index": index}
        return OpenGreeting(found.turn_id, index, choices)


def start_again(db: Database, now: datetime) -> CardImport:
    """A new relationship with her as she is (see the module). Raises BackupError
    (nothing changed) when the backup cannot be made."""
    try:
        made = auto_backup(db.path.parent, REASON_AGAIN, now)
    except BackupError as error:
        raise BackupError(f"{error}. Nothing changed: a new relationship starts only after "
                          "the current one is backed up.") from error
    with db.session() as session:
        old = repository.load_or_create_character(session, now)
        name, persona = old.name, old.system_prompt
        stored = load_card(session)
        start_anew(session, now)
        state = repository.load_or_create_character(session, now)
        state.name, state.system_prompt = name, persona
        repository.save_character(session, state)
        hello = greet(session, stored, name, now) if stored.present else ""
        entries = len(stored.lorebook)
    return CardImport(name, entries, True, made.path if made else None, hello, restarted=True)
