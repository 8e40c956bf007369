"""Her mind's process: started on first use, kept while she is used, stopped when idle.

:data:`HOST` (one per app) starts ``serve`` for the chosen model and hands out its
address; a model that is already running is reused, so its prompt cache carries from
turn to turn. After ``idle_s`` seconds without a call (a setting, 10 minutes by default)
the process is stopped to give its memory back; the next call starts it again. A process
that died (out of memory, a crash) is started again on the next call.

CPU priority: the app may lower its own priority ("Let other programs go first"), which
threads and processes started afterwards inherit. :func:`prepare` (called before that)
starts the one thread that launches her mind, so the model keeps the priority the app
started with: her drawing yields, her thinking does not.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from companion_desktop.llm.base import CancelledError, CancelToken, ConfigError, LlmError
from companion_desktop.llm.job_thread import JobThread
from companion_desktop.llm.mind.models import (
    MIND_FOLDER,
    MindModel,
    Progress,
    forget_joined,
    model_file,
    verify_fully,
)

log = logging.getLogger(__name__)

#: Seconds a model may take to load before the start counts as failed.
START_TIMEOUT_S = 240.0
#: How often the idle check runs, in seconds.
REAP_EVERY_S = 15.0
DEFAULT_IDLE_S = 600.0
SERVE_MODULE = "companion_desktop.llm.mind.serve"
#: The bundle's program runs her mind when called with this first argument.
FROZEN_SERVE_FLAG = "--run-her-mind"


class MindError(LlmError):
    """Her mind could not start (the message says why and what to do)."""

    retryable = True


@dataclass
class Running:
    """A started mind: its process, address, model and context size (tokens)."""

    process: subprocess.Popen[bytes]
    url: str
    model: MindModel
    context: int
    load_s: float


def serve_command() -> list[str]:
    """How to run ``serve`` here: this Python with ``-m``, or the bundle's own program."""
    if getattr(sys, "frozen", False):
        return [sys.executable, FROZEN_SERVE_FLAG]
    return [sys.executable, "-m", SERVE_MODULE]


def _launcher() -> JobThread:
    """The thread that starts her mind's processes (made before the app lowers its
    priority, so the processes keep the one the app started with)."""
    return JobThread("mind-launcher")


