"""The embedding model loads, and old or imported facts are re-embedded, on their own thread.

The window shows first; a second and a half later this worker loads the model (keyword
search serves until then) and re-embeds every fact whose vector is missing or came from
another model. Progress is in ``FactService.status()`` (the Memory page shows it) and in
the ``progress`` signal.
"""

from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from companion_desktop.ui.shutdown import quit_requested

#: Facts embedded between two looks at a quit (a batch takes ~0.3 s on a slow CPU).
BATCH = 8


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
            if not loaded or self.isInterruptionRequested():
                return
        self.facts.backfill_all(batch=BATCH, should_stop=self.isInterruptionRequested,
                                progress=lambda done, total: self.progress.emit(done, total))

    def restart(self) -> None:
        """Re-embed again (after an import); no-op while a run is under way or once a
        quit signal came (the timer may fire in the same turn of the event loop)."""
        if not self.isRunning() and not quit_requested():
            self.start(QThread.Priority.LowPriority)

    def stop(self, wait_ms: int = 2000) -> bool:
        """Ask the backfill to stop and wait at most ``wait_ms`` for the thread (at quit);
        True when it ended. A model load in progress cannot be interrupted: the thread
        then runs on, and the app exits without destroying it (``ui.shutdown``)."""
        self.requestInterruption()
        return self.wait(max(0, wait_ms))
