"""Her own mind on this computer (``companion-desktop bench --only mind``): figures only.

Reproduce: ``companion-desktop bench --only mind`` (``--mind-model smollm2-135m`` for the
small test model; the default is the preferred installed one, Qwen2.5 1.5B where its
packages are installed). The beside-her part needs a display: ``scripts/run.sh bench --only
mind`` starts a virtual one where there is none. Nothing here passes or fails.

What runs: the real turn pipeline in this process (``CompanionService`` and ``TurnRunner`` on
a fresh data folder in a temporary directory) with the Built-in (offline) provider, whose
mind (llama.cpp) runs in a process of its own, started once and kept for every turn here.
The clock is fixed (an evening, two minutes a turn) and the pipeline's event draws have a
fixed seed, so runs ask the same things; the replies are sampled and vary.

- The model: a joined model (Qwen2.5 comes in pieces) is reused from an existing cache where
  one holds it: ``$COMPANION_MIND_CACHE`` (a folder like ``<data folder>/cache``), then the
  data folder's ``cache`` (``--data-dir``, ``$COMPANION_DATA_DIR`` or the platform's). It is
  linked in, never copied or changed. Otherwise the pieces are joined once (progress
  printed) into ``$COMPANION_MIND_CACHE`` when set, else into the temporary directory.
- One conversation of :data:`QUALITY_MESSAGES` (ten everyday messages, the default persona):
  for each turn the time to her first text (the first visible piece the pipeline streams),
  the time to the complete turn (state block parsed, extraction call if any, saved), and the
  prompt tokens the mind read and the tokens it wrote (llama.cpp's own timing lines in
  ``<cache>/mind/mind.log``). Turn 1 reads her whole system message; by turn 5 the prompt
  cache carries the conversation, so the first-text times of turns 1 and 5 are shown side
  by side. Generation and prompt-reading tokens/s are llama.cpp's, over all requests; the
  rate at which pieces reached the pipeline (chunks/s) is shown beside them. After each
  reply her mind reads it back for the next turn (``llm.mind.provider.READ_BACK_TIMEOUT_S``);
  the next message waits until that is done, as a user reads her reply and types, and its
  time is shown apart from the turn's.
- Peak RSS of the mind's process: ``VmHWM`` (else the largest ``VmRSS`` seen) from
  ``/proc/PID/status``, sampled every 0.2 s while it runs.
- Beside her: one turn a round (a fresh conversation in Companion Mode, which plays no
  event that would add a request, with the same message; her system message stays cached,
  so each round reads the turn's context and writes a reply; the clock moves 7 minutes a
  round), after a warm-up round, in the order alone, beside, beside, alone (so a drift in
  the machine's speed weighs on both sides alike). Beside means the real app idling on
  screen (chat window and overlay with Hana, as ``bench --only cost`` starts it) was started
  first and has settled. The share is beside / alone of the mean tokens/s. Skipped without
  a display.
- A failed turn (the model call failed: nothing saved) is reported with whether her mind's
  process had ended and the last lines of its log; the conversation goes on.
- Quality, heuristics over the ten replies, counts only (no threshold): in character (not
  empty, no "as an AI" / "language model" / "assistant" about herself, no other name for
  herself), a parsable state block (the reply's own, or the extraction call's), no chat
  template tokens (``<|im_start|>``, ``</s>``...) and no fake user turn (a line or sentence
  that starts "User:", "You:" or the user's name and a colon). The last two are checked on
  the reply as the model wrote it, before the pipeline cut anything.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion_desktop.cli.bench.mind_probe import (  # noqa: F401 - the figures' parts, long importable from here
    MIND_CACHE_ENV,
    RSS_EVERY_S,
    MindLog,
    PeakRss,
    Timing,
    cache_candidates,
    kept_cache,
    parse_timings,
    prepare_model,
    status_mb,
)

if TYPE_CHECKING:
    from companion_desktop.engine.state_updates import LlmSuggestion
    from companion_desktop.llm.base import CancelToken, ChatMessage
    from companion_desktop.llm.mind.host import MindHost, Running
    from companion_desktop.llm.mind.models import MindModel
    from companion_desktop.llm.mind.provider import BuiltinProvider

#: The user's name in the conversation (message 1 says it).
USER_NAME = "Alex"
#: The quality conversation, in order; turn 5 (its first-text time) is the emotional one.
QUALITY_MESSAGES = (
    f"Hi! I'm {USER_NAME}. I just got home from work and I'm pretty tired.",
    "What would you do on a rainy evening like this one?",
    "Can you remind me tomorrow at 6pm to call my sister?",
    "What's your favourite food, and why?",
    "I've been feeling kind of lonely lately, and I don't really know why.",
    "I'm thinking of learning the guitar. Any tips for a beginner?",
    "My best friend forgot my birthday and I'm a bit hurt, honestly.",
    "Do you remember what my name is?",
    "Tell me something that made you smile recently.",
    "Okay, I should get some sleep. Good night!",
)
#: The message of each beside-her round.
ROUND_MESSAGE = "Tell me about a place you would love to visit one day."
#: The rounds' mode: Companion Mode plays no events (a Dating Sim first turn plays the first
#: meeting, whose scene is one more request, cut short when it takes too long).
ROUND_MODE = "companion"
#: The turns whose first-text times are compared (1-based).
FIRST_TEXT_TURNS = (1, 5)
#: The conversation's clock: a fixed evening, two minutes a turn (the prompts repeat).
START = datetime(2026, 3, 10, 19, 30)
#: Seconds the app idles after its memory settled, before the rounds beside it.
SETTLE_S = 3.0
#: The seed of the pipeline's event draws (an event adds a request to its turn).
EVENT_SEED = 0


# -- one turn ----------------------------------------------------------------------------------
@dataclass
class TurnFigures:
    """One turn: seconds to her first text and to the complete turn, the requests the mind
    logged, the raw pieces of her streamed reply (seconds from the turn's start, text), the
    reply shown, what the pipeline made of its state block, and the error of a failed turn."""

    message: str
    at: datetime
    first_text_s: float | None
    complete_s: float
    timings: list[Timing]
    pieces: list[tuple[float, str]]
    reply: str
    used_extraction: bool
    block_ok: bool
    reminders: list[dict[str, Any]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)  # the ids of the events it played
    error: str | None = None  # why the turn failed (nothing was saved), None when it ran
    #: Seconds from the complete turn until her reply was read back (her mind's head start
    #: on the next turn, made while the user reads and types), None when it was not.
    read_back_s: float | None = None

    @property
    def turn_timings(self) -> list[Timing]:
        """The requests of the turn itself (the read-back, one token written, left out)."""
        return self.timings[:-1] if self.read_back_s is not None else self.timings

    @property
    def raw(self) -> str:
        return "".join(text for _, text in self.pieces)

    @property
    def prompt_tokens(self) -> int:
        return sum(t.prompt_tokens for t in self.turn_timings)

    @property
    def eval_tokens(self) -> int:
        return sum(t.eval_tokens for t in self.turn_timings)

    @property
    def chunk_rate(self) -> float | None:
        """Pieces a second between the first and the last piece of her reply."""
        if len(self.pieces) < 2 or self.pieces[-1][0] <= self.pieces[0][0]:
            return None
        return (len(self.pieces) - 1) / (self.pieces[-1][0] - self.pieces[0][0])


def rates(timings: list[Timing]) -> tuple[float | None, float | None]:
    """(generation, prompt reading) in tokens/s over ``timings`` (None with no time)."""
    eval_ms = sum(t.eval_ms for t in timings)
    prompt_ms = sum(t.prompt_ms for t in timings)
    gen = 1000 * sum(t.eval_tokens for t in timings) / eval_ms if eval_ms > 0 else None
    read = 1000 * sum(t.prompt_tokens for t in timings) / prompt_ms if prompt_ms > 0 else None
    return gen, read


class _Watch:
    """Turn hooks that note when the first visible text arrives."""

    def __init__(self, started: float) -> None:
        self.started = started
        self.first: float | None = None

    def set_phase(self, phase: str) -> None:
        pass

    def on_text(self, visible: str) -> None:
        if self.first is None and visible.strip():
            self.first = time.perf_counter() - self.started


def _recording_provider(model: MindModel, host: MindHost) -> BuiltinProvider:
    """The Built-in provider, unchanged but for noting the pieces of each streamed reply
    and how many requests it made."""
    from companion_desktop.llm.base import ProviderConfig
    from companion_desktop.llm.mind.provider import BuiltinProvider
    from companion_desktop.llm.registry import BUILTIN_ID, SPECS

    class Recording(BuiltinProvider):
        def __init__(self, config: ProviderConfig, host: MindHost) -> None:
            super().__init__(config, host=host)
            self.started = 0.0  # perf_counter() at the start of the turn
            self.requests = 0
            self.streams: list[list[tuple[float, str]]] = []

        def stream_chat(self, system: str, messages: list[ChatMessage],
                        cancel: CancelToken | None = None) -> Iterator[str]:
            self.requests += 1
            pieces: list[tuple[float, str]] = []
            self.streams.append(pieces)
            for piece in super().stream_chat(system, messages, cancel):
                pieces.append((time.perf_counter() - self.started, piece))
                yield piece

        def complete_json(self, system: str, messages: list[ChatMessage],
                          cancel: CancelToken | None = None) -> dict[str, Any]:
            self.requests += 1
            return super().complete_json(system, messages, cancel)

    config = ProviderConfig(BUILTIN_ID, SPECS[BUILTIN_ID].default_base_url, model.id)
    return Recording(config, host=host)


def state_block_ok(used_extraction: bool, suggestion: LlmSuggestion) -> bool:
    """Her reply carried a block that parsed, or the extraction call gave one (a failed
    call leaves an empty suggestion)."""
    from companion_desktop.engine.state_updates import LlmSuggestion

    return not used_extraction or suggestion != LlmSuggestion()


class Conversation:
    """One conversation on a fresh data folder through the real pipeline."""

    def __init__(self, folder: Path, provider: BuiltinProvider, log: MindLog,
                 start: datetime = START, step: timedelta = timedelta(minutes=2),
                 mode: str | None = None) -> None:
        from companion_desktop.pipeline.companion import CompanionService
        from companion_desktop.pipeline.runner import TurnRunner
        from companion_desktop.storage.db import Database

        self.provider = provider
        self.log = log
        self.now = start.astimezone()
        self.step = step
        self.db = Database.open(folder)
        self.runner = TurnRunner(CompanionService(self.db), provider, lambda: self.now)
        self.runner.rng = random.Random(EVENT_SEED)  # the same event draws each run
        if mode is not None:
            self.runner.service.set_mode(mode, self.now)

    def turn(self, message: str) -> TurnFigures:
        """One turn's figures; a failed turn (an LlmError: nothing saved) has its ``error``."""
        from companion_desktop.llm.base import LlmError

        provider: Any = self.provider
        provider.streams.clear()
        provider.requests = 0
        started = provider.reading_back
        t0 = time.perf_counter()
        provider.started = t0
        hooks = _Watch(t0)
        at = self.now
        self.now += self.step
        try:
            result = self.runner.run(message, hooks)
        except LlmError as error:
            return TurnFigures(
                message=message, at=at, first_text_s=hooks.first,
                complete_s=time.perf_counter() - t0, timings=self.log.take(0, wait_s=1.0),
                pieces=provider.streams[0] if provider.streams else [], reply="",
                used_extraction=False, block_ok=False, error=str(error))
        complete = time.perf_counter() - t0
        back, read_back_s = provider.reading_back, None
        if back is not None and back is not started:  # this turn's
            back.join()  # her reply read back: the user reads it and types meanwhile
            read_back_s = time.perf_counter() - t0 - complete
        timings = self.log.take(least=max(1, provider.requests) + (read_back_s is not None))
        return TurnFigures(
            message=message, at=at, first_text_s=hooks.first, complete_s=complete,
            timings=timings, read_back_s=read_back_s,
            pieces=provider.streams[0] if provider.streams else [], reply=result.reply,
            used_extraction=result.used_extraction,
            block_ok=state_block_ok(result.used_extraction, result.suggestion),
            reminders=list(result.reminders), events=[str(e["id"]) for e in result.events])

    def close(self) -> None:
        self.runner.close()
        self.db.close()


# -- the quality heuristics ----------------------------------------------------------------------
_TEMPLATE = re.compile(
    r"<\|[^|<>\s]{1,40}\|>|</?s>|\[/?INST\]|<</?SYS>>|<(?:start|end)_of_turn>"
    r"|<\|?(?:im_start|im_end|endoftext|eot_id)\|?>", re.I)
_AI_SELF = re.compile(
    r"\bas an? (?:ai|artificial intelligence)\b|\blanguage model\b|\bassistant\b"
    r"|\b(?:i'?m|i am) (?:just |only )?an? (?:ai|bot|chatbot|computer program)\b", re.I)
_NAMED = re.compile(r"\b(?:[Mm]y name is|[Mm]y name's|[Cc]all me|I am|I'm|I’m)\s+"
                    r"([A-Z][\w'’-]+)")
_SPEAKER = re.compile(r"^[ \t>*_]*([A-Z][\w'’-]*)[*_]*[ \t]*:", re.M)
#: Capitalised words after "I'm" that are not names.
_NOT_NAMES = frozenset(
    "I Here So Sorry Glad Happy Not Just Always Really Also Still Sure Fine Good Okay Ok "
    "Always Excited Curious Honestly Totally Actually Definitely Thrilled Afraid Fond".split())


def template_tokens(text: str) -> list[str]:
    """The chat-template tokens in ``text`` (``<|im_start|>``, ``</s>``, ``[INST]``...)."""
    return [match[0] for match in _TEMPLATE.finditer(text)]


def fake_user_turn(text: str, user_name: str | None = USER_NAME) -> bool:
    """True when a line or a sentence of ``text`` starts as a turn of the user's
    ("User:", "You:", "Human:", or their name, then a colon)."""
    speakers = ["user", "you", "human"] + ([re.escape(user_name)] if user_name else [])
    pattern = (rf"(?:^|[.!?…]\s+)[ \t>*_]*(?:{'|'.join(speakers)})[*_]*[ \t]*[:：]")
    return re.search(pattern, text, re.I | re.M) is not None


def other_names(text: str, name: str) -> list[str]:
    """Names other than ``name`` she gives herself: "my name is X", "call me X", "I'm X"
    (a capitalised word), or a line that starts "X:" (her own or a user label excepted)."""
    found = [m[1] for m in _NAMED.finditer(text) if m[1] not in _NOT_NAMES]
    found += [m[1] for m in _SPEAKER.finditer(text)
              if m[1].lower() not in {"user", "you", "human", USER_NAME.lower(), "json"}]
    return [n for n in found if n.strip("'’").lower() != name.lower()]


def out_of_character(reply: str, name: str) -> str | None:
    """Why ``reply`` is out of character (None when it stays in): empty, an AI
    self-reference, or another name for herself."""
    if not reply.strip():
        return "empty"
    if (match := _AI_SELF.search(reply)) is not None:
        return f"says {match[0]!r}"
    names = other_names(reply, name)
    if names:
        return f"calls herself {names[0]!r}"
    return None


@dataclass
class Quality:
    replies: int = 0
    in_character: int = 0
    block: int = 0
    via_extraction: int = 0
    no_template: int = 0
    no_fake_turn: int = 0
    all_four: int = 0
    failed: int = 0  # turns that failed: no reply to judge
    notes: list[str] = field(default_factory=list)


def judge(turns: list[TurnFigures], name: str, user_name: str | None = USER_NAME) -> Quality:
    """The quality counts of ``turns`` (see the module), with a note for each miss."""
    q = Quality(replies=sum(turn.error is None for turn in turns))
    for i, turn in enumerate(turns, 1):
        if turn.error is not None:
            q.failed += 1
            continue
        why = out_of_character(turn.reply, name)
        tokens = template_tokens(turn.raw)
        fake = fake_user_turn(turn.raw, user_name)
        q.in_character += why is None
        q.block += turn.block_ok
        q.via_extraction += turn.used_extraction and turn.block_ok
        q.no_template += not tokens
        q.no_fake_turn += not fake
        q.all_four += why is None and turn.block_ok and not tokens and not fake
        misses = [why] if why else []
        misses += [] if turn.block_ok else ["no state block (the extraction call failed too)"]
        misses += [f"template token {tokens[0]!r}"] if tokens else []
        misses += ["writes a turn of the user's"] if fake else []
        if misses:
            q.notes.append(f"turn {i}: {'; '.join(misses)}: {_short(turn.reply or turn.raw)}")
    return q


def _short(text: str, most: int = 70) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= most else flat[: most - 1] + "…")


