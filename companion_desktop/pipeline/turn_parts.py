"""The parts of a turn the runner passes around: phases, hooks, the prepared prompt,
the result, and the photo, tool and window-echo steps of a turn (no Qt)."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from sqlalchemy.orm import Session

from companion_desktop.engine.character import CharacterState, MoodState
from companion_desktop.engine.parse import ParsedReply, ReminderRequest
from companion_desktop.engine.reminder_phrases import DEFAULT_TEXT, asks_for_reminder
from companion_desktop.engine.speech import SpokenPart
from companion_desktop.engine.speech_stream import SpeechStream
from companion_desktop.engine.state_updates import LlmSuggestion
from companion_desktop.engine.stream_text import StreamText
from companion_desktop.engine.window_context import echoes_window
from companion_desktop.llm.base import CancelToken, ChatMessage, Provider, ToolCall
from companion_desktop.llm.vision import VisionUnavailableError, can_show_images, vision_refusal
from companion_desktop.pipeline.images import PreparedImage
from companion_desktop.pipeline.memory import PHOTO_MARK, Recall
from companion_desktop.pipeline.tools import run_tool_rounds
from companion_desktop.storage import keepsakes as keepsake_store
from companion_desktop.storage import repository as repo
from companion_desktop.storage.keepsakes import Keepsake
from companion_desktop.storage.settings import LlmSettings

log = logging.getLogger(__name__)

PHASE_REMEMBERING = "remembering"
PHASE_SEEING = "seeing"
PHASE_THINKING = "thinking"
#: Her own mind is starting (the first turn, or after an idle time).
PHASE_WAKING = "waking"
#: Her own mind's model is joined from its packages (first use): "preparing:NN" (percent).
PHASE_PREPARING = "preparing"
#: The user-role line sent with a system event (the providers need one); never saved.
EVENT_NUDGE = "(The app: an event happened; see <event>. Speak to them about it now.)"
#: The message text of a photo shown without words.
SHOW_ONLY_TEXT = PHOTO_MARK
#: The longest keepsake note taken from her reply when she wrote no memory.
NOTE_CHARS = 200


class TurnHooks(Protocol):
    """Progress of one turn, for whichever view shows it."""

    def set_phase(self, phase: str) -> None: ...

    def on_text(self, visible: str) -> None:
        """The whole visible reply so far (JSON block and reasoning hidden)."""
        ...


class NullHooks:
    def set_phase(self, phase: str) -> None:
        pass

    def on_text(self, visible: str) -> None:
        pass


# Hooks may also offer ``approve(ApprovalRequest) -> bool`` (asked before a tool marked
# "ask before running"; absent = declined), ``on_tool(label, status)`` (tool progress) and
# ``on_speech(parts, mood)`` (with voice on: each finished sentence of her reply while it
# streams, ``engine.speech_stream``, with her mood when the turn began).


@dataclass(frozen=True)
class TurnResult:
    """What one finished turn produced (all numbers already bounded and applied)."""

    reply: str
    state: CharacterState
    applied: dict[str, int]
    stage: str
    stage_changed: bool
    strain: bool
    mood: MoodState
    suggestion: LlmSuggestion
    used_extraction: bool
    reminders: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    new_memory: str | None = None
    event: Any = None  # the EventDefinition to play now (engine.events), if one fired
    speech: list[SpokenPart] = field(default_factory=list)  # what to say aloud (voice on)
    keepsake: Keepsake | None = None  # the photo shown this turn, as kept
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # MCP calls made


@dataclass(frozen=True)
class PreparedTurn:
    """What the prompt step gives the model call: the system prompt, the history that
    fits, the settings read, the memories recalled, whether she speaks aloud, the
    MCP tools on offer (None when no server is active), the ``<active_window>``
    layer sent (None when none was), the context written at the head of the user's
    message (a provider with the "cache" prompt layout; "" otherwise) and the JSON
    block's fields (``engine.prompt.block_fields``); her mood as the turn began."""

    system: str
    history: list[tuple[str, str]]
    settings: LlmSettings
    recall: Recall
    speech: bool
    tools: Any = None
    window: str | None = None
    preface: str = ""
    block: tuple[tuple[str, str], ...] = ()
    mood: MoodState | None = None

    def user_text(self, text: str) -> str:
        """What the model reads as the user's message: ``text`` after the preface."""
        return f"{self.preface}\n\n{text}" if self.preface else text


class StreamedReply:
    """Her reply as it streams in: after each piece, the text to show goes to
    ``hooks.on_text`` (``StreamText``) and, with voice on and ``hooks.on_speech`` offered,
    the sentences that became final (``engine.speech_stream``) go to ``on_speech`` with
    the mood the turn began in."""

    def __init__(self, hooks: Any, turn: PreparedTurn, name: str) -> None:
        self.hooks = hooks
        self.mood = turn.mood
        self.view = StreamText(name)
        self.report = getattr(hooks, "on_speech", None) if turn.speech else None
        self.speech = SpeechStream() if self.report is not None else None

    def add(self, piece: str) -> None:
        self.hooks.on_text(self.view.feed(piece))
        if self.speech is not None and self.report is not None:
            parts = self.speech.feed(self.view.visible)
            if parts:
                self.report(parts, self.mood)


