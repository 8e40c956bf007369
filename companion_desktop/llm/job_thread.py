"""A thread that runs jobs one at a time for callers who wait for each (its result, or its
exception raised in the caller). What the thread is made with stays with it: her mind is
launched from one made before the app lowers its priority, her voice computes on one that
lowered its own (threads started from it inherit that)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class JobThread(threading.Thread):
    """Started at once (a daemon); ``setup()`` runs first, on the thread."""

    def __init__(self, name: str, setup: Callable[[], None] | None = None) -> None:
        super().__init__(name=name, daemon=True)
        self._setup = setup
        self._jobs: queue.Queue[tuple[Callable[[], Any], queue.Queue[Any]]] = queue.Queue()
        self.start()

    def run(self) -> None:
        if self._setup is not None:
            self._setup()
        while True:
            job, answer = self._jobs.get()
            try:
                answer.put((job(), None))
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                answer.put((None, error))

    def call(self, job: Callable[[], T]) -> T:
        """``job()`` on this thread; its result, or its exception raised here."""
        if threading.current_thread() is self:
            return job()
        answer: queue.Queue[Any] = queue.Queue()
        self._jobs.put((job, answer))
        result, error = answer.get()
        if error is not None:
            raise error
        return result