# -- the section ------------------------------------------------------------------------------
@dataclass
class MindFigures:
    """What one run measured (seconds, tokens, tokens/s, MB)."""

    model: str
    wake_s: float
    load_s: float
    turns: list[TurnFigures]
    generation: float | None
    prompt: float | None
    peak_rss_mb: float
    quality: Quality
    alone: list[TurnFigures] = field(default_factory=list)
    beside: list[TurnFigures] = field(default_factory=list)


def _s(value: float | None) -> str:
    return "not seen" if value is None else f"{value:.2f} s"


def _rate(value: float | None, unit: str = "tokens/s") -> str:
    return "not measured" if value is None else f"{value:.1f} {unit}"


def _turn_line(i: int, turn: TurnFigures) -> str:
    if turn.error is not None:
        return f"    turn {i}: failed after {turn.complete_s:.2f} s: {turn.error}"
    why = ([f"the event {e!r} (its scene is written)" for e in turn.events]
           + (["the extraction call"] if turn.used_extraction else []))
    gen = rates(turn.turn_timings)[0]
    return (f"    turn {i}: first text {_s(turn.first_text_s)}, complete {turn.complete_s:.2f} s; "
            f"read {turn.prompt_tokens} prompt tokens, wrote {turn.eval_tokens} tokens"
            f"{'' if len(turn.turn_timings) == 1 else f' in {len(turn.turn_timings)} requests'} "
            f"({_rate(gen)}){'; ' if why else ''}{', '.join(why)}" + _read_back_text(turn))


