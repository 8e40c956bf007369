"""Firing a reminder exactly once: the claim in the database, and her reply and the
executed mark in one transaction. Real TurnRunners on one real SQLite file, opened twice
(as two app instances would)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.reminders import CLAIM_TTL, EVENT_PREFIX, ReminderService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database
from companion_desktop.storage.models import TurnRow
from tests.conftest import T0
from tests.pipeline.test_runner import BLOCK, Scripted

REPLY = "Time to stretch, love!\n" + BLOCK
LATER = T0 + timedelta(hours=1)


class Gated(Scripted):
    """A scripted provider that waits at its first chunk until ``go`` is set."""

    def __init__(self, *replies: str) -> None:
        super().__init__(*replies)
        self.started = threading.Event()
        self.go = threading.Event()

    def stream_chat(self, system, messages, cancel=None):
        self.started.set()
        assert self.go.wait(10)
        yield from super().stream_chat(system, messages, cancel)


@pytest.fixture
def data_dir(tmp_path):
    folder = tmp_path / "data"
    with Database.open(folder) as db, db.session() as session:
        store.add_reminder(session, T0 + timedelta(minutes=5), "stretch", T0, None)
    return folder


def instance(data_dir, provider, at=LATER):
    """One "app": its own connection to the file, runner and reminder service."""
    db = Database.open(data_dir)
    runner = TurnRunner(CompanionService(db), provider, lambda: at)
    return db, runner, ReminderService(db, lambda: at)


def replies(db) -> int:
    """How many times she answered a reminder (system event turns)."""
    with db.read_session() as session:
        return int(session.scalar(select(func.count()).select_from(TurnRow).where(
            TurnRow.role == "system", TurnRow.content.startswith(EVENT_PREFIX))) or 0)


def executed(db) -> bool:
    with db.read_session() as session:
        return store.all_reminders(session)[0].executed


def test_two_instances_fire_a_due_reminder_once(data_dir):
    slow = Gated(REPLY)
    db_a, runner_a, reminders_a = instance(data_dir, slow)
    db_b, runner_b, reminders_b = instance(data_dir, Scripted(REPLY))
    try:
        record = reminders_a.due()[0]
        assert reminders_b.due() == [record]
        results = {}
        worker = threading.Thread(
            target=lambda: results.update(a=reminders_a.fire(record, runner_a)))
        worker.start()
        assert slow.started.wait(10)  # A has claimed it and is talking to the model
        assert reminders_b.due() == []  # B no longer sees it as due ...
        assert reminders_b.fire(record, runner_b) is None  # ... and cannot fire it
        assert runner_b.provider.calls == []  # B never even asked its model
        slow.go.set()
        worker.join(10)
        assert results["a"] is not None and "stretch" in results["a"].reply
        assert replies(db_a) == 1 and executed(db_a)
        assert reminders_a.due() == reminders_b.due() == []
        assert reminders_b.fire(record, runner_b) is None and replies(db_b) == 1
    finally:
        db_a.close()
        db_b.close()


class Killed(BaseException):
    """Stands for the process dying at that line (nothing after it runs)."""


def test_dying_when_marking_it_fired_never_leaves_two_replies(data_dir, monkeypatch):
    """The process dies the moment it goes to mark the reminder executed (before that
    write is durable); after a restart it fires once more, and she has answered once."""
    db, runner, reminders = instance(data_dir, Scripted(REPLY))
    record = reminders.due()[0]

    def die(*_args, **_kwargs):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(store, "mark_executed", die)
        patch.setattr(store, "finish_claim", die, raising=False)
        with pytest.raises(Killed):
            reminders.fire(record, runner)
    db.close()
    db, runner, reminders = instance(data_dir, Scripted(REPLY))  # the app starts again
    try:
        for _ in range(2):  # polls after the restart
            for due in reminders.due():
                reminders.fire(due, runner)
        assert replies(db) == 1 and executed(db)
    finally:
        db.close()


def test_a_failure_inside_the_reply_transaction_stores_nothing_and_fires_once_later(data_dir):
    db, runner, reminders = instance(data_dir, Scripted(REPLY, REPLY))
    try:
        record = reminders.due()[0]
        original = runner.service.commit_system_turn

        def failing(*args, **kwargs):  # the reply and the mark are written, then the commit fails
            also = args[-1]

            def then_fail(session, outcome):
                also(session, outcome)
                raise OSError("disk I/O error")

            return original(*args[:-1], then_fail, **kwargs)

        runner.service.commit_system_turn = failing
        assert reminders.fire(record, runner) is None
        assert replies(db) == 0 and not executed(db)
        assert [r.id for r in reminders.due()] == [record.id]  # the claim was given back
        runner.service.commit_system_turn = original
        assert reminders.fire(record, runner) is not None
        assert reminders.fire(record, runner) is None
        assert replies(db) == 1 and executed(db)
    finally:
        db.close()


def test_a_lost_claim_rolls_the_late_reply_back(data_dir):
    """A's claim is taken over after CLAIM_TTL (A seemed hung); when A's reply finally
    comes, its transaction finds the claim gone and stores nothing."""
    slow = Gated(REPLY)
    db_a, runner_a, reminders_a = instance(data_dir, slow)
    db_b, runner_b, reminders_b = instance(data_dir, Scripted(REPLY), at=LATER + CLAIM_TTL * 2)
    try:
        record = reminders_a.due()[0]
        results = {}
        worker = threading.Thread(
            target=lambda: results.update(a=reminders_a.fire(record, runner_a)))
        worker.start()
        assert slow.started.wait(10)
        assert reminders_b.fire(record, runner_b) is not None  # B takes the stale claim over
        slow.go.set()
        worker.join(10)
        assert results["a"] is None
        assert replies(db_a) == 1 and executed(db_a)
    finally:
        db_a.close()
        db_b.close()


def test_claims_of_dead_processes_are_taken_over_and_live_ones_respected(data_dir):
    with Database.open(data_dir) as db:
        reminders = ReminderService(db, lambda: LATER)
        record = reminders.due()[0]
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            host = reminders.owner.split(":")[0]
            with db.session() as session:  # a live process elsewhere holds it
                assert store.claim(session, record.id, f"{host}:{child.pid}:abcd", LATER,
                                   reminders.stale) is not None
            assert reminders.due() == []
            assert reminders.fire(record, Scripted()) is None  # its claim is respected
        finally:
            child.kill()
            child.wait()
        assert [r.id for r in reminders.due()] == [record.id]  # that process is gone
        with db.session() as session:
            assert store.claim(session, record.id, reminders.owner, LATER, reminders.stale)
        other = ReminderService(db, lambda: LATER)
        assert other.due() == []  # another service of this same live process holds it
        aged = ReminderService(db, lambda: LATER + CLAIM_TTL + timedelta(seconds=1))
        assert [r.id for r in aged.due()] == [record.id]  # too old: taken over
        assert os.getpid() == int(reminders.owner.split(":")[1])
