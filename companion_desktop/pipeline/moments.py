"""The moment generator: asks the chat model to write a fired event's scene.

The built-in scene plays when Settings > Display > Personalized moments is off, no
provider is ready, the request takes longer than 15 seconds, or the output fails
validation, and at once when the turn is stopped or the app quits (the turn's cancel
token). A written scene is cached per event for the session, so an event that
comes back does not call the model again; failures are not cached.
"""

from __future__ import annotations

import threading
from datetime import datetime

from companion_desktop.engine.character import CharacterState
from companion_desktop.engine.events.model import EventDefinition
from companion_desktop.engine.moments import (
    TIMEOUT_S,
    apply_written_scene,
    moment_prompt,
    pick_memories,
)
from companion_desktop.llm.base import CancelToken, ChatMessage, LlmError, Provider
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import DisplaySettings, load_settings


class MomentGenerator:
    """One per app session (the cache lives as long as the session)."""

    def __init__(self, db: Database, timeout_s: float = TIMEOUT_S) -> None:
        self.db = db
        self.timeout_s = timeout_s
        self.cache: dict[str, EventDefinition] = {}

    def personalize(self, event: EventDefinition, provider: Provider | None, state: CharacterState,
                    recent_user_messages: list[str], now: datetime,
                    cancel: CancelToken | None = None) -> EventDefinition:
        """The event with its scene written for this moment, or the event as built
        (also as soon as ``cancel`` is set: the turn is already saved by then)."""
        if event.scene is None or provider is None or (cancel is not None and cancel.cancelled):
            return event
        if event.id in self.cache:
            return self.cache[event.id]
        with self.db.read_session() as session:
            if not load_settings(session, DisplaySettings).personalized_moments:
                return event
            facts = [(f.content, f.category, f.importance) for f in repo.list_facts(session)]
        system, user = moment_prompt(
            event, name=state.name, persona=state.system_prompt, mode=state.app_mode,
            stage=state.relationship_stage, mood=state.mood.primary, days_known=state.days_known,
            conversations=state.total_interactions, memories=pick_memories(facts),
            recent_messages=recent_user_messages,
        )
        written = self._ask(provider, system, user, cancel)
        moment = apply_written_scene(event, written) if written is not None else None
        if moment is None:
            return event  # failures are not cached: the next time may work
        self.cache[event.id] = moment
        return moment

    def _ask(self, provider: Provider, system: str, user: str,
             turn_cancel: CancelToken | None = None) -> dict | None:
        """complete_json with a hard time limit (a Stop-style cancel after ``timeout_s``,
        or as soon as ``turn_cancel`` is set)."""
        cancel = _Linked(turn_cancel)
        timer = threading.Timer(self.timeout_s, cancel.cancel)
        timer.daemon = True
        timer.start()
        try:
            result = provider.complete_json(system, [ChatMessage("user", user)], cancel)
        except LlmError:
            return None
        finally:
            timer.cancel()
        return result if isinstance(result, dict) and not cancel.cancelled else None


class _Linked(CancelToken):
    """A token that is cancelled on its own or when ``parent`` is."""

    def __init__(self, parent: CancelToken | None) -> None:
        super().__init__()
        self.parent = parent

    @property
    def cancelled(self) -> bool:
        return super().cancelled or (self.parent is not None and self.parent.cancelled)
