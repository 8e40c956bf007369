"""Memory for the turn pipeline: working memory and the retrieval/remember hooks.

``WorkingMemory`` holds the last 20 turns, refilled from the database on start.
``SimpleMemory`` is the spec's keyword fallback: facts whose words overlap the
message, with the five most important facts always included; the embedding
retrieval of the memory work plugs in through the same ``MemoryHooks``.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from sqlalchemy.orm import Session

from companion_desktop.engine.character import CharacterState
from companion_desktop.storage import repository as repo
from companion_desktop.storage.records import FactRecord, TurnRecord

LAST_TALK_GAP = timedelta(hours=6)
ALWAYS_INCLUDED = 5
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
_STOP = frozenset("the and you your for are was with that this have what when where who why how "
                  "but not all can had her him his its our out she they them then there".split())


#: How a photo turn reads in the history sent later (the photo itself is sent once).
PHOTO_MARK = "(shows you a photo)"
#: How a turn that showed her the user's screen reads later (the picture is never resent).
SCREEN_MARK = "(showed you their screen)"


def shown_photo_text(turn: TurnRecord) -> str:
    """A stored message as the model sees it later: photo turns say a photo was shown."""
    image = (turn.meta or {}).get("image") if turn.role == "user" else None
    if image and isinstance(image, dict) and image.get("screen") is not None:
        said = turn.content.removeprefix(PHOTO_MARK).strip()
        return f"{SCREEN_MARK} {said}".rstrip()
    if image and not turn.content.startswith(PHOTO_MARK):
        return f"{PHOTO_MARK} {turn.content}"
    return turn.content


class WorkingMemory:
    """The last ``CAPACITY`` user/assistant turns, oldest first."""

    CAPACITY = 20

    def __init__(self) -> None:
        self._turns: deque[tuple[str, str]] = deque(maxlen=self.CAPACITY)

    def refill(self, turns: Iterable[TurnRecord]) -> None:
        self._turns.clear()
        for turn in turns:
            if turn.role in ("user", "assistant"):
                self._turns.append((turn.role, shown_photo_text(turn)))

    def add(self, role: str, content: str) -> None:
        self._turns.append((role, content))

    def revise(self, role: str, old: str, new: str) -> bool:
        """The newest turn of ``role`` saying ``old`` now says ``new`` (her greeting,
        chosen again before it was answered); False when there is none."""
        for index in range(len(self._turns) - 1, -1, -1):
            if self._turns[index] == (role, old):
                self._turns[index] = (role, new)
                return True
        return False

    def last(self, count: int) -> list[tuple[str, str]]:
        return list(self._turns)[-count:] if count > 0 else []

    def __len__(self) -> int:
        return len(self._turns)


@dataclass(frozen=True)
class Recall:
    facts: list[str] = field(default_factory=list)
    triggered: list[str] = field(default_factory=list)
    last_session_summary: str | None = None
    ids: tuple[int, ...] = ()  # every retrieved fact: its reference count is bumped


class MemoryHooks(Protocol):
    def retrieve(self, session: Session, text: str, limit: int, state: CharacterState,
                 now: datetime) -> Recall: ...

    def remember(self, session: Session, memory: str | None, user_text: str, reply: str,
                 now: datetime, recalled: tuple[int, ...] = ()) -> Callable[[], None] | None:
        """Write this turn's memories inside the turn's transaction; may return a callback
        to run after the commit (index updates)."""
        ...


def last_talk_summary(session: Session, state: CharacterState, now: datetime) -> str | None:
    """The latest saved session summary, when more than 6 hours have passed."""
    if state.last_interaction and now - state.last_interaction > LAST_TALK_GAP:
        summaries = [s for s in repo.list_sessions(session) if s.summary]
        return summaries[-1].summary if summaries else None
    return None


def words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


class SimpleMemory:
    """Keyword retrieval over the facts table and plain saving of the model's memory."""

    def retrieve(self, session: Session, text: str, limit: int, state: CharacterState,
                 now: datetime) -> Recall:
        facts = repo.list_facts(session)
        query = words(text)
        by_importance = sorted(facts, key=lambda f: -f.importance)
        scored = sorted(
            ((len(query & words(f.content)), f) for f in facts),
            key=lambda p: (-p[0], -p[1].importance)
        )
        chosen: list[FactRecord] = [f for hits, f in scored if hits][:limit]
        for fact in by_importance[:ALWAYS_INCLUDED]:
            if fact not in chosen:
                chosen.append(fact)
        summary = last_talk_summary(session, state, now)
        return Recall([f.content for f in chosen], [], summary)

    def remember(self, session: Session, memory: str | None, user_text: str, reply: str,
                 now: datetime, recalled: tuple[int, ...] = ()) -> None:
        if not memory:
            return
        known = {f.content.strip().lower() for f in repo.list_facts(session)}
        if memory.strip().lower() not in known:
            repo.add_fact(session, memory.strip(), "user", now, source="conversation")


class FactMemory:
    """The spec's memory: embedding retrieval (keywords until the model loads), dedup,
    importance, the three memory sources and reference-count bumps, over a FactService."""

    def __init__(self, facts) -> None:  # noqa: ANN001 - pipeline.facts.FactService
        self.facts = facts

    def reload(self) -> None:
        """The facts were replaced wholesale (an import): rebuild the index from the database."""
        self.facts.rebuild_index()

    def retrieve(self, session: Session, text: str, limit: int, state: CharacterState,
                 now: datetime) -> Recall:
        from companion_desktop.memory.index import FactIndex
        from companion_desktop.memory.retrieval import Retriever
        from companion_desktop.pipeline.facts import fact_views

        views = fact_views(repo.list_facts(session))
        index = self.facts.index if self.facts.index is not None else FactIndex()
        got = Retriever(index, self.facts.embedder).retrieve(text, views, limit)
        return Recall(
            [views[i].content for i in got.relevant if i in views],
            [views[i].content for i in got.triggered_in_prompt if i in views],
            last_talk_summary(session, state, now),
            tuple(got.all_ids),
        )

    def remember(self, session: Session, memory: str | None, user_text: str, reply: str,
                 now: datetime, recalled: tuple[int, ...] = ()) -> Callable[[], None] | None:
        from companion_desktop.engine.facts import baseline_memory, extract_potential_facts

        if recalled:
            repo.bump_references(session, list(recalled), now)
        items: list[tuple[str, str]] = []
        if memory:
            items.append((memory, "user"))
        else:
            baseline = baseline_memory(user_text)
            if baseline:
                items.append((baseline, "user"))
        items += extract_potential_facts(user_text, reply, model_wrote_memory=bool(memory))
        after: list[Callable[[], None]] = []
        for content, category in items:
            try:
                after.append(self.facts.add_in(session, content, category, now, "conversation"))
            except ValueError:
                continue  # an unusable memory (empty, too long) is skipped, not fatal
        return (lambda: [done() for done in after]) if after else None
