"""Quitting: within a few seconds whatever runs, never destroying a running thread.

``watch_quit_signals`` (the first thing the app does) makes SIGTERM, SIGINT and SIGHUP
quit from the first moment: while the app holds nothing yet (no data folder claimed, no
database open) the start ends at once with exit 0; from ``holding()`` on, start-up
notes the request (``quit_requested``) and goes straight to closing between its steps;
``install_quit_signals(app)`` makes them quit the running app the way its Quit action
does (the event loop ends, everything is closed in order). ``end_process`` ends the
app's own process once all is closed, without the interpreter's teardown of every
module (a second or more on a busy machine).

At quit every worker is asked to stop at once (the turn's cancel token, the memory
worker's interruption, the MCP calls), then each is waited for out of one shared
``Deadline``. A step that cannot be interrupted (loading a model, a speech request)
may still run when the time is up: its thread is kept, the database is closed, and
the process ends with the app's exit code, so no running
QThread is ever destroyed (Qt aborts the process for that: exit 134) and nothing
waits for it. ``keep_running`` does this at the interpreter's end (``atexit``), so a
caller that goes on after ``run_gui`` (a test) is not cut short. Nothing half is saved:
each write is one transaction.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import socket
import sys
import threading
import time

log = logging.getLogger(__name__)
#: What all waits together may take at quit (seconds); the process ends within 3 s.
QUIT_WAIT_S = 1.2
#: The most that is spent waiting for a model load (it cannot be interrupted).
LOAD_WAIT_MS = 300
#: The most the app's own process waits at its end for Python threads (a backup).
THREADS_WAIT_S = 1.0
QUIT_SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP")


class Deadline:
    """The time left to quit."""

    def __init__(self, seconds: float = QUIT_WAIT_S) -> None:
        self.end = time.monotonic() + seconds

    def ms(self) -> int:
        return max(0, round(1000 * (self.end - time.monotonic())))


def _signal_wake(app):  # noqa: ANN001, ANN202
    """A QObject that wakes the event loop when a signal arrives, so Python runs its
    handler at once (a handler otherwise waits for the next Python code the loop runs)."""
    from PySide6.QtCore import QObject, QSocketNotifier

    class _SignalWake(QObject):
        def __init__(self) -> None:
            super().__init__(app)
            self._read, self._write = socket.socketpair()
            for end in (self._read, self._write):
                end.setblocking(False)
            self.notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read,
                                            self)
            self.notifier.activated.connect(self._drain)
            signal.set_wakeup_fd(self._write.fileno(), warn_on_full_buffer=False)

        def _drain(self) -> None:
            try:
                while self._read.recv(64):
                    pass
            except OSError:
                pass

    return _SignalWake()


#: Set by a quit signal: long start-up steps on the GUI thread look at it between parts.
_QUIT_REQUESTED: list[bool] = []
#: ``bare``: nothing is held yet; ``end``: this is the app's own process (a signal
#: then ends it at once); ``then``: what a signal does once the event loop exists.
_START: dict[str, object] = {"bare": True, "end": False, "then": None}


def quit_requested() -> bool:
    """A quit signal arrived (the event loop ends as soon as it runs again)."""
    return bool(_QUIT_REQUESTED)


def _signal_numbers() -> list[int]:
    return [number for number in (getattr(signal, name, None) for name in QUIT_SIGNALS)
            if number is not None]


def _on_quit_signal(_signum, _frame) -> None:  # noqa: ANN001
    _QUIT_REQUESTED.append(True)
    if _START["bare"]:  # nothing held, nothing to save
        if _START["end"]:
            end_process(0)
        raise SystemExit(0)  # out of whatever start-up is doing (an import): it ends here
    then = _START["then"]
    if callable(then):
        then()


def watch_quit_signals(end_process: bool = False) -> dict[int, object]:
    """Quit signals count from now (call first, on the main thread); the handlers they
    replace, for ``restore_quit_signals``. A signal before ``holding()`` ends the start:
    with ``end_process`` (the app owns this process) the process ends at once, exit 0;
    otherwise ``SystemExit(0)`` is raised where start-up was (as SIGTERM's default
    action, it ends the process unless the caller catches it)."""
    _QUIT_REQUESTED.clear()
    _START.update(bare=True, end=end_process, then=None)
    previous: dict[int, object] = {}
    for number in _signal_numbers():
        try:
            previous[number] = signal.signal(number, _on_quit_signal)
        except (OSError, ValueError):  # not the main thread: signals keep their handlers
            pass
    return previous


def holding() -> None:
    """The app is about to hold something (its data folder, the database): a quit
    signal from now on is noted and start-up closes what it opened."""
    _START["bare"] = False


def restore_quit_signals(previous: dict[int, object]) -> None:
    """The handlers ``watch_quit_signals`` replaced (the app has closed)."""
    _START["then"] = None
    for number, handler in previous.items():
        try:
            signal.signal(number, handler)
        except (OSError, ValueError, TypeError):
            pass


def install_quit_signals(app) -> None:  # noqa: ANN001
    """SIGTERM, SIGINT and SIGHUP end ``app``'s event loop (call on the main thread,
    after ``watch_quit_signals``)."""
    from PySide6.QtCore import QTimer

    _START["then"] = lambda: QTimer.singleShot(0, lambda: _quit(app))  # also before the loop
    try:
        app._signal_wake = _signal_wake(app)
    except (OSError, ValueError) as error:  # no socket pair: signals still work, later
        log.debug("no signal wake-up: %s", error)


def _quit(app) -> None:  # noqa: ANN001
    """End ``app``'s event loop; a modal dialog shown before it runs (the welcome) is
    closed as cancelled first (``quit`` only ends a running ``exec``, not a dialog's)."""
    from PySide6.QtWidgets import QApplication, QDialog

    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, QDialog) and widget.isVisible() and widget.isModal():
            widget.reject()
    app.quit()