def _read_back_text(turn: TurnFigures) -> str:
    if turn.read_back_s is None or len(turn.timings) <= len(turn.turn_timings):
        return ""
    back = turn.timings[-1]
    return (f"; then her reply read back in {turn.read_back_s:.2f} s ({back.prompt_tokens} "
            "tokens) while they read it and type")


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.fmean(known) if known else None


def _round_line(label: str, turns: list[TurnFigures]) -> str:
    gens = [rates(t.turn_timings)[0] for t in turns]
    reads = [rates(t.turn_timings)[1] for t in turns]

    def each(values: list[float | None], fmt: str) -> str:
        return " / ".join("-" if v is None else format(v, fmt) for v in values)

    return (f"    {label}: generation {each(gens, '.1f')} tokens/s, prompt reading "
            f"{each(reads, '.0f')} tokens/s ({each([t.prompt_tokens for t in turns], 'd')} "
            f"tokens in {each([len(t.turn_timings) for t in turns], 'd')} request(s)), first text "
            f"{each([t.first_text_s for t in turns], '.2f')} s, complete "
            f"{each([t.complete_s for t in turns], '.2f')} s")


def _share(beside: float | None, alone: float | None) -> str:
    return "-" if beside is None or not alone else f"{100 * beside / alone:.0f}%"


