"""The companion's state over the database: one place that loads, changes and saves it.

Both the GUI and the command line go through ``CompanionService``, so opening the
state always resolves time decay first and every change is one transaction.
The clock is passed in (``now``: an aware datetime in the user's local zone).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from companion_desktop.engine.character import RELATIONSHIP_STATS, STAT_RANGES, CharacterState
from companion_desktop.engine.decay import DecayResult, resolve_time_decay_on_load
from companion_desktop.engine.familiarity import (
    Familiarity,
    relationship_card,
    relationship_info,
)
from companion_desktop.engine.modes import switch_mode
from companion_desktop.engine.state_updates import LlmSuggestion
from companion_desktop.engine.streak import days_known
from companion_desktop.engine.turn import TurnOutcome, apply_system_turn, apply_user_turn
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import RelationshipSettings, load_settings, save_settings

STAGE_NAMES = {
    "companion": "Companion",
    "stranger": "Stranger",
    "acquaintance": "Acquaintance",
    "friend": "Friend",
    "close_friend": "Close Friend",
    "romantic_interest": "Romantic Interest",
    "dating": "Dating",
    "committed": "Committed",
    "soulmate": "Soulmate",
}
MODE_NAMES = {"companion": "Companion Mode", "dating_sim": "Dating Sim Mode"}


class DataReplaced(Exception):
    """The data was replaced (a replace import) since the caller last looked: the turn
    was not saved; the runner starts a new session and saves it there."""


def check_generation(session: Session, generation: str | None) -> None:
    """Raise DataReplaced when the data's generation is no longer ``generation``."""
    from companion_desktop.storage.backup import data_generation

    if generation is not None and data_generation(session) != generation:
        raise DataReplaced("the data was replaced")


@dataclass(frozen=True)
class LoadedState:
    """The state as opened at ``now``, and what time decay did on the way."""

    state: CharacterState
    decay: DecayResult