def end_process(code: int, wait_s: float = THREADS_WAIT_S) -> None:
    """End this process with ``code`` (everything is closed): Python threads that are
    not daemons (the day's backup being written) get up to ``wait_s`` together to end,
    as the interpreter would wait for them; output is flushed; the interpreter's teardown
    is skipped. A backup cut short leaves no archive (it is renamed into place whole)."""
    end = time.monotonic() + wait_s
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, end - time.monotonic()))
    logging.shutdown()
    _flush()
    os._exit(code)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass


def drain_pool(deadline: Deadline) -> bool:
    """Drop queued background jobs and wait for running ones; True when none runs."""
    if "companion_desktop.ui.background" not in sys.modules:
        return True  # never used
    from companion_desktop.ui.background import pool

    pool().clear()
    return pool().waitForDone(deadline.ms())


def interrupt_tools() -> None:
    """Every MCP call still waiting gives up now (when the MCP client was ever loaded)."""
    module = sys.modules.get("companion_desktop.llm.mcp_client")
    if module is not None:
        module.interrupt_all()


#: Threads (and the pool) that outlived their wait at quit: kept referenced to the end.
_KEPT: list[tuple[str, object]] = []
_EXIT_CODE: list[int] = []


def keep_running(code: int, left: list[tuple[str, object]]) -> None:
    """Keep the ``left`` threads (name, object with ``isRunning()``) alive: destroying a
    running QThread aborts the process. If any still runs when the interpreter ends,
    the process ends there with ``code`` (everything else was closed by then)."""
    if not left:
        return
    log.warning("quit while still running: %s", ", ".join(name for name, _ in left))
    if not _KEPT:
        atexit.register(_exit_if_still_running)
    _KEPT.extend(left)
    _EXIT_CODE[:] = [code]


def _running(thread) -> bool:  # noqa: ANN001
    try:
        return bool(thread.isRunning())
    except RuntimeError:  # its C++ object is gone: it ended and was let go
        return False


def _exit_if_still_running() -> None:
    if not any(_running(thread) for _, thread in _KEPT):
        return
    _flush()
    os._exit(_EXIT_CODE[0] if _EXIT_CODE else 0)


class PoolThreads:
    """The background pool, seen as one thread (``isRunning``)."""

    def isRunning(self) -> bool:  # noqa: N802 - QThread's name
        from companion_desktop.ui.background import pool

        return pool().activeThreadCount() > 0
