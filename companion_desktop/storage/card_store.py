"""Her character card as saved: the card's fields beside her persona, her lorebook and
portrait, and the import and export of a card, each in one transaction.

The fields that make her persona (name; description, personality and scenario as the
persona text) live in the character record, as Settings > Character edits them; the
rest of the card lives in the ``character_card`` settings row (:class:`StoredCard`):
greetings, example dialogue, the author's notes, creator notes and tags (shown, never
sent), her lorebook, the portrait (a PNG of at most ``PORTRAIT_SIDE`` pixels) and what
she calls the user. An import is parsed and checked whole before anything is written;
"start a new relationship" first makes an automatic backup (as a replace import does:
no backup, no import), then, in one transaction, removes the character, facts,
sessions, turns, completed events and familiarity record, gives the data a new
generation, and starts her anew with the card's first message (or the chosen
alternate greeting) as her first message. A card writes nothing else: no provider,
key, tool or other setting.
"""

from __future__ import annotations

import base64
import io
import struct
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, Field
from sqlalchemy import delete
from sqlalchemy.orm import Session

from ..engine.card import LIMITS, MAX_ENTRIES, MAX_GREETINGS, NAME_CHARS, CardError, CharacterCard
from ..engine.card_text import compose_persona, fill_macros, split_persona
from ..engine.lorebook import LOGICS, MAX_SCAN_DEPTH, MAX_TOKEN_BUDGET, Lorebook, LoreEntry
from ..engine.untrusted_text import cut
from . import repository
from .backup import BackupError, auto_backup, new_generation
from .card_file import PNG_SIGNATURE, CardFile
from .db import Database
from .models import CharacterRow, CompletedEventRow, FactRow, RelationshipRow, SessionRow, TurnRow
from .savefile_fields import CAPS
from .settings import SettingsSection, load_settings, save_settings

PORTRAIT_SIDE = 512
#: Largest image a portrait is made from, in pixels (a decompression bomb is refused).
MAX_IMAGE_PIXELS = 40_000_000
REASON_CARD = "before a new character"
_T = LIMITS


class StoredEntry(BaseModel):
    """One lorebook entry as saved (``engine.lorebook.LoreEntry``)."""

    content: str = Field(max_length=_T["content"])
    keys: list[str] = Field(default_factory=list, max_length=50)
    secondary_keys: list[str] = Field(default_factory=list, max_length=50)
    enabled: bool = True
    constant: bool = False
    selective: bool = False
    logic: str = "and_any"
    order: int = Field(default=100, ge=-100_000, le=100_000)
    priority: int = Field(default=0, ge=-1000, le=1000)
    case_sensitive: bool = False
    use_regex: bool = False
    scan_depth: int | None = Field(default=None, ge=0, le=MAX_SCAN_DEPTH)
    name: str = Field(default="", max_length=_T["entry_name"])

    def entry(self) -> LoreEntry:
        return LoreEntry(**{**self.model_dump(), "keys": tuple(self.keys),
                            "secondary_keys": tuple(self.secondary_keys),
                            "logic": self.logic if self.logic in LOGICS else "and_any"})

    @classmethod
    def of(cls, entry: LoreEntry) -> StoredEntry:
        return cls(**{**entry.__dict__, "keys": list(entry.keys),
                      "secondary_keys": list(entry.secondary_keys)})


class StoredCard(SettingsSection):
    """The card beside her persona (see the module); ``present`` once a card came in."""

    SECTION: ClassVar[str] = "character_card"
    present: bool = False
    spec: str = Field(default="", max_length=10)
    source_name: str = Field(default="", max_length=260)
    description: str = Field(default="", max_length=_T["description"])
    personality: str = Field(default="", max_length=_T["personality"])
    scenario: str = Field(default="", max_length=_T["scenario"])
    first_message: str = Field(default="", max_length=_T["first_message"])
    alternate_greetings: list[str] = Field(default_factory=list, max_length=MAX_GREETINGS)
    greeting: int = Field(default=0, ge=0, le=MAX_GREETINGS)
    example_dialogue: str = Field(default="", max_length=_T["example_dialogue"])
    system_prompt: str = Field(default="", max_length=_T["system_prompt"])
    post_history: str = Field(default="", max_length=_T["post_history"])
    creator_notes: str = Field(default="", max_length=_T["creator_notes"])
    tags: list[str] = Field(default_factory=list, max_length=50)
    creator: str = Field(default="", max_length=_T["creator"])
    version: str = Field(default="", max_length=_T["version"])
    nickname: str = Field(default="", max_length=_T["nickname"])
    lorebook: list[StoredEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)
    book_name: str = Field(default="", max_length=_T["entry_name"])
    scan_depth: int = Field(default=2, ge=0, le=MAX_SCAN_DEPTH)
    token_budget: int = Field(default=600, ge=50, le=MAX_TOKEN_BUDGET)
    recursive: bool = False
    portrait_png: str = Field(default="", max_length=4_000_000)  # base64
    user_name: str = Field(default="", max_length=60)

    def book(self) -> Lorebook:
        return Lorebook(tuple(e.entry() for e in self.lorebook), self.scan_depth,
                        self.token_budget, self.recursive, self.book_name)

    def greetings(self) -> list[str]:
        """The first message, then the alternate greetings (those that are set)."""
        return [g for g in [self.first_message, *self.alternate_greetings] if g]

    def portrait(self) -> bytes | None:
        return base64.b64decode(self.portrait_png) if self.portrait_png else None


