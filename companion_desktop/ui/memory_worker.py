"""The embedding model loads, and old or imported facts are re-embedded, on their own thread.

The window shows first; a second and a half later this worker loads the model (keyword
search serves until then) and re-embeds every fact whose vector is missing or came from
another model. Progress is in ``FactService.status()`` (the Memory page shows it) and in
the ``progress`` signal.
"""

from __future__ import annotations

from PySide6.QtCore import QThread, Signal


class MemoryWorker(QThread):
    progress = Signal(int, int)  # facts re-embedded, facts to do
    ready = Signal(bool)  # the model loaded (False: keyword search only)

    def __init__(self, facts, configured_path: str | None = None) -> None:  # noqa: ANN001
        super().__init__()
        self.setObjectName("memory-model")
        self.facts = facts
        self.configured_path = configured_path

    def run(self) -> None:
        if self.facts.embedder is None:
            loaded = self.facts.load_model(self.configured_path)
            self.ready.emit(loaded)
            if not loaded:
                return
        self.facts.backfill_all(should_stop=self.isInterruptionRequested,
                                progress=lambda done, total: self.progress.emit(done, total))

    def restart(self) -> None:
        """Re-embed again (after an import); no-op while a run is under way."""
        if not self.isRunning():
            self.start(QThread.Priority.LowPriority)

    def stop(self) -> None:
        """Ask the backfill to stop and wait for the thread (a model load in progress
        finishes first: it cannot be interrupted, and a running QThread must not be
        destroyed)."""
        self.requestInterruption()
        self.wait()
