"""Her neural voice computes on a thread of its own at a lower priority: the model's
threads, made there, yield to the window's thread."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from companion_desktop.llm.neural_voice.worker import SynthesisThread


def nice_of(tid: int) -> int:
    stat = Path(f"/proc/self/task/{tid}/stat").read_text()
    return int(stat[stat.rindex(")") + 2:].split()[16])


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="read from /proc (Linux-only)")
def test_jobs_run_on_the_lowered_thread_and_threads_it_makes_inherit_it():
    base = os.getpriority(os.PRIO_PROCESS, 0)
    worker = SynthesisThread(lower_by=3)
    ran_on = worker.call(threading.get_native_id)
    assert ran_on != threading.get_native_id() and worker.lowered
    assert nice_of(ran_on) == min(19, base + 3)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base  # the caller's

    def child_nice() -> int:
        seen: list[int] = []
        child = threading.Thread(target=lambda: seen.append(
            nice_of(threading.get_native_id())))
        child.start()
        child.join()
        return seen[0]

    assert worker.call(child_nice) == min(19, base + 3)  # as ONNX Runtime's pool threads


def test_an_error_is_raised_to_the_caller():
    worker = SynthesisThread()

    def fail() -> None:
        raise ValueError("broken voice")

    with pytest.raises(ValueError, match="broken voice"):
        worker.call(fail)
    assert worker.call(lambda: 42) == 42  # it goes on