@dataclass(frozen=True)
class CardImport:
    """What an import did: her name, the lorebook's size, whether a new relationship
    began (and the backup made first), and notes for the user (a portrait not kept)."""

    name: str
    entries: int
    new_relationship: bool
    backup: Path | None
    greeting: str
    notes: tuple[str, ...] = ()
    restarted: bool = False  # a new relationship on the card she already is
    lorebook_only: bool = False  # a World Info file added to her lorebook


def load_card(session: Session) -> StoredCard:
    return load_settings(session, StoredCard)


def portrait_png(image: bytes) -> bytes:
    """A PNG of at most ``PORTRAIT_SIDE`` pixels a side made from ``image``; CardError
    when it cannot be read or is larger than ``MAX_IMAGE_PIXELS`` (checked before
    decoding)."""
    from PIL import Image, UnidentifiedImageError

    if image.startswith(PNG_SIGNATURE) and image[12:16] == b"IHDR":  # sized before decoding
        width, height = struct.unpack(">II", image[16:24])
        if width * height > MAX_IMAGE_PIXELS:
            raise CardError(f"The card's image is {width}x{height} pixels; it is not kept.")
    try:
        with Image.open(io.BytesIO(image)) as picture:
            width, height = picture.size
            if width * height > MAX_IMAGE_PIXELS or max(width, height) > 20_000:
                raise CardError(f"The card's image is {width}x{height} pixels; it is not kept.")
            picture.draft("RGB", (PORTRAIT_SIDE, PORTRAIT_SIDE))
            picture.thumbnail((PORTRAIT_SIDE, PORTRAIT_SIDE))
            out = io.BytesIO()
            picture.convert("RGBA").save(out, "PNG", optimize=True)
            return out.getvalue()
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError,
            SyntaxError) as error:
        if isinstance(error, CardError):
            raise
        if isinstance(error, Image.DecompressionBombError):
            raise CardError("The card's image has too many pixels; it is not kept.") from None
        raise CardError("The card's image cannot be read; it is not kept.") from None


def _stored(card: CharacterCard, old: StoredCard, source: str, portrait: bytes | None,
            greeting: int) -> StoredCard:
    book = card.lorebook or Lorebook()
    return StoredCard(
        present=True, spec=card.spec, source_name=source[:260], description=card.description,
        personality=card.personality, scenario=card.scenario, first_message=card.first_message,
        alternate_greetings=list(card.alternate_greetings), greeting=greeting,
        example_dialogue=card.example_dialogue, system_prompt=card.system_prompt,
        post_history=card.post_history, creator_notes=card.creator_notes, tags=list(card.tags),
        creator=card.creator, version=card.version, nickname=card.nickname,
        lorebook=[StoredEntry.of(e) for e in book.entries], book_name=book.name,
        scan_depth=book.scan_depth, token_budget=book.token_budget, recursive=book.recursive,
        portrait_png=base64.b64encode(portrait).decode("ascii") if portrait else "",
        user_name=old.user_name,
    )


def _persona(card: CharacterCard) -> str:
    persona = compose_persona(card.description, card.personality, card.scenario)
    if not persona:
        raise CardError("The card has no description, personality or scenario to be her persona.")
    if len(persona) > CAPS["system_prompt"]:
        raise CardError(f"The card's description, personality and scenario are {len(persona):,} "
                        f"characters together; her persona holds at most "
                        f"{CAPS['system_prompt']:,}.")
    return persona