class MindHost:
    """Starts, reuses and stops her mind's process (see the module). Thread-safe.

    Two locks: ``_lock`` guards the fields and is never held while anything waits (so
    :meth:`configure`, :attr:`running` and :meth:`stop`, called on the GUI thread, return
    at once), and ``_start_lock`` lets one start run at a time (on a worker thread: joining
    the model and loading it take seconds). :meth:`stop` during a start kills the starting
    process and the start raises ``CancelledError``."""

    def __init__(self, idle_s: float = DEFAULT_IDLE_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cache_dir: Path | None = None
        self.idle_s = idle_s
        self.clock = clock
        self.threads: int | None = None
        self._lock = threading.Lock()
        self._start_lock = threading.Lock()
        self._running: Running | None = None
        self._starting: subprocess.Popen[bytes] | None = None
        self._stops = 0  # counts stop() calls: a start begun before one gives up
        self._users = 0
        self._last_used = clock()
        self._launcher: JobThread | None = None
        self._reaper: threading.Thread | None = None

    def configure(self, cache_dir: Path, idle_s: float | None = None) -> None:
        """Where joined models go (the data folder's ``cache``) and the idle time."""
        with self._lock:
            self.cache_dir = Path(cache_dir)
            if idle_s is not None:
                self.idle_s = max(60.0, float(idle_s))

    def prepare(self) -> None:
        """Start the launcher thread now, at the priority the process has now."""
        with self._lock:
            if self._launcher is None:
                self._launcher = _launcher()

    @property
    def running(self) -> Running | None:
        with self._lock:
            return self._alive()

    @property
    def starting(self) -> bool:
        """True while a start is under way (joining or loading)."""
        return self._start_lock.locked()

    def _alive(self) -> Running | None:
        alive = self._running is not None and self._running.process.poll() is None
        return self._running if alive else None

    # -------------------------------------------------------------- use
    @contextmanager
    def use(self, model: MindModel, progress: Progress | None = None,
            cancel: CancelToken | None = None) -> Iterator[Running]:
        """The running mind for ``model`` (started first when needed) while the block
        runs; it is not stopped for idleness meanwhile."""
        with self._lock:
            self._users += 1
        try:
            yield self.ensure(model, progress, cancel)
        finally:
            with self._lock:
                self._users -= 1
                self._last_used = self.clock()

    @contextmanager
    def held(self, model: MindModel) -> Iterator[Running | None]:
        """The running mind for ``model`` while the block runs (not stopped for idleness
        meanwhile), or None when it is not running: nothing is started."""
        with self._lock:
            running = self._alive()
            if running is None or running.model.id != model.id:
                running = None
            else:
                self._users += 1
        try:
            yield running
        finally:
            if running is not None:
                with self._lock:
                    self._users -= 1
                    self._last_used = self.clock()

    def ensure(self, model: MindModel, progress: Progress | None = None,
               cancel: CancelToken | None = None) -> Running:
        """The running mind for ``model``, started first when needed (another model's
        is stopped). Waits for a start under way on another thread."""
        with self._start_lock:
            with self._lock:
                running = self._alive()
                if running is not None and running.model.id == model.id:
                    self._last_used = self.clock()
                    return running
                old, self._running = self._running, None
                stops, cache_dir = self._stops, self.cache_dir
            if old is not None:
                _end(old.process)
                log.info("her mind is asleep (%s)", old.model.id)
            if cache_dir is None:
                raise ConfigError("Her mind has no cache folder set (MindHost.configure).")

            def stopped() -> bool:
                return (cancel is not None and cancel.cancelled) or self._stops != stops

            started = self._start(model, cache_dir, progress or (lambda f, t: None), stopped)
            with self._lock:
                if self._stops != stops:  # stop() came as it woke
                    _end(started.process)
                    raise CancelledError("Her mind was stopped.")
                self._running = started
                self._last_used = self.clock()
            self._ensure_reaper()
            return started

    def _start(self, model: MindModel, cache_dir: Path, progress: Progress,
               stopped: Callable[[], bool]) -> Running:
        def joining(fraction: float, text: str) -> None:
            if stopped():
                raise CancelledError("Stopped.")  # the half-joined file is removed
            progress(fraction, text)

        path = model_file(model, cache_dir, joining)  # progress: joining, first use
        if stopped():
            raise CancelledError("Stopped.")
        progress(1.0, "Waking her mind…")  # the file is there; now it loads
        argv = [*serve_command(), "--model", str(path), "--context", str(model.context)]
        if self.threads:
            argv += ["--threads", str(self.threads)]
        log_path = cache_dir / MIND_FOLDER / "mind.log"
        log_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)

        def spawn() -> subprocess.Popen[bytes]:
            with open(log_path, "wb") as errors:
                os.chmod(log_path, 0o600)
                return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=errors, env=_child_env())

        process = self._launcher.call(spawn) if self._launcher is not None else spawn()
        with self._lock:
            self._starting = process
        started = self.clock()
        try:
            line = _ready_line(process, START_TIMEOUT_S, stopped)
        except BaseException:  # stopped or failed while loading: nothing to keep
            process.kill()
            _end(process)
            raise
        finally:
            with self._lock:
                self._starting = None
        if "error" in line or not isinstance(line.get("url"), str):
            _end(process)
            if model.joined and not verify_fully(model, cache_dir):
                forget_joined(model, cache_dir)  # joined again on the next call
                raise MindError("Her mind's model file was damaged; it will be rebuilt from "
                                "its packages with your next message.")
            raise MindError(f"Her mind could not start ({line.get('error', 'no address')}). "
                            f"The log is in {log_path}.")
        log.info("her mind is awake: %s on %s in %.1f s", model.id, line["url"],
                 self.clock() - started)
        return Running(process, line["url"].rstrip("/"), model, int(line.get("context", 0)),
                       float(line.get("load_s", 0.0)))

    # -------------------------------------------------------------- stop
    def stop(self) -> None:
        """Stop the running mind, and a start under way (at quit, or to free its memory
        now). Returns at once: a loading process is killed, not waited for."""
        with self._lock:
            self._stops += 1
            running, self._running = self._running, None
            starting = self._starting
        if starting is not None:
            starting.kill()
        if running is not None:
            _end(running.process)
            log.info("her mind is asleep (%s)", running.model.id)

    def stop_if_idle(self) -> bool:
        """Stop the mind when nobody uses it and it has been idle ``idle_s``; True if so."""
        with self._lock:
            idle = self.clock() - self._last_used
            if self._running is None or self._users or idle < self.idle_s:
                return False
            running, self._running = self._running, None
        _end(running.process)
        log.info("her mind is asleep (%s)", running.model.id)
        return True

    def _ensure_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None and self._reaper.is_alive():
                return

            def reap() -> None:
                while True:
                    time.sleep(REAP_EVERY_S)
                    with self._lock:
                        if self._running is None:
                            self._reaper = None
                            return
                    self.stop_if_idle()

            self._reaper = threading.Thread(target=reap, name="mind-idle", daemon=True)
            self._reaper.start()


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONSTARTUP", None)
    return env


def _ready_line(process: subprocess.Popen[bytes], timeout_s: float,
                stopped: Callable[[], bool]) -> dict[str, Any]:
    """The first line the mind prints, parsed; MindError when it ends or takes too long,
    CancelledError when ``stopped()`` turns true meanwhile."""
    lines: queue.Queue[bytes] = queue.Queue()
    stdout: IO[bytes] | None = process.stdout
    threading.Thread(target=lambda: lines.put(stdout.readline() if stdout else b""),
                     daemon=True, name="mind-ready").start()
    deadline = time.monotonic() + timeout_s
    raw = b""
    while True:
        if stopped():
            raise CancelledError("Stopped.")
        try:
            raw = lines.get(timeout=0.1)
            break
        except queue.Empty:
            if time.monotonic() > deadline:
                raise MindError(f"Her mind did not wake within {timeout_s:.0f} s.") from None
    if stopped():  # killed by stop() as it woke
        raise CancelledError("Stopped.")
    try:
        data = json.loads(raw.decode("utf-8", "replace")) if raw.strip() else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        code = process.poll()
        raise MindError("Her mind stopped while waking" + (f" (exit status {code})." if code
                                                            is not None else "."))
    return data


def _end(process: subprocess.Popen[bytes], wait_s: float = 1.0) -> None:
    """Close the mind's input (it exits at once, even mid-reply), then kill it if it
    lingers ``wait_s``."""
    try:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(wait_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(wait_s)
    except OSError:
        process.kill()
    finally:
        if process.stdout is not None:
            process.stdout.close()


#: The app's one mind host.
HOST = MindHost()