def beside_her(talk: Callable[[int], TurnFigures], folder: Path, report: Callable[[str], None],
               rounds: int = 2) -> tuple[list[TurnFigures], list[TurnFigures]]:
    """A warm-up round, then alone and beside the idling app (``rounds`` each, alone first
    and last); returns (alone, beside). Needs a display."""
    from companion_desktop.cli.bench.cost import RunningApp, cpu_seconds

    talk(0)  # warm-up, not counted
    count = itertools.count(1)
    half = max(1, rounds // 2)
    alone = [talk(next(count)) for _ in range(half)]
    beside: list[TurnFigures] = []
    app_folder = folder / "app"
    app_folder.mkdir()
    app = RunningApp(app_folder)
    try:
        shown = app.wait_shown()
        rss = app.settled_rss()  # the embedding model loaded, her memory settled
        time.sleep(SETTLE_S)
        if not app.alive:
            report(f"    the app exited ({app.proc.returncode}): {app.tail()}")
        else:
            report(f"    the app: window shown after {_s(shown)}, {rss:.0f} MB RSS settled")
            wall0, cpu0 = time.time(), cpu_seconds(app.proc.pid)
            beside = [talk(next(count)) for _ in range(rounds)]
            wall1, cpu1 = time.time(), cpu_seconds(app.proc.pid)
            report(f"    the app while she thought: {100 * (cpu1 - cpu0) / (wall1 - wall0):.1f}% "
                   "of one core, all threads")
    except OSError:  # its /proc entry went away: it quit while measured
        report(f"    the app exited while measured ({app.proc.poll()}): {app.tail()}")
    finally:
        app.stop()
    alone += [talk(next(count)) for _ in range(max(1, rounds - half))]
    return alone, beside


def bench_mind(model_id: str | None = None, messages: tuple[str, ...] = QUALITY_MESSAGES,
               beside: bool = True, report: Callable[[str], None] = print,
               data_dir: str | None = None, rounds: int = 2) -> MindFigures | None:
    """The section's figures (see the module): one conversation of ``messages``, then with
    ``beside`` the rounds beside the idling app. None when her mind cannot run here or a
    turn failed (the report says why)."""
    from companion_desktop.llm.base import LlmError
    from companion_desktop.llm.mind.host import MindHost
    from companion_desktop.llm.mind.models import MIND_FOLDER, choose, runtime_problem

    problem = runtime_problem()
    if problem:
        report(f"  skipped: her mind's runtime is not installed ({problem})")
        return None
    try:
        model = choose(model_id)
    except LlmError as error:
        report(f"  skipped: {error}")
        return None
    report(f"  model: {model.name} ({model.id}), {model.context} tokens of context")
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(
            prefix="companion-bench-mind-")))
        cache = folder / "cache"
        host = MindHost()
        host.configure(cache)
        stack.callback(host.stop)
        rss = PeakRss(lambda: _pid(host))
        try:
            how = prepare_model(model, cache, cache_candidates(data_dir), report)
            report(f"  model file: {how}")
            provider = _recording_provider(model, host)
            log = MindLog(cache / MIND_FOLDER / "mind.log")
            rss.start()
            stack.callback(rss.finish)
            t0 = time.perf_counter()
            provider.wake()
            wake_s = time.perf_counter() - t0
            load_s = host.running.load_s if host.running is not None else 0.0
            log.take(least=0, wait_s=0.0)  # the start's lines
            report(f"  woke in {wake_s:.2f} s (the model loaded in {load_s:.2f} s, as the mind "
                   "says)")
            report(f"  one conversation of {len(messages)} turns (default persona, the quality "
                   "messages):")
            turns, name = _conversation(folder / "talk", provider, log, messages, report)
            gen, read = _report_conversation(turns, report)
            alone: list[TurnFigures] = []
            by_her: list[TurnFigures] = []
            if beside:
                alone, by_her = _beside(folder, provider, log, report, rounds)
        except LlmError as error:
            report(f"  stopped: {error}")
            return None
        peak = rss.finish()
        report(f"  peak RSS of her mind's process: {peak:.0f} MB ({rss.source}, whole run)")
        quality = judge(turns, name)
        _report_quality(quality, turns, name, report)
        return MindFigures(model.id, wake_s, load_s, turns, gen, read, peak, quality,
                           alone, by_her)
    return None  # not reached: the block returns


