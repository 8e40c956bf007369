"""The "Built-in (offline)" provider: her own mind, over the OpenAI-style API it serves.

The mind runs in a process of its own (``host``); this provider asks the host for its
address before each call (the first call starts it) and speaks chat completions to it
like any OpenAI-compatible server, streaming included, so a stopped or failed turn
behaves as with every other provider. What it adds for a small model on a CPU:

- ``context_window``: the tokens the model runs with; the turn pipeline sizes her memory
  and history to it instead of the Settings slider.
- ``prompt_layout = "cache"``: the pipeline keeps the system message the same from turn to
  turn (``engine.prompt_cached``) and hands this turn's context (time, state, memory) to
  :meth:`prepare_turn`; it goes in a system message just before the user's.
- The conversation is sent as the runtime last read it (``Transcript``): the previous
  turns with the contexts they had and her replies as she wrote them, so the runtime's
  prompt cache covers all of it and only the new context and message are read. A
  context says only what the earlier ones in the transcript did not
  (``engine.prompt_cached.only_new``): the time, and her state, memories or hints where
  they changed.
- :meth:`prepare_turn` also holds the reply to a grammar of her words and then the JSON
  block (``grammar``), so it always parses; a call with tools on offer is not held.
- :meth:`wake`: start the mind now (the pipeline says "Waking her mind…" meanwhile).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from companion_desktop.engine.context_window import REPLY_RESERVE, estimate_tokens
from companion_desktop.engine.prompt_cached import note_lines, only_new
from companion_desktop.llm.base import (
    CancelToken,
    ChatMessage,
    ConfigError,
    ProviderConfig,
    ToolCall,
    ToolSpec,
)
from companion_desktop.llm.content import openai_messages
from companion_desktop.llm.mind.grammar import block_grammar
from companion_desktop.llm.mind.host import HOST, MindHost
from companion_desktop.llm.mind.models import (
    MindModel,
    Progress,
    choose,
    installed_models,
    record_speed,
    runtime_problem,
)
from companion_desktop.llm.openai_compat import OpenAICompatProvider

NAME = "Built-in (offline)"
#: The longest wait for a first piece of the reply, in seconds: a slow CPU reading a long
#: prompt is silent for a while.
STALL_S = 180.0
#: llama.cpp's penalty on repeating the last tokens: a small model otherwise loops.
REPEAT_PENALTY = 1.1
#: The token estimate (a quarter of the characters) can fall short of the model's own
#: count; a transcript is followed only while the estimate with this margin fits.
ESTIMATE_MARGIN = 1.25
#: After each reply, her mind reads it back as the next request will send it (a request
#: for one token), while the user reads and types: the tokens it wrote under the grammar
#: are not always the ones its text reads as, so the prompt cache would otherwise end
#: where they part and the next turn would read her reply again. Measured with the 1.5B
#: model: a second turn read 127 prompt tokens without this, 37 with it.
READ_BACK_TIMEOUT_S = 120.0
#: The streamed pieces a reply needs before its speed is recorded (Settings shows it).
SPEED_PIECES = 20
Wire = list[dict[str, Any]]


@dataclass
class Transcript:
    """The last request as sent: the system message, the plain messages it carried (the
    user's last), the wire made of them, and the reply the model wrote to it (empty until
    it is complete)."""

    system: str = ""
    sent: list[tuple[str, str]] = field(default_factory=list)
    wire: Wire = field(default_factory=list)
    reply: str = ""

    def follows(self, system: str, plain: list[tuple[str, str]]) -> bool:
        """True when ``plain`` ends with the messages sent last time, then her reply and
        one new message of theirs (the conversation went on from here)."""
        n = len(self.sent)
        return (bool(self.reply) and system == self.system and len(plain) >= n + 2
                and plain[len(plain) - n - 2:-2] == self.sent and plain[-2][0] == "assistant"
                and plain[-1][0] == "user")


def fresh_history(history: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The part of ``history`` a new transcript starts from: the newest half (whole
    exchanges, at least the last one), so the next turns follow it for a while before
    the pipeline's window slides again."""
    keep = max(2, len(history) // 2 // 2 * 2)
    kept = history[-keep:]
    while kept and kept[0][0] != "user" and len(kept) < len(history):
        kept = history[-(len(kept) + 1):]
    return kept


class BuiltinProvider(OpenAICompatProvider):
    """Her own mind (see the module). ``host`` runs it (the app's one by default)."""

    kind = "builtin"
    prompt_layout = "cache"
    #: A small model copies a reminder tag from earlier in the conversation: her tags
    #: count only on a turn where the user asks to be reminded (the pipeline checks).
    reminders_when_asked = True

    def __init__(self, config: ProviderConfig, client: httpx.Client | None = None,
                 host: MindHost = HOST) -> None:
        problem = runtime_problem()  # else the mind's start fails with an import error
        if problem:
            raise ConfigError(problem)
        self.model: MindModel = choose(config.model or None)
        config = replace(config, model=self.model.id, api_key=None,
                         stall_timeout=max(config.stall_timeout, STALL_S))
        super().__init__(config, client or _loopback_client(config), NAME)
        self.host = host
        self.transcript = Transcript()
        self._context = ""
        self._grammar: str | None = None
        #: The last reply's read back (``_read_back``), while it runs or after.
        self.reading_back: threading.Thread | None = None

    @property
    def context_window(self) -> int:
        return self.model.context

    @property
    def awake(self) -> bool:
        running = self.host.running
        return running is not None and running.model.id == self.model.id

    def prepare_turn(self, context: str, fields: list[tuple[str, str]] | None) -> None:
        """This turn's ``context`` (a system message before the user's) and, with
        ``fields``, the block her reply must end with (None: free text)."""
        self._context = context
        self._grammar = block_grammar(fields) if fields else None

    def wake(self, cancel: CancelToken | None = None, progress: Progress | None = None) -> None:
        """Start her mind now (nothing when it runs already)."""
        with self.host.use(self.model, progress, cancel) as running:
            self._point_at(running.url)

    def _point_at(self, url: str) -> None:
        self.config = replace(self.config, base_url=f"{url}/v1")

    # ------------------------------------------------------------------ requests
    def chat_body(self, system: str, messages: list[ChatMessage], stream: bool,
                  tools: list[ToolSpec] | None = None) -> dict[str, Any]:
        body = super().chat_body(system, messages, stream, tools)
        body["cache_prompt"] = True
        body["repeat_penalty"] = REPEAT_PENALTY
        if stream and not tools:
            body["messages"] = self._wire(system, messages)
            if self._grammar:
                body["grammar"] = self._grammar
        return body

    def _wire(self, system: str, messages: list[ChatMessage]) -> Wire:
        """The conversation as the runtime reads it (see ``Transcript``), remembered. It
        follows the last request while that fits the model's context; otherwise (the
        pipeline's window slid, a new conversation, a changed system message) it starts
        afresh from the newest half of the history: the system message stays cached."""
        plain: list[tuple[str, str]] = [(str(m.role), m.content) for m in messages]
        context = [{"role": "system", "content": self._context}] if self._context else []
        last = self.transcript
        if last.follows(system, plain):
            said = [note_lines(m["content"]) for m in last.wire[1:]
                    if m.get("role") == "system" and isinstance(m.get("content"), str)]
            new = only_new(self._context, set().union(*said)) if self._context else ""
            context = [{"role": "system", "content": new}] if new else []
            wire = [*last.wire, {"role": "assistant", "content": last.reply}, *context,
                    {"role": "user", "content": plain[-1][1]}]
            if _tokens(wire) * ESTIMATE_MARGIN <= self.model.context - REPLY_RESERVE:
                self.transcript = Transcript(system, [*last.sent, *plain[-2:]], wire)
                return wire
        kept = len(fresh_history(plain[:-1])) + 1
        wire = openai_messages(system, messages[-kept:])
        wire[-1:-1] = context
        self.transcript = Transcript(system, plain[-kept:], wire)
        return wire

    def stream_round(self, system: str, messages: list[ChatMessage], tools: list[ToolSpec],
                     cancel: CancelToken | None = None) -> Iterator[str | ToolCall]:
        grammar, context = self._grammar, self._context
        self._grammar, self._context = None, ""  # for this call only
        with self.host.use(self.model, cancel=cancel) as running:
            self._point_at(running.url)
            self._grammar, self._context = grammar, context
            try:
                body = self._post(self.chat_body(system, messages, stream=True, tools=tools),
                                  cancel)
            finally:
                self._grammar, self._context = None, ""
            pieces: list[str] = []
            times: list[float] = []
            with body:
                for piece in self._read_round(body, cancel):
                    if isinstance(piece, str):
                        pieces.append(piece)
                        times.append(time.monotonic())
                    yield piece
            if not tools:
                self.transcript.reply = "".join(pieces)  # complete: the next turn follows it
                self._read_back()
            if len(times) >= SPEED_PIECES and self.host.cache_dir is not None:
                # llama.cpp streams a token a piece: the pieces after the first, a second
                record_speed(self.host.cache_dir, self.model,
                             (len(times) - 1) / max(1e-3, times[-1] - times[0]))

    def _read_back(self) -> None:
        """Let her mind read her reply back, as the next request will send it, while they
        read it and type (see READ_BACK_TIMEOUT_S); in the background, never waited for."""
        wire = [*self.transcript.wire, {"role": "assistant", "content": self.transcript.reply}]
        if _tokens(wire) * ESTIMATE_MARGIN > self.model.context - REPLY_RESERVE:
            return  # the next request starts afresh anyway
        body = {"model": self.model.id, "messages": wire, "max_tokens": 1, "stream": False,
                "cache_prompt": True}
        url = f"{self.config.base_url.rstrip('/')}/chat/completions"
        self.reading_back = threading.Thread(target=self._post_back, args=(url, body),
                                             daemon=True, name="mind-read-back")
        self.reading_back.start()

    def _post_back(self, url: str, body: dict[str, Any]) -> None:
        with self.host.held(self.model) as running:
            if running is None or not url.startswith(running.url):
                return  # she went to sleep meanwhile: nothing to prepare
            try:
                self.client.post(url, json=body, timeout=READ_BACK_TIMEOUT_S).close()
            except (httpx.HTTPError, RuntimeError):  # RuntimeError: the client was closed
                pass  # only a head start for the next turn

    def complete_json(self, system: str, messages: list[ChatMessage],
                      cancel: CancelToken | None = None) -> dict[str, Any]:
        with self.host.use(self.model, cancel=cancel) as running:
            self._point_at(running.url)
            return super().complete_json(system, messages, cancel)

    def list_models(self) -> list[str]:
        return [m.id for m in installed_models()]

    def test_connection(self) -> str:
        with self.host.use(self.model) as running:
            return (f"{NAME}: {self.model.name} is awake on this computer (ready in "
                    f"{running.load_s:.1f} s, {running.context} tokens of context).")


def _tokens(wire: Wire) -> int:
    """Estimated tokens of a request's messages (text parts; a few for each header)."""
    total = 0
    for message in wire:
        content = message.get("content")
        text = content if isinstance(content, str) else " ".join(
            str(part.get("text", "")) for part in content or [] if isinstance(part, dict))
        total += estimate_tokens(text) + 4
    return total


def _loopback_client(config: ProviderConfig) -> httpx.Client:
    """A client for a server on this machine: no proxies, never a redirect."""
    timeout = httpx.Timeout(connect=config.connect_timeout, read=config.stall_timeout,
                            write=config.stall_timeout, pool=config.connect_timeout)
    return httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False)
