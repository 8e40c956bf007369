"""The turn pipeline on a QThread: the only pipeline module that imports Qt (QtCore).

``TurnController`` lives on the GUI thread and owns one worker thread. ``send``
queues a turn; the worker reports the phase ("remembering", "seeing",
"thinking"), the visible text as it streams, and then ``done`` with the
``TurnResult`` or ``failed`` with a message and whether a retry makes sense.
``stop`` cancels the running turn (nothing is saved).
"""

from __future__ import annotations


from PySide6.QtCore import QObject, QThread, Signal, Slot

from companion_desktop.llm.base import CancelledError, CancelToken, LlmError
from companion_desktop.pipeline.runner import TurnResult, TurnRunner
from companion_desktop.storage.errors import StorageError


class _Worker(QObject):
    phase = Signal(str)
    text = Signal(str)
    done = Signal(object)
    failed = Signal(str, bool)

    def __init__(self, runner: TurnRunner) -> None:
        super().__init__()
        self.runner = runner
        self.cancel = CancelToken()

    # TurnHooks, called on the worker thread; signals cross to the GUI thread.
    def set_phase(self, phase: str) -> None:
        self.phase.emit(phase)

    def on_text(self, visible: str) -> None:
        self.text.emit(visible)

    job_done = Signal(object, object)  # (callback, result or None)

    @Slot(object, object)
    def run_job(self, job: object, callback: object) -> None:
        """Any pipeline work that must not overlap a turn (a fired reminder)."""
        try:
            result = job()
        except (LlmError, StorageError):
            result = None
        except Exception:  # noqa: BLE001 - a bug must not kill the thread
            result = None
        self.job_done.emit(callback, result)

    @Slot(str)
    def run_turn(self, message: str) -> None:
        try:
            result = self.runner.run(message, self, self.cancel)
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
    done = Signal(object)
    failed = Signal(str, bool)
    busy_changed = Signal(bool)
    _request = Signal(str)
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
        self._worker.done.connect(self._finished_ok)
        self._worker.failed.connect(self._finished_failed)
        self._busy = False
        self._thread.start()

    @property
    def busy(self) -> bool:
        return self._busy

    def send(self, message: str, retry: bool = False) -> bool:
        """Queue a turn; False when one is already running.

        Every view of the conversation hears ``started`` first, so a message sent
        from the overlay shows in the chat window too (``retry``: it is already shown).
        """
        if self._busy:
            return False
        self._set_busy(True)
        self._worker.cancel = CancelToken()
        self.started.emit(message, retry)
        self._request.emit(message)
        return True

    def run_job(self, job, callback) -> bool:  # noqa: ANN001
        """Run ``job()`` on the pipeline thread when no turn runs; ``callback(result)``
        follows on this thread. False (nothing started) while busy."""
        if self._busy:
            return False
        self._set_busy(True)
        self._job.emit(job, callback)
        return True

    def _job_finished(self, callback, result) -> None:  # noqa: ANN001
        self._set_busy(False)
        callback(result)

    def stop(self) -> None:
        self._worker.cancel.cancel()

    def shutdown(self, wait_ms: int = 5000) -> None:
        """Cancel any turn and stop the thread (call before the app quits)."""
        self.stop()
        self._thread.quit()
        self._thread.wait(wait_ms)

    def _set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.busy_changed.emit(busy)

    def _finished_ok(self, result: TurnResult) -> None:
        self._set_busy(False)
        self.done.emit(result)

    def _finished_failed(self, message: str, retryable: bool) -> None:
        self._set_busy(False)
        self.failed.emit(message, retryable)