def _pid(host: MindHost) -> int | None:
    running = host.running
    return running.process.pid if running is not None else None


def _conversation(folder: Path, provider: BuiltinProvider, log: MindLog,
                  messages: tuple[str, ...], report: Callable[[str], None],
                  ) -> tuple[list[TurnFigures], str]:
    """The turns of one conversation of ``messages``, each reported as it ends, and her name."""
    talk = Conversation(folder, provider, log)
    try:
        turns = []
        for i, message in enumerate(messages, 1):
            running = provider.host.running
            turns.append(talk.turn(message))
            report(_turn_line(i, turns[-1]))
            if turns[-1].error is not None:
                _report_failure(running, log, report)
        return turns, talk.runner.service.load(talk.now).state.name
    finally:
        talk.close()


def _report_failure(running: Running | None, log: MindLog,
                    report: Callable[[str], None]) -> None:
    """After a failed turn: whether her mind's process ended, and its log's last lines."""
    code = running.process.poll() if running is not None else None
    if code is not None:
        report(f"      her mind's process had ended (exit status {code}); the next turn starts "
               "it again")
    tail = log.tail()
    if tail:
        report(f"      mind.log ends: {tail}")


def _report_conversation(turns: list[TurnFigures],
                         report: Callable[[str], None]) -> tuple[float | None, float | None]:
    """The conversation's first-text times and rates; returns (generation, prompt) tokens/s."""
    gen, read = rates([t for turn in turns for t in turn.turn_timings])
    if not turns:
        return gen, read
    why = {1: "reads her whole system message", 5: "the prompt cache carries the conversation"}
    firsts = ", ".join(f"turn {n} {_s(turns[n - 1].first_text_s)} ({why.get(n, 'later')})"
                       for n in FIRST_TEXT_TURNS if n <= len(turns))
    report(f"  time to first text: {firsts}")
    report(f"  generation: {_rate(gen)} (llama.cpp's timing, "
           f"{sum(t.eval_tokens for t in turns)} tokens in all; her reply reached the pipeline "
           f"at {_rate(_mean([t.chunk_rate for t in turns]), 'chunks/s')})")
    first_read = rates(turns[0].turn_timings)[1]
    report(f"  prompt reading: {_rate(read)} over {sum(t.prompt_tokens for t in turns)} tokens "
           f"(turn 1: {_rate(first_read)} over {turns[0].prompt_tokens} tokens)")
    return gen, read


