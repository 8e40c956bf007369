"""The turn pipeline (no Qt): the spec's Interaction Flow, step by step.

user message -> state loaded (decay resolved) -> memories retrieved, prompt built
-> reply streamed -> reply parsed (extraction call if the block is missing) ->
baseline merged and state applied, memory and reminders saved, stage checked,
both turns saved (one transaction) -> result. A failed or cancelled turn raises
before anything is written, so no state moves and the user can retry.

When the data is replaced under it (a replace import, in this process or another:
the data generation changes), the runner starts a new session on the new data at
the next turn (working memory refilled, memory index reloaded); a turn whose save
meets the replace is saved into that new session.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from companion_desktop.engine.avatar_layer import avatar_layer
from companion_desktop.engine.being_shown import being_shown_layer
from companion_desktop.engine.character import CharacterState
from companion_desktop.engine.context_window import memory_budget, retrieval_turns, truncate_history
from companion_desktop.engine.familiarity import Familiarity, prompt_modifier
from companion_desktop.engine.lorebook import MAX_SCAN_DEPTH
from companion_desktop.engine.parse import ParsedReply, parse_response
from companion_desktop.engine.prompt import (
    PromptContext,
    block_fields,
    build_extraction_prompt,
    build_system_prompt,
)
from companion_desktop.engine.prompt_cached import build_cached_prompt
from companion_desktop.engine.reminder_phrases import natural_reminder
from companion_desktop.engine.screen_look import asked_to_remember, screen_layer
from companion_desktop.engine.session_summary import summarize_session
from companion_desktop.engine.speech import SpokenPart, speech_output_layer, split_speech
from companion_desktop.engine.state_updates import LlmSuggestion, sanitize_suggestion
from companion_desktop.engine.turn import TurnOutcome
from companion_desktop.llm.base import (
    CancelToken,
    ChatMessage,
    ImagePart,
    LlmError,
    Provider,
    capped_reply,
)
from companion_desktop.pipeline.card_turn import card_turn
from companion_desktop.pipeline.companion import CompanionService, DataReplaced
from companion_desktop.pipeline.images import PreparedImage
from companion_desktop.pipeline.memory import (
    SCREEN_MARK,
    MemoryHooks,
    SimpleMemory,
    WorkingMemory,
)
from companion_desktop.pipeline.moments import MomentGenerator
from companion_desktop.pipeline.reminders import describe_delay
from companion_desktop.pipeline.tools import security_layer
from companion_desktop.pipeline.turn_parts import (  # noqa: F401 - re-exported for the views
    EVENT_NUDGE,
    PHASE_REMEMBERING,
    PHASE_SEEING,
    PHASE_THINKING,
    SHOW_ONLY_TEXT,
    NullHooks,
    PreparedTurn,
    StreamedReply,
    TurnHooks,
    TurnResult,
    check_vision,
    keep_photo,
    note_from,
    tags_they_asked_for,
    tool_reply,
    wake_mind,
    with_their_time,
    without_window_echo,
)
from companion_desktop.storage import keepsakes as keepsake_store
from companion_desktop.storage import reminders as reminder_store
from companion_desktop.storage import repository as repo
from companion_desktop.storage import sessions as session_store
from companion_desktop.storage.backup import data_generation
from companion_desktop.storage.card_store import load_card
from companion_desktop.storage.keepsakes import Keepsake
from companion_desktop.storage.settings import (
    LlmSettings,
    RelationshipSettings,
    VoiceSettings,
    load_settings,
)


def summarize_past_sessions(session: Session, exclude: int | None = None) -> int:
    """Sessions without a summary get one from their most frequent topic words (no model)."""
    count = 0
    for session_id in session_store.unsummarized_sessions(session, exclude):
        summary, topics = summarize_session(session_store.session_turns(session, session_id))
        session_store.set_summary(session, session_id, summary or "A short chat.", topics)
        count += 1
    return count


class TurnRunner:
    """Runs turns for one app session against one provider."""

    def __init__(
        self,
        service: CompanionService,
        provider: Provider,
        clock: Callable[[], datetime],
        memory: MemoryHooks | None = None,
        animations: Callable[[], list[tuple[str, str]]] | None = None,
        tools: Callable[[], Any] | None = None,
    ) -> None:
        self.tools = tools  # the MCP tools on offer this turn (None: no active server)
        self.service = service
        self.provider = provider
        self.clock = clock
        self.memory = memory or SimpleMemory()
        self.animations = animations  # enabled (id, description) pairs for the <avatar> layer
        self.window_layer: Callable[[], str | None] | None = None  # <active_window>, per turn
        self.rng = random.Random()  # event chance conditions
        self.moments = MomentGenerator(service.db)  # written scenes, cached for this session
        self.working = WorkingMemory()
        self._start_session(clock())

    def _start_session(self, now: datetime) -> None:
        """A new session record on the data as it is now, and working memory from it."""
        with self.service.db.session() as session:
            summarize_past_sessions(session)
            self.session_id = repo.start_session(session, now)
            self.generation = data_generation(session)
            self.working.refill(repo.recent_turns(session, WorkingMemory.CAPACITY))
        self.session_started = now

    def follow_replace(self) -> bool:
        """When the data was replaced since this session started, start a new session on
        the new data, reload the memory index and forget cached scenes. True if so."""
        with self.service.db.read_session() as session:
            if data_generation(session) == self.generation:
                return False
        self._start_session(self.clock())
        self.moments = MomentGenerator(self.service.db)
        self.service.playing_event = None
        reload = getattr(self.memory, "reload", None)
        if callable(reload):
            reload()
        return True

    def _saved(self, commit: Callable[[], TurnOutcome]) -> TurnOutcome:
        """Run ``commit``; when a replace came in meanwhile, again in the new session."""
        try:
            return commit()
        except DataReplaced:
            self.follow_replace()
            return commit()

    def close(self) -> None:
        """End this app run's session record (none to end when a replace removed it)."""
        with self.service.db.session() as session:
            if data_generation(session) != self.generation:
                return
            try:
                repo.end_session(session, self.session_id, self.clock())
            except KeyError:
                return

    def run(self, text: str, hooks: TurnHooks | None = None, cancel: CancelToken | None = None,
            image: PreparedImage | None = None) -> TurnResult:
        """One user turn; raises LlmError (nothing saved) when the model call fails.

        ``image``: a photo the user shows her with this message (already prepared):
        refused with VisionUnavailableError before anything happens when the model
        cannot see images; otherwise sent once, and kept as a keepsake with the turn.
        """
        hooks = hooks or NullHooks()
        self.follow_replace()
        text = text if text.strip() or image is None else SHOW_ONLY_TEXT
        if image is not None:
            check_vision(self.provider)
        now = self.clock()
        hooks.set_phase(PHASE_REMEMBERING)
        state = self.service.load(now).state
        turn = self._prompt(state, text, now, image=image)
        hooks.set_phase(PHASE_SEEING if image is not None else PHASE_THINKING)
        images = (image.part(),) if image is not None else ()
        raw, calls = self._reply(turn, text, images, state.name, hooks, cancel)
        parsed = parse_response(raw, companion_name=state.name)
        parsed = tags_they_asked_for(self.provider, parsed, text)
        suggestion, extracted = self._suggestion(parsed, text, state, cancel)
        suggestion = without_window_echo(suggestion, turn.window, text)
        if image is not None and image.screen is not None and not asked_to_remember(text):
            suggestion = replace(suggestion, new_memory=None, shared_reference=None)  # untrusted
        shown, speech = self._speech(parsed.text, turn.speech)
        reminders: list[dict[str, Any]] = []
        after_commit: list[Callable[[], None]] = []
        kept: list[Keepsake] = []

        def also(session: Session, outcome: TurnOutcome) -> None:
            memory = outcome.updates.new_memory
            done = self.memory.remember(session, memory, text, shown, now, turn.recall.ids)
            if done is not None:
                after_commit.append(done)
            asked = natural_reminder(text, now.astimezone())  # their words, in local time
            reminders.extend(self._store_reminders(session, with_their_time(parsed, asked),
                                                   now))
            if not parsed.reminders and asked is not None:  # "remind me at 6pm" with no tag
                parsed_fallback = ParsedReply(parsed.text, None, parsed.suggestion, False,
                                              (asked,))
                reminders.extend(self._store_reminders(session, parsed_fallback, now))
            if image is not None and image.keep:
                kept.append(keep_photo(session, self.service.db.path.parent, image,
                                       memory or note_from(shown), now))

        meta = {"image": {"name": image.source_name}} if image is not None else None
        if image is not None and image.screen is not None:
            meta = {"image": {"name": image.source_name, "screen": image.screen}}
        outcome = self._saved(lambda: self.service.commit_user_turn(
            self.session_id, text, shown, suggestion, now, also, user_meta=meta,
            generation=self.generation))
        for done in after_commit:
            done()
        event = self.service.due_event(state, outcome, now, self.rng)
        if event is not None:
            recent = [c for role, c in self.working.last(WorkingMemory.CAPACITY) if role == "user"]
            event = self.moments.personalize(event, self.provider, outcome.state,
                                             [*recent[-3:], text], now, cancel=cancel)
        if image is not None and image.screen is not None:
            said = "" if text == SHOW_ONLY_TEXT else text
            self.working.add("user", f"{SCREEN_MARK} {said}".rstrip())
        else:
            self.working.add("user", f"{SHOW_ONLY_TEXT} {text}"
                             if image is not None and text != SHOW_ONLY_TEXT else text)
        self.working.add("assistant", shown)
        hooks.on_text(shown)
        return TurnResult(
            reply=shown,
            state=outcome.state,
            applied=outcome.applied,
            stage=outcome.state.relationship_stage,
            stage_changed=bool(outcome.stage and outcome.stage.changed),
            strain=bool(outcome.stage and outcome.stage.strain),
            mood=outcome.state.mood,
            suggestion=suggestion,
            used_extraction=extracted,
            reminders=reminders,
            new_memory=outcome.updates.new_memory,
            events=[{"id": event.id, "name": event.name, "type": event.type}] if event else [],
            event=event,
            speech=speech,
            keepsake=kept[0] if kept else None,
            tool_calls=calls,
        )

    def _speech(self, visible: str, speech_on: bool) -> tuple[str, list[SpokenPart]]:
        """The text to show and save, and what to say aloud (nothing when voice is off)."""
        shown, parts = split_speech(visible)
        return shown, (parts if speech_on else [])

    def run_system_event(self, event_text: str, hooks: TurnHooks | None = None,
                         cancel: CancelToken | None = None,
                         also: Callable[[Session], None] | None = None,
                         image: PreparedImage | None = None) -> TurnResult:
        """A machine-generated turn (a fired reminder): ``event_text`` enters through the
        <event> layer, not as a user turn. Her reply is parsed and may schedule more
        reminders; only her mood may move (no stats, counters, streak, familiarity, facts
        or away clock). Raises LlmError with nothing saved when the model call fails.
        ``also(session)`` runs inside the transaction that stores the turn (a fired
        reminder marks itself executed there); if it raises, nothing is stored.
        ``image``: a screen picture she glanced at (sent once, never kept)."""
        hooks = hooks or NullHooks()
        self.follow_replace()
        if image is not None:
            check_vision(self.provider)
        now = self.clock()
        state = self.service.load(now).state
        turn = self._prompt(state, event_text, now, event=event_text, image=image)
        hooks.set_phase(PHASE_THINKING)
        images = (image.part(),) if image is not None else ()
        raw, _calls = self._reply(turn, EVENT_NUDGE, images, state.name, hooks, cancel)
        parsed = parse_response(raw, companion_name=state.name)
        shown, speech = self._speech(parsed.text, turn.speech)
        reminders: list[dict[str, Any]] = []

        def within(session: Session, outcome: TurnOutcome) -> None:
            if also is not None:
                also(session)
            reminders.extend(self._store_reminders(session, parsed, now))

        outcome = self._saved(lambda: self.service.commit_system_turn(
            self.session_id, event_text, shown, parsed.suggestion, now, within,
            generation=self.generation))
        self.working.add("assistant", shown)
        hooks.on_text(shown)
        return TurnResult(
            reply=shown, state=outcome.state, applied=outcome.applied,
            stage=outcome.state.relationship_stage, stage_changed=False, strain=False,
            mood=outcome.state.mood, suggestion=parsed.suggestion, used_extraction=False,
            reminders=reminders, speech=speech,
        )

    def _store_reminders(self, session: Session, parsed: ParsedReply,
                         now: datetime) -> list[dict[str, Any]]:
        stored = []
        for request in parsed.reminders:
            record = reminder_store.add_reminder(
                session, now + timedelta(seconds=request.seconds), request.text, now,
                self.session_id
            )
            stored.append({"id": record.id, "text": record.content,
                           "triggerAt": record.trigger_at.isoformat()})
        return stored

    def _prompt(self, state: CharacterState, text: str, now: datetime, event: str | None = None,
                image: PreparedImage | None = None) -> PreparedTurn:
        with self.service.db.read_session() as session:
            settings = self._llm_settings(load_settings(session, LlmSettings))
            tracking = load_settings(session, RelationshipSettings).tracking_enabled
            voice = load_settings(session, VoiceSettings)
            rel = (repo.load_familiarity(session) or Familiarity()) if tracking else None
            budget = memory_budget(settings.context_window, settings.context_scaling)
            recall = self.memory.retrieve(session, text, budget.facts, state, now)
            pending = reminder_store.pending_reminders(session)
            photos = keepsake_store.keepsake_count(session) if image is not None else 0
            card = card_turn(load_card(session), state, self.working.last(MAX_SCAN_DEPTH),
                             text, settings.context_window)
        next_reminder = None
        if pending:
            seconds = max(0.0, (pending[0].trigger_at - now).total_seconds())
            next_reminder = f"{describe_delay(seconds)}: {pending[0].content}"
        toolset = self.tools() if self.tools is not None else None
        layers = {
            "character_lore": card.lore,
            "active_window": self.window_layer() if self.window_layer is not None else None,
            "being_shown": (being_shown_layer(image.source_name, photos)
                            if image is not None and image.screen is None else
                            screen_layer(image.screen, glance=event is not None)
                            if image is not None and image.screen is not None else None),
            "event": event,
            "speech_output_control": speech_output_layer(voice.voice) if voice.enabled else None,
            "avatar": avatar_layer(self.animations()) if self.animations is not None else None,
            "mcp_tool_security": security_layer() if toolset is not None else None,
        }
        layers = {name: body for name, body in layers.items() if body}
        context = PromptContext(
            state=state,
            now=now,
            session_started=self.session_started,
            familiarity_modifier=prompt_modifier(rel) if rel is not None else None,
            relevant_facts=tuple(recall.facts),
            triggered_memories=tuple(recall.triggered),
            last_session_summary=recall.last_session_summary,
            next_reminder=next_reminder,
            optional_layers=layers,
            animations_enabled="avatar" in layers,
            user_name=card.user_name,
            card=card.card,
        )
        preface = ""
        if getattr(self.provider, "prompt_layout", "spec") == "cache":
            system, preface = build_cached_prompt(context)
        else:
            system = build_system_prompt(context)
        retrieved = self.working.last(retrieval_turns(settings.context_window,
                                                      settings.context_scaling))
        history = retrieved[-budget.turns:]
        said = f"{preface}\n\n{text}" if preface else text
        history = truncate_history(system, history, said, settings.context_window)
        block = tuple(block_fields(state.app_mode, "avatar" in layers))
        return PreparedTurn(system, history, settings, recall, voice.enabled, toolset,
                            layers.get("active_window"), preface, block, state.mood)

    def _llm_settings(self, settings: LlmSettings) -> LlmSettings:
        """The saved settings, with the context window of a provider that knows its own
        (her own mind runs with a fixed one): memory and history are sized to it."""
        window = getattr(self.provider, "context_window", None)
        if isinstance(window, int) and window > 0:
            return settings.model_copy(update={"context_window": max(1024, window)})
        return settings

    def _reply(
        self, turn: PreparedTurn, text: str, images: tuple[ImagePart, ...], name: str,
        hooks: TurnHooks, cancel: CancelToken | None,
    ) -> tuple[str, list[dict[str, Any]]]:
        """Her raw reply (streamed to ``hooks``), through MCP tool rounds when tools are
        active; also the calls made, as JSON-able records."""
        messages = [ChatMessage(role, content) for role, content in turn.history]  # type: ignore[arg-type]
        prepare = getattr(self.provider, "prepare_turn", None)
        said = text if prepare is not None else turn.user_text(text)
        messages.append(ChatMessage("user", said, images=images))
        wake_mind(self.provider, hooks, cancel)
        if prepare is not None:  # her own mind: this turn's context, and the block's grammar
            prepare(turn.preface, list(turn.block) if turn.tools is None else None)

        view = StreamedReply(hooks, turn, name)  # shown, and spoken a sentence at a time
        seen = 0

        def show(raw: str) -> None:  # the tool rounds' reply so far; it only grows
            nonlocal seen
            piece, seen = raw[seen:], len(raw)
            view.add(piece)

        if turn.tools is not None:
            return tool_reply(self.provider, turn, messages, show, hooks, cancel)
        pieces: list[str] = []
        for chunk in capped_reply(self.provider.stream_chat(turn.system, messages, cancel)):
            pieces.append(chunk)
            view.add(chunk)
        return "".join(pieces), []

    def _suggestion(
        self, parsed: ParsedReply, text: str, state: CharacterState, cancel: CancelToken | None
    ) -> tuple[LlmSuggestion, bool]:
        """The block's suggestion, or the extraction call's, or none (heuristics carry)."""
        if parsed.has_block:
            return parsed.suggestion, False
        system, user = build_extraction_prompt(text, parsed.text, state.app_mode)
        try:
            block = self.provider.complete_json(system, [ChatMessage("user", user)], cancel)
        except LlmError:
            if cancel is not None and cancel.cancelled:
                raise
            return LlmSuggestion(), True
        return sanitize_suggestion(block), True
