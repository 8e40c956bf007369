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

_POOL: QThreadPool | None = None


def pool() -> QThreadPool:
    """The pool these jobs run on (a few threads; tests wait on it)."""
    global _POOL
    if _POOL is None:
        _POOL = QThreadPool()
        _POOL.setMaxThreadCount(4)
    return _POOL


class _Relay(QObject):
    """Lives on the GUI thread; its signals (queued to its own slots) carry the outcome there."""

    finished = Signal(object)
    errored = Signal(object)

    def __init__(self, owner: QObject, on_done: Callable[[Any], None],
                 on_error: Callable[[Exception], None]) -> None:
        super().__init__(owner)
        self._on_done = on_done
        self._on_error = on_error
        self.finished.connect(self._done)
        self.errored.connect(self._failed)

    @Slot(object)
    def _done(self, result: object) -> None:
        self.deleteLater()
        self._on_done(result)

    @Slot(object)
    def _failed(self, error: object) -> None:
        self.deleteLater()
        self._on_error(error)  # type: ignore[arg-type]


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
        try:
            signal.emit(value)
        except RuntimeError:  # the owner (and its relay) was deleted meanwhile
            pass


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