def _beside(folder: Path, provider: BuiltinProvider, log: MindLog,
            report: Callable[[str], None],
            rounds: int) -> tuple[list[TurnFigures], list[TurnFigures]]:
    """The rounds alone and beside her (see the module), reported; ([], []) without a display."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        report("  beside her: skipped (no display; `scripts/run.sh bench --only mind` starts a "
               "virtual one)")
        return [], []
    report(f"  beside her (the app idling on screen: chat window + overlay, Hana), one turn a "
           f"round after a warm-up, alone / beside x{rounds} / alone:")

    def one_round(i: int) -> TurnFigures:
        chat = Conversation(folder / f"round{i}", provider, log, START + timedelta(minutes=7 * i),
                            mode=ROUND_MODE)
        try:
            return chat.turn(ROUND_MESSAGE)
        finally:
            chat.close()

    alone, by_her = beside_her(one_round, folder, report, rounds)
    for turn in (t for t in [*alone, *by_her] if t.error is not None):
        report(f"    a round failed after {turn.complete_s:.2f} s: {turn.error}")
    report(_round_line("alone", alone))
    if by_her:
        report(_round_line("beside", by_her))
        (gen_a, read_a), (gen_b, read_b) = _mean_rates(alone), _mean_rates(by_her)
        report(f"    kept beside her (beside / alone, mean tokens/s): generation "
               f"{_share(gen_b, gen_a)}, prompt reading {_share(read_b, read_a)}; first text "
               f"{_s(_mean([t.first_text_s for t in by_her]))} beside, "
               f"{_s(_mean([t.first_text_s for t in alone]))} alone (means)")
    return alone, by_her


def _mean_rates(turns: list[TurnFigures]) -> tuple[float | None, float | None]:
    """The mean of the turns' (generation, prompt reading) tokens/s."""
    each = [rates(t.turn_timings) for t in turns]
    return _mean([gen for gen, _ in each]), _mean([read for _, read in each])


