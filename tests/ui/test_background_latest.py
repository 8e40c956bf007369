"""``Latest``: of successive jobs for one form, only the newest one's outcome lands,
whatever order the pool threads finish in."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QObject

from companion_desktop.ui.background import Latest, pool

pytestmark = pytest.mark.qt


def test_a_slow_old_answer_does_not_overwrite_the_new_one(qtbot):
    owner = QObject()
    latest = Latest(owner)
    release_old = threading.Event()
    landed: list[str] = []
    failures: list[Exception] = []

    def old() -> str:
        release_old.wait(5)
        return "old"

    latest.run(old, landed.append, failures.append)
    latest.run(lambda: "new", landed.append, failures.append)
    qtbot.waitUntil(lambda: landed == ["new"], timeout=5000)
    release_old.set()  # the old job finishes after the new one
    assert pool().waitForDone(5000)
    qtbot.wait(50)  # its queued outcome would be delivered now
    assert landed == ["new"] and failures == []


def test_an_old_failure_is_dropped_and_the_newest_failure_is_not(qtbot):
    owner = QObject()
    latest = Latest(owner)
    release_old = threading.Event()
    landed: list[object] = []

    def old() -> str:
        release_old.wait(5)
        raise RuntimeError("old URL refused")

    def new() -> str:
        raise RuntimeError("new URL refused")

    latest.run(old, landed.append, lambda error: landed.append(str(error)))
    latest.run(new, landed.append, lambda error: landed.append(str(error)))
    qtbot.waitUntil(lambda: landed == ["new URL refused"], timeout=5000)
    release_old.set()
    assert pool().waitForDone(5000)
    qtbot.wait(50)
    assert landed == ["new URL refused"]


def test_one_job_alone_lands(qtbot):
    latest = Latest(QObject())
    landed: list[int] = []
    latest.run(lambda: 7, landed.append, lambda error: landed.append(-1))
    qtbot.waitUntil(lambda: landed == [7], timeout=5000)