def start_anew(session: Session, now: datetime) -> None:
    for model in (TurnRow, SessionRow, FactRow, CompletedEventRow, CharacterRow):
        session.execute(delete(model))
    session.execute(delete(RelationshipRow))
    new_generation(session, now)


def greet(session: Session, stored: StoredCard, name: str, now: datetime) -> str:
    """Her first message of a new relationship (the chosen greeting, macros filled),
    stored as the first turn of a new session and marked as a greeting; "" when the
    card has none."""
    greetings = stored.greetings()
    if not greetings:
        return ""
    index = min(stored.greeting, len(greetings) - 1)
    hello = fill_macros(greetings[index], name, stored.user_name)
    session_id = repository.start_session(session, now)
    repository.add_turn(session, session_id, "assistant", hello, now,
                        {"greeting": True, "greeting_index": index})
    return hello


def import_card(db: Database, found: CardFile, keep_relationship: bool, now: datetime,
                source: str = "", greeting: int = 0) -> CardImport:
    """Make her the card's character (see the module), or add a World Info file's entries
    to her lorebook. ``greeting``: 0 the first message, n the n-th alternate greeting.
    Raises CardError (nothing written) or BackupError (nothing written)."""
    if found.card is None:
        return _import_lorebook(db, found.lorebook or Lorebook(), now)
    card = found.card
    persona = _persona(card)
    notes: list[str] = []
    if found.unused_assets:
        notes.append(f"The card's {found.unused_assets} other "
                     f"{'file is' if found.unused_assets == 1 else 'files are'} not used "
                     "(backgrounds, expressions): her 3D avatar stays as it is.")
    portrait = None
    if found.image:
        try:
            portrait = portrait_png(found.image)
        except CardError as error:
            notes.append(str(error))
    with db.read_session() as session:
        old = load_card(session)
    stored = _stored(card, old, source, portrait, min(greeting, len(card.alternate_greetings)))
    name = cut(card.name, NAME_CHARS)
    made = None
    if not keep_relationship:
        try:
            made = auto_backup(db.path.parent, REASON_CARD, now)
        except BackupError as error:
            raise BackupError(f"{error}. Nothing was imported: a new relationship starts only "
                              "after the current one is backed up.") from error
    hello = ""
    with db.session() as session:
        if not keep_relationship:
            start_anew(session, now)
        state = repository.load_or_create_character(session, now)
        state.name, state.system_prompt = name, persona
        repository.save_character(session, state)
        save_settings(session, stored, now)
        if not keep_relationship:
            hello = greet(session, stored, name, now)
    return CardImport(name, len(stored.lorebook), not keep_relationship,
                      made.path if made else None, hello, tuple(notes))


def _import_lorebook(db: Database, book: Lorebook, now: datetime) -> CardImport:
    """A World Info file's entries added to her lorebook (nothing else changes)."""
    with db.session() as session:
        stored = load_card(session)
        total = len(stored.lorebook) + len(book.entries)
        if total > MAX_ENTRIES:
            raise CardError(f"Her lorebook would have {total:,} entries; it holds at most "
                            f"{MAX_ENTRIES:,}.")
        stored.lorebook = [*stored.lorebook, *(StoredEntry.of(e) for e in book.entries)]
        if not stored.book_name:
            stored.book_name = book.name
        save_settings(session, stored, now)
        name = repository.load_or_create_character(session, now).name
    return CardImport(name, len(stored.lorebook), False, None, "", lorebook_only=True)


def current_card(session: Session, now: datetime) -> CharacterCard:
    """Her persona, greetings and lorebook as a card (what an export writes)."""
    state = repository.load_or_create_character(session, now)
    stored = load_card(session)
    description, personality, scenario = split_persona(state.system_prompt, stored.model_dump())
    return CharacterCard(
        name=state.name, description=description, personality=personality, scenario=scenario,
        first_message=stored.first_message, example_dialogue=stored.example_dialogue,
        system_prompt=stored.system_prompt, post_history=stored.post_history,
        creator_notes=stored.creator_notes, alternate_greetings=tuple(stored.alternate_greetings),
        tags=tuple(stored.tags), creator=stored.creator, version=stored.version,
        nickname=stored.nickname, lorebook=stored.book(), spec="V3",
    )


def card_summary(stored: StoredCard) -> dict[str, Any]:
    """What the command line prints about the saved card."""
    return {"card": stored.present, "spec": stored.spec, "greetings": len(stored.greetings()),
            "lorebookEntries": len(stored.lorebook), "tags": stored.tags}