def _report_quality(quality: Quality, turns: list[TurnFigures], name: str,
                    report: Callable[[str], None]) -> None:
    n = quality.replies
    report(f"  quality ({n} replies as {name}; heuristics, counts only):")
    report(f"    in character {quality.in_character}/{n}, parsable state block {quality.block}/{n} "
           f"({quality.via_extraction} through the extraction call), no template tokens "
           f"{quality.no_template}/{n}, no fake user turn {quality.no_fake_turn}/{n}; all four "
           f"{quality.all_four}/{n}" + (f"; {quality.failed} turn(s) failed, no reply"
                                       if quality.failed else ""))
    for turn in (t for t in turns if "tomorrow at 6pm" in t.message):
        when = ", ".join(str(r.get("triggerAt", "?")) for r in turn.reminders) or "none"
        report(f"    the reminder asked for tomorrow at 6pm: {len(turn.reminders)} stored "
               f"({when}; asked at {turn.at.isoformat(timespec='minutes')})")
    for note in quality.notes:
        report(f"    {note}")
    report("    her replies (as shown, each cut at 160 characters):")
    for i, turn in enumerate(turns, 1):
        report(f"      {i}. {turn.message!r} -> {_short(turn.reply, 160) if turn.reply else '-'}")


def run_mind_bench(model_id: str | None = None, data_dir: str | None = None,
                   report: Callable[[str], None] = print) -> None:
    report("mind (her own mind: llama.cpp in a process of its own, the real turn pipeline, "
           "a fresh data folder):")
    bench_mind(model_id, report=report, data_dir=data_dir)