class CompanionService:
    """Loads and changes the companion's state through one database."""

    def __init__(self, db: Database) -> None:
        self.db = db
        #: The event whose scene is playing and not yet recorded (one scene at a time:
        #: a message sent meanwhile, e.g. from the overlay, must not fire it again).
        self.playing_event: str | None = None

    def load(self, now: datetime) -> LoadedState:
        """Open the state: create it on first run, resolve time decay and days known, save
        if moved."""
        with self.db.session() as session:
            state = repo.load_or_create_character(session, now)
            decay = resolve_time_decay_on_load(state, now)
            loaded = decay.state
            known = days_known(loaded.first_met, now, loaded.days_known)
            if known != loaded.days_known:
                loaded = loaded.copy(days_known=known)
            if decay.changed or loaded is not decay.state:
                repo.save_character(session, loaded)
        return LoadedState(loaded, decay)

    def set_mode(self, mode: str, now: datetime) -> CharacterState:
        """Switch between "companion" and "dating_sim" by the spec's rules."""
        with self.db.session() as session:
            state = repo.load_or_create_character(session, now)
            state = resolve_time_decay_on_load(state, now).state
            new = switch_mode(state, mode, now)
            repo.save_character(session, new)
        return new

    def commit_user_turn(
        self,
        session_id: int | None,
        message: str,
        reply: str,
        suggestion: LlmSuggestion | None,
        now: datetime,
        also: Callable[[Session, TurnOutcome], None] | None = None,
        user_meta: dict[str, Any] | None = None,
        generation: str | None = None,
    ) -> TurnOutcome:
        """Apply a finished user turn and save it: state, familiarity, both messages
        (``user_meta`` adds keys to the user message's meta, e.g. the photo shown).

        One transaction: either all of it lands or none of it, including what
        ``also`` writes (memories, reminders). Familiarity moves only while
        relationship tracking is on. ``generation``: the data generation the caller's
        session belongs to; DataReplaced (nothing saved) when it is no longer current.
        """
        with self.db.session() as session:
            check_generation(session, generation)
            state = resolve_time_decay_on_load(
                repo.load_or_create_character(session, now), now).state
            tracking = load_settings(session, RelationshipSettings).tracking_enabled
            rel = repo.load_or_create_familiarity(session, None) if tracking else None
            turns = repo.count_session_turns(session, session_id) if session_id else 0
            outcome = apply_user_turn(
                state, message, suggestion, now, familiarity=rel, conversation_turns=turns // 2 + 1
            )
            repo.save_character(session, outcome.state)
            if outcome.familiarity is not None:
                repo.save_familiarity(session, outcome.familiarity)
            meta = {"sentiment": outcome.analysis.sentiment, "topicDepth": outcome.analysis.depth,
                    **(user_meta or {})}
            repo.add_turn(session, session_id, "user", message, now, meta)
            repo.add_turn(session, session_id, "assistant", reply, now,
                          {"stateChanges": outcome.applied})
            if also is not None:
                also(session, outcome)
        return outcome

    def commit_system_turn(
        self,
        session_id: int | None,
        event_text: str,
        reply: str,
        suggestion: LlmSuggestion | None,
        now: datetime,
        also: Callable[[Session, TurnOutcome], None] | None = None,
        generation: str | None = None,
    ) -> TurnOutcome:
        """Save a machine-generated turn: only her mood may move; the away clock stays
        (``generation`` as for :meth:`commit_user_turn`)."""
        with self.db.session() as session:
            check_generation(session, generation)
            state = repo.load_or_create_character(session, now)
            outcome = apply_system_turn(state, suggestion, now)
            repo.save_character(session, outcome.state)
            repo.add_turn(session, session_id, "system", event_text, now, {"systemEvent": True})
            repo.add_turn(session, session_id, "assistant", reply, now, {"systemEvent": True})
            if also is not None:
                also(session, outcome)
        return outcome

    def due_event(self, before: CharacterState, outcome: TurnOutcome, now: datetime, rng) -> Any:  # noqa: ANN001
        """The event to play after a Dating Sim user turn: the strain event on a real
        demotion (1-day cooldown), else the regular pool's best qualifying event."""
        from companion_desktop.engine.events import (
            ALL_EVENTS,
            STRAIN_EVENT,
            STRAIN_EVENT_ID,
            check_events,
            strain_due,
        )
        from companion_desktop.storage.events import event_history

        state = outcome.state
        if state.app_mode != "dating_sim" or self.playing_event is not None:
            return None
        with self.db.read_session() as session:
            history = event_history(session)
        if (outcome.stage is not None and outcome.stage.strain
                and strain_due(history.get(STRAIN_EVENT_ID), now)):
            event = STRAIN_EVENT
        else:
            away = None
            if before.last_interaction is not None:
                away = (now - before.last_interaction).total_seconds() / 3600
            event = check_events(ALL_EVENTS, state, now, history=history, hours_away=away, rng=rng)
        if event is not None:
            self.playing_event = event.id
        return event

    def complete_event(self, event: Any, choice: int | None, now: datetime) -> CharacterState:
        """Record a played event and the user's choice: its changes, markers and completion."""
        from companion_desktop.engine.events import apply_choice
        from companion_desktop.engine.events.outcome import apply_event_outcome

        outcome = apply_choice(event, choice)
        if self.playing_event == event.id:
            self.playing_event = None
        with self.db.session() as session:
            state = repo.load_or_create_character(session, now)
            new, _check = apply_event_outcome(state, outcome.state_changes, outcome.markers, now)
            repo.save_character(session, new)
            repo.add_completed_event(session, event.id, now, event_type=event.type,
                                     choice_index=choice, outcome=",".join(outcome.markers),
                                     state_changes=outcome.state_changes)
        return new

    def familiarity(self) -> Familiarity:
        with self.db.session() as session:
            return repo.load_or_create_familiarity(session, None)

    def tracking_enabled(self) -> bool:
        with self.db.read_session() as session:
            return load_settings(session, RelationshipSettings).tracking_enabled

    def set_tracking(self, enabled: bool) -> None:
        with self.db.session() as session:
            save_settings(session, RelationshipSettings(tracking_enabled=enabled))

    def relationship(self, now: datetime) -> dict[str, Any]:
        """The spec's ``get_relationship_info`` plus mode, and stage and stats in Dating Sim."""
        state = self.load(now).state
        info = relationship_info(self.familiarity(), now)
        info["tracking_enabled"] = self.tracking_enabled()
        info["mode"] = state.app_mode
        if state.app_mode == "dating_sim":
            info["stage"] = state.relationship_stage
            info["stats"] = {stat: getattr(state, stat) for stat in RELATIONSHIP_STATS}
        return info

    def relationship_text(self, now: datetime) -> str:
        """The relationship card, with stage and stat bars in Dating Sim Mode."""
        state = self.load(now).state
        lines = [relationship_card(self.familiarity(), now)]
        if not self.tracking_enabled():
            lines.append("(Relationship tracking is off: this card is not changing.)")
        if state.app_mode == "dating_sim":
            lines.append(f"Stage: {STAGE_NAMES[state.relationship_stage]}")
            lines.extend(stat_bar(stat, getattr(state, stat)) for stat in RELATIONSHIP_STATS)
        return "\n".join(lines)


def stat_bar(stat: str, value: int, width: int = 20) -> str:
    """``Affection  [#####...............]  250/1000``"""
    high = STAT_RANGES[stat][1]
    filled = round(width * value / high)
    return f"{stat.capitalize():<10} [{'#' * filled}{'.' * (width - filled)}] {value:>4}/{high}"
