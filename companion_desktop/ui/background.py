"""The UI's one helper for short jobs off the GUI thread (model lists, probes, tests).

A job is a plain function plus callbacks: ``run_in_background(owner, fn, on_done,
on_error)`` runs ``fn()`` on a pool thread and calls ``on_done(result)`` or
``on_error(exception)`` back on the GUI thread. When ``owner`` (a QObject) is gone
by then, the callbacks are dropped. The long-lived turn pipeline has its own
thread (``pipeline.worker``); this is for one-shot calls that take a second or two.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot
from shiboken6 import Shiboken

_POOL: QThreadPool | None = None


def pool() -> QThreadPool:
    """The pool these jobs run on (a few threads; tests wait on it)."""
    global _POOL
    if _POOL is None:
        _POOL = QThreadPool()
        _POOL.setMaxThreadCount(4)
    return _POOL


class _Relay(QObject):
    """Lives on the GUI thread; its signals (queued to its own slots) carry the outcome there.

    Deliberately not a child of the owner: the pool thread emits on it, so it must live
    until it has delivered, whatever happens to the owner meanwhile (a relay deleted
    with its owner while a pool thread emits on it crashes the process). ``_LIVE``
    keeps it; the owner's liveness is checked on the GUI thread before the callback.
    """

    finished = Signal(object)
    errored = Signal(object)

    def __init__(self, owner: QObject, on_done: Callable[[Any], None],
                 on_error: Callable[[Exception], None]) -> None:
        super().__init__()
        self._owner = owner
        self._on_done = on_done
        self._on_error = on_error
        self.finished.connect(self._done)
        self.errored.connect(self._failed)
        _LIVE.add(self)

    def _release(self) -> bool:
        """Done with this relay; True when the owner is still there to hear the outcome."""
        _LIVE.discard(self)
        self.deleteLater()
        alive = Shiboken.isValid(self._owner)
        self._owner = None
        return alive

    @Slot(object)
    def _done(self, result: object) -> None:
        if self._release():
            self._on_done(result)

    @Slot(object)
    def _failed(self, error: object) -> None:
        if self._release():
            self._on_error(error)  # type: ignore[arg-type]


#: Relays waiting for their job (kept alive here, not by their owners).
_LIVE: set[_Relay] = set()


class _Job(QRunnable):
    def __init__(self, fn: Callable[[], Any], relay: _Relay) -> None:
        super().__init__()
        self.fn = fn
        self.relay = relay

    def run(self) -> None:
        try:
            result = self.fn()
        except Exception as error:  # noqa: BLE001 - handed to on_error
            self._emit(self.relay.errored, error)
        else:
            self._emit(self.relay.finished, result)

    @staticmethod
    def _emit(signal: Any, value: object) -> None:
        signal.emit(value)  # the relay outlives the job (see _Relay)


def run_in_background(
    owner: QObject,
    fn: Callable[[], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[Exception], None],
) -> None:
    """Run ``fn`` on a pool thread; the callbacks run on the GUI thread while ``owner`` lives."""
    relay = _Relay(owner, on_done, on_error)
    job = _Job(fn, relay)
    job.setAutoDelete(True)
    pool().start(job)


class Latest:
    """Jobs that answer the form as it is now (a model list, a voice list): each new one
    supersedes the ones still running, whose outcome is dropped when it comes in later.
    Pool threads finish in any order, so without this a slow answer for an old URL could
    overwrite the answer for the one the user typed since."""

    def __init__(self, owner: QObject) -> None:
        self.owner = owner
        self.generation = 0

    def run(self, fn: Callable[[], Any], on_done: Callable[[Any], None],
            on_error: Callable[[Exception], None]) -> None:
        self.generation += 1
        mine = self.generation

        def done(result: Any) -> None:
            if mine == self.generation:
                on_done(result)

        def failed(error: Exception) -> None:
            if mine == self.generation:
                on_error(error)

        run_in_background(self.owner, fn, done, failed)