def without_window_echo(suggestion: LlmSuggestion, window: str | None, said: str) -> LlmSuggestion:
    """``suggestion`` without a ``new_memory`` or ``shared_reference`` made from the
    window line this turn carried (``engine.window_context.echoes_window``; ``said``:
    the user's message): a window title is untrusted text and never becomes a memory."""
    memory, reference = suggestion.new_memory, suggestion.shared_reference
    changes: dict[str, Any] = {}
    if memory and echoes_window(memory, window, said):
        changes["new_memory"] = None
    if reference is not None and echoes_window(reference.content, window, said):
        changes["shared_reference"] = None
    if not changes:
        return suggestion
    log.info("not saved: %s echoing the active window's title", " and ".join(changes))
    return replace(suggestion, **changes)


def note_from(reply: str) -> str:
    """Her keepsake note when she wrote no memory: the first sentence of her reply."""
    text = " ".join(reply.split())
    for end in (". ", "! ", "? ", "… "):
        cut = text.find(end)
        if 0 < cut < NOTE_CHARS:
            return text[: cut + 1]
    return text if len(text) <= NOTE_CHARS else text[: NOTE_CHARS - 1].rstrip() + "…"


def check_vision(provider: Provider) -> None:
    """VisionUnavailableError (with what to switch to) unless the model sees photos."""
    config = provider.config
    if not can_show_images(config.provider_id, config.model):
        raise VisionUnavailableError(vision_refusal(config.provider_id, config.model))


def keep_photo(session: Session, data_dir: Any, image: PreparedImage, note: str,
               now: datetime) -> Keepsake:
    """The shown photo kept with her note, tied to the user message just stored."""
    return keepsake_store.add_keepsake(
        session, data_dir, image=image.data, thumbnail=image.thumbnail,
        mime_type=image.mime_type, width=image.width, height=image.height, note=note,
        turn_id=repo.last_turn_id(session, "user"), created_at=now,
    )


def tool_reply(
    provider: Provider, turn: PreparedTurn, messages: list[ChatMessage],
    show: Callable[[str], None], hooks: Any, cancel: CancelToken | None,
) -> tuple[str, list[dict[str, Any]]]:
    """Her raw reply through MCP tool rounds (limits and truncation in pipeline.tools),
    and the calls made as JSON-able records. ``hooks`` may offer ``approve`` and
    ``on_tool(label, status)``."""
    toolbox = turn.tools.toolbox
    report = getattr(hooks, "on_tool", None)

    def on_tool(call: ToolCall, status: str) -> None:
        if report is not None:
            tool = toolbox.resolve(call.name)
            report(f"{tool.name} ({tool.server})" if tool else call.name, status)

    result = run_tool_rounds(
        provider, turn.system, messages, toolbox, hub=turn.tools.hub,
        context_window=turn.settings.context_window, approve=getattr(hooks, "approve", None),
        on_text=show, on_tool=on_tool, cancel=cancel,
    )
    calls = [{"tool": call.name, "arguments": call.arguments, "error": outcome.is_error,
              "result": outcome.content[:500]} for call, outcome in result.calls]
    return result.text, calls


def wake_mind(provider: Provider, hooks: TurnHooks, cancel: CancelToken | None) -> None:
    """Her own mind starts before its first reply (and after an idle time): the turn's
    phase says "Waking her mind…" meanwhile."""
    wake = getattr(provider, "wake", None)
    if wake is None or getattr(provider, "awake", True):
        return
    hooks.set_phase(PHASE_WAKING)
    shown = [-1]

    def progress(fraction: float, text: str) -> None:  # joining the model (first use)
        percent = int(fraction * 100)
        if fraction >= 1.0:  # joined (or nothing to join): now it loads
            if shown[0] >= 0:  # after the preparation's percentages
                shown[0] = -1
                hooks.set_phase(PHASE_WAKING)
        elif percent != shown[0]:
            shown[0] = percent
            hooks.set_phase(f"{PHASE_PREPARING}:{percent}")

    wake(cancel, progress)
    hooks.set_phase(PHASE_THINKING)


def tags_they_asked_for(provider: Provider, parsed: ParsedReply, said: str) -> ParsedReply:
    """``parsed`` without its reminder tags when ``provider`` sets reminders only when asked
    (``reminders_when_asked``: her own small mind copies a tag from earlier in the
    conversation) and ``said`` asks for none."""
    if not getattr(provider, "reminders_when_asked", False) or asks_for_reminder(said):
        return parsed
    return dataclasses.replace(parsed, reminders=())


def with_their_time(parsed: ParsedReply, asked: ReminderRequest | None) -> ParsedReply:
    """``parsed`` with its one reminder tag due when the user's own words said (``asked``):
    a small model asked for "tomorrow at 6pm" often writes the wrong delay. Its text stays
    where it shares a word with what they asked for; one that does not ("remind", the
    prompt's placeholder copied) gives way to their words. Several tags, or words that
    name no time, leave the reply as it is."""
    if asked is None or len(parsed.reminders) != 1:
        return parsed
    tag = parsed.reminders[0]
    keep_text = asked.text == DEFAULT_TEXT or _shares_a_word(tag.text, asked.text)
    text = tag.text if keep_text else asked.text
    close = abs(tag.seconds - asked.seconds) <= THEIR_TIME_SLACK_S
    seconds = tag.seconds if close else asked.seconds
    if (seconds, text) == (tag.seconds, tag.text):
        return parsed
    return dataclasses.replace(parsed, reminders=(ReminderRequest(seconds, text),))


def _shares_a_word(hers: str, theirs: str) -> bool:
    """True when the two texts share a word of three letters or more (any case)."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"\w{3,}", text.casefold()))

    return bool(words(hers) & words(theirs))


#: How far a tag's delay may be from the user's own words before their words win.
THEIR_TIME_SLACK_S = 60
