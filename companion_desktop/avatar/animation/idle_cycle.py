"""The idle cycle (architecture spec, "Animation Library"): which idle clip loops next.

Pure logic; the random source and the library are passed in. The user picks a pool of
clip ids (built-in idles and uploads). The pool is checked against the library each time
it is read, so a deleted upload drops out; when nothing of it is left, all the built-in
idles are the pool. A clip plays for one or two loops (drawn at random when it starts),
the next one is never the clip that just played (unless the pool holds only that one),
and while she talks, thinks, emotes or poses the cycle waits: a loop ending then does not
switch clips (the next loop ending after she is free does).

Use: ``clip = cycle.start()``, then on every loop end of the idle clip
``cycle.on_loop_finished(state)``: a new id to cross-fade to, or None to keep looping.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

MIN_LOOPS = 1
MAX_LOOPS = 2


@dataclass(frozen=True)
class IdleState:
    """What keeps the idle cycle waiting."""

    talking: bool = False
    thinking: bool = False
    emoting: bool = False
    posing: bool = False  # photo mode

    @property
    def busy(self) -> bool:
        return self.talking or self.thinking or self.emoting or self.posing


class IdleCycle:
    """Picks idle clips: ``rng`` (``random.Random``), ``library_ids`` (the ids the library
    holds now, read at every pick), ``builtin_idles`` (the built-in idle ids, in order)."""

    def __init__(self, rng: random.Random, library_ids: Callable[[], Iterable[str]],
                 builtin_idles: Iterable[str]) -> None:
        self.rng = rng
        self.library_ids = library_ids
        self.builtin_idles = list(builtin_idles)
        self._pool: list[str] = []
        self.current: str | None = None
        self.loops = 0  # loops of ``current`` completed
        self.loops_wanted = MIN_LOOPS

    def set_pool(self, ids: Iterable[str]) -> None:
        """The user's pool (order kept, duplicates dropped); checked when read."""
        self._pool = list(dict.fromkeys(ids))

    def pool(self) -> list[str]:
        """The pool as it stands now: ids still in the library, or every built-in idle."""
        known = set(self.library_ids())
        pool = [i for i in self._pool if i in known]
        if pool:
            return pool
        builtins = [i for i in self.builtin_idles if i in known]
        return builtins or list(self.builtin_idles)

    def next_clip(self, current_id: str | None = None) -> str | None:
        """A clip from the pool other than ``current_id`` (it only when it is the pool's
        only clip); it becomes the current clip. None only when the pool is empty."""
        pool = self.pool()
        if not pool:
            return None
        choices = [i for i in pool if i != current_id] or pool
        chosen = self.rng.choice(choices)
        self.current = chosen
        self.loops = 0
        self.loops_wanted = self.rng.randint(MIN_LOOPS, MAX_LOOPS)
        return chosen

    def start(self) -> str | None:
        """The first clip (also after the pool changed and the current clip should go)."""
        return self.next_clip(self.current)

    def on_loop_finished(self, state: IdleState | None = None) -> str | None:
        """The idle clip finished a loop: the next clip's id when it is time to switch,
        else None (keep looping; always None while ``state`` is busy)."""
        self.loops += 1
        if state is not None and state.busy:
            return None
        if self.current is not None and self.current not in self.pool():
            return self.next_clip(self.current)  # it left the pool or the library
        if self.loops < self.loops_wanted:
            return None
        previous = self.current
        chosen = self.next_clip(previous)
        return chosen if chosen != previous else None
