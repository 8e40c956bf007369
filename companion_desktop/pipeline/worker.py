"""The turn pipeline on a QThread: the only pipeline module that imports Qt (QtCore).

``TurnController`` lives on the GUI thread and owns one worker thread. ``send``
queues a turn; the worker reports the phase ("remembering", "seeing",
"thinking"), the visible text as it streams, with voice on her finished sentences
(``speech``: a list of ``SpokenPart`` and her mood as the turn began), and then
``done`` with the ``TurnResult`` or ``failed`` with a message and whether a retry makes
sense. ``stop`` cancels the running turn (nothing is saved) and says so at once
(``stopping``); no ``speech`` of a stopped turn is delivered after that. Every
blocking step of a turn or job takes its cancel token, so ``shutdown`` (quitting)
cancels it and waits a bounded time; a thread that still runs then is kept
(``LEFT_RUNNING``), never destroyed while it runs (Qt aborts the process for that), and
the app exits without destroying it (``ui.shutdown``).

A tool marked "ask before running" pauses the worker on an ``ApprovalTicket``
(``approval_requested``) until the user answers in the chat, the turn is
stopped, or APPROVAL_TIMEOUT_S passes (declined).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from companion_desktop.llm.base import CancelledError, CancelToken, LlmError
from companion_desktop.pipeline.images import PreparedImage
from companion_desktop.pipeline.runner import TurnResult, TurnRunner
from companion_desktop.storage.errors import StorageError

#: Threads that outlived ``shutdown``'s wait, with their workers: kept to the end.
LEFT_RUNNING: list[object] = []
#: How long a tool approval waits for the user before it counts as declined (seconds).
APPROVAL_TIMEOUT_S = 300.0


class ApprovalTicket:
    """One "may she run this tool?" question, answered from the GUI thread.

    ``request`` has ``server``, ``tool`` and ``arguments``. ``answer`` may be called
    once; ``cancelled`` turns True when the turn stopped or the wait timed out first.
    """

    def __init__(self, request: Any) -> None:
        self.request = request
        self.allowed = False
        self.cancelled = False
        self._answered = threading.Event()

    @property
    def answered(self) -> bool:
        return self._answered.is_set()

    def answer(self, allowed: bool) -> None:
        if not self._answered.is_set() and not self.cancelled:
            self.allowed = bool(allowed)
            self._answered.set()

    def summary(self, limit: int = 300) -> str:
        """The arguments as short JSON, for the prompt in the chat."""
        text = json.dumps(getattr(self.request, "arguments", {}), ensure_ascii=False, default=str)
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def wait(self, cancel: CancelToken, timeout: float = APPROVAL_TIMEOUT_S) -> bool:
        """Block the pipeline thread until answered; False when stopped or timed out."""
        waited = 0.0
        while not self._answered.wait(0.1):
            waited += 0.1
            if cancel.cancelled or waited >= timeout:
                self.cancelled = True
                return False
        return self.allowed


class _Worker(QObject):
    phase = Signal(str)
    text = Signal(str)
    speech = Signal(object, object)
    done = Signal(object)
    failed = Signal(str, bool)
    approval = Signal(object)
    tool = Signal(str, str)

    def __init__(self, runner: TurnRunner) -> None:
        super().__init__()
        self.runner = runner
        self.cancel = CancelToken()

    # TurnHooks, called on the worker thread; signals cross to the GUI thread.
    def set_phase(self, phase: str) -> None:
        self.phase.emit(phase)

    def on_text(self, visible: str) -> None:
        self.text.emit(visible)

    def on_speech(self, parts: Any, mood: Any) -> None:
        self.speech.emit(parts, mood)

    def approve(self, request: Any) -> bool:
        ticket = ApprovalTicket(request)
        self.approval.emit(ticket)
        return ticket.wait(self.cancel)

    def on_tool(self, label: str, status: str) -> None:
        self.tool.emit(label, status)

    job_done = Signal(object, object)  # (callback, result or None)

    @Slot(object, object)
    def run_job(self, job: object, callback: object) -> None:
        """Any pipeline work that must not overlap a turn (a fired reminder): ``job``
        gets this job's cancel token (set by ``stop`` and at quit)."""
        try:
            result = job(self.cancel)
        except (LlmError, StorageError):
            result = None
        except Exception:  # noqa: BLE001 - a bug must not kill the thread
            result = None
        self.job_done.emit(callback, result)

    @Slot(str, object)
    def run_turn(self, message: str, image: object) -> None:
        try:
            result = self.runner.run(message, self, self.cancel, image=image)  # type: ignore[arg-type]
        except CancelledError:
            self.failed.emit("Stopped.", True)
        except LlmError as error:
            self.failed.emit(str(error), error.retryable)
        except StorageError as error:
            self.failed.emit(str(error), True)
        except Exception as error:  # noqa: BLE001 - a bug must not kill the thread
            self.failed.emit(f"Something went wrong: {type(error).__name__}: {error}", True)
        else:
            self.done.emit(result)


