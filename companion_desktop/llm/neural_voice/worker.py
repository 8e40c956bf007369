"""The one thread her neural voice computes on, at a lower CPU priority than her drawing.

ONNX Runtime runs a model on the thread that calls it plus the pool threads it made when
the model was loaded, and a new thread starts at the priority of the thread that made
it. So every load and every synthesis of :class:`~.backend.NeuralBackend` runs on one
:class:`SynthesisThread`, which lowers its own priority by :data:`LOWER_BY` first
(niceness, where the system has it): the model's threads then yield to the window's
thread when both want the CPU. Measured on 2 cores with software GL and the app on
screen (``bench --only voice``, "while she speaks"): while a reply is synthesized the app
takes about 175% of one core and her motion is updated 9-11 times a second (13 with
espeak-ng, 14-27 idle), at this priority or the app's; one model thread instead of two
takes 154% for 11 updates a second but her first audio comes 0.5 s later. The rest of
the cost is her drawing on software GL (and the GIL the synthesis thread holds between
model calls); a process of its own for the voice, as her mind has, is the next step.
"""

from __future__ import annotations

import logging
import os
import threading

from companion_desktop.llm.job_thread import JobThread

log = logging.getLogger(__name__)

#: How much nicer (0-19) the synthesis thread is than the thread that starts it.
LOWER_BY = 5


def lower_this_thread(by: int = LOWER_BY) -> bool:
    """Make the calling thread ``by`` nicer (POSIX; Linux applies it to the thread alone).
    False where the system cannot (Windows, or a limit)."""
    if not hasattr(os, "setpriority") or by <= 0:
        return False
    try:
        tid = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, now + by))
        return True
    except OSError as error:
        log.info("her voice keeps the app's priority (%s)", error)
        return False


class SynthesisThread(JobThread):
    """Runs jobs one at a time at the lowered priority (``lowered``: whether it took);
    :meth:`call` waits for each."""

    def __init__(self, lower_by: int = LOWER_BY) -> None:
        self.lower_by = lower_by
        self.lowered = False
        super().__init__("voice-synthesis", self._lower)

    def _lower(self) -> None:
        self.lowered = lower_this_thread(self.lower_by)
