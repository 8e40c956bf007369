"""Her character card in one turn: the example dialogue and author's notes, the lorebook
entries this turn's messages trigger, and the name she calls the user (no Qt)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from companion_desktop.engine.card_text import CardPrompt, card_prompt, lore_layer
from companion_desktop.engine.character import CharacterState
from companion_desktop.engine.lorebook import MAX_SCAN_DEPTH, select_entries
from companion_desktop.storage.card_store import StoredCard

#: Share of the context window the lorebook entries may take, in tokens.
LORE_SHARE = 0.25


@dataclass(frozen=True)
class CardTurn:
    card: CardPrompt | None
    lore: str | None
    user_name: str | None


def card_turn(stored: StoredCard, state: CharacterState, history: Sequence[tuple[str, str]],
              text: str, context_window: int) -> CardTurn:
    """The card's parts of the prompt for the user's ``text`` after ``history`` ((role,
    content) pairs, oldest first); nothing from a card when none was imported."""
    user = stored.user_name.strip() or None
    if not stored.present and not stored.lorebook:
        return CardTurn(None, None, user)
    card = card_prompt(stored.model_dump(), state.name, user, context_window)
    messages = [content for _role, content in history[-MAX_SCAN_DEPTH:]] + [text]
    entries = select_entries(stored.book(), messages, int(context_window * LORE_SHARE),
                             time.monotonic)
    return CardTurn(card, lore_layer(entries, state.name, user), user)