class TurnController(QObject):
    """One conversation's worker thread, driven from the GUI thread."""

    started = Signal(str, bool)  # the message, and whether it is a retry
    phase = Signal(str)
    text = Signal(str)
    speech = Signal(object, object)  # finished sentences (SpokenPart list), her mood (MoodState)
    done = Signal(object)
    failed = Signal(str, bool)
    stopping = Signal()  # stop() was asked while a turn or job runs (before failed/done)
    busy_changed = Signal(bool)
    approval_requested = Signal(object)  # an ApprovalTicket to answer from the chat
    tool_activity = Signal(str, str)  # (tool label, "running"/"done"/"declined"/"failed")
    _request = Signal(str, object)
    _job = Signal(object, object)

    def __init__(self, runner: TurnRunner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.runner = runner
        self._thread = QThread()
        self._thread.setObjectName("turn-pipeline")
        self._worker = _Worker(runner)
        self._worker.moveToThread(self._thread)
        self._request.connect(self._worker.run_turn)
        self._job.connect(self._worker.run_job)
        self._worker.job_done.connect(self._job_finished)
        self._worker.phase.connect(self.phase)
        self._worker.text.connect(self.text)
        self._worker.speech.connect(self._speech)
        self._worker.done.connect(self._finished_ok)
        self._worker.failed.connect(self._finished_failed)
        self._worker.approval.connect(self.approval_requested)
        self._worker.tool.connect(self.tool_activity)
        self._busy = False
        self.current_image: PreparedImage | None = None  # the photo of the turn now running
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._busy

    def send(self, message: str, retry: bool = False, image: PreparedImage | None = None) -> bool:
        """Queue a turn; False when one is already running.

        Every view of the conversation hears ``started`` first, so a message sent
        from the overlay shows in the chat window too (``retry``: it is already shown,
        and the photo of the failed turn goes again). ``current_image`` is the turn's
        photo while ``started`` is heard.
        """
        if self._busy:
            return False
        if retry and image is None:
            image = self.current_image
        self._set_busy(True)
        self._worker.cancel = CancelToken()
        self.current_image = image
        self.started.emit(message, retry)
        self._request.emit(message, image)
        return True

    def run_job(self, job, callback) -> bool:  # noqa: ANN001
        """Run ``job(cancel)`` on the pipeline thread when no turn runs (``cancel``: a
        CancelToken that ``stop`` and quitting set); ``callback(result)`` follows on
        this thread. False (nothing started) while busy."""
        if self._busy:
            return False
        self._set_busy(True)
        self._worker.cancel = CancelToken()
        self._job.emit(job, callback)
        return True

    def _job_finished(self, callback, result) -> None:  # noqa: ANN001
        self._set_busy(False)
        callback(result)

    def stop(self) -> None:
        cancel = self._worker.cancel
        announce = self._busy and not cancel.cancelled
        cancel.cancel()
        if announce:
            self.stopping.emit()

    def _speech(self, parts: Any, mood: Any) -> None:
        if not self._worker.cancel.cancelled:  # nothing more of a stopped turn is said
            self.speech.emit(parts, mood)

    def shutdown(self, wait_ms: int = 2000) -> bool:
        """Cancel any turn or job and stop the thread (call before the app quits);
        True when it ended within ``wait_ms``. A thread still running then (a step
        that cannot be interrupted) is kept referenced, never destroyed while it runs."""
        self.stop()
        self._thread.quit()
        if self._thread.wait(max(0, wait_ms)):
            return True
        LEFT_RUNNING.append((self._thread, self._worker))
        return False

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.busy_changed.emit(busy)

    def _finished_ok(self, result: TurnResult) -> None:
        self._set_busy(False)
        self.done.emit(result)

    def _finished_failed(self, message: str, retryable: bool) -> None:
        self._set_busy(False)
        self.failed.emit(message, retryable)


