"""ReminderService on a real SQLite file with a recording fake runner; the poller's loop."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from companion_desktop.pipeline.reminders import EVENT_PREFIX, ReminderService, describe_delay
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database

NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)


class FakeRunner:
    """Records ``run_system_event`` calls; fails while ``fail`` is set. Like the real
    runner, it runs ``also`` in a transaction of ``db`` (its "reply" transaction)."""

    def __init__(self, fail: bool = False, reply: str = "Time to stretch!", db=None) -> None:
        self.calls: list[str] = []
        self.fail = fail
        self.reply = reply
        self.db = db

    def run_system_event(self, event_text, hooks=None, cancel=None, also=None):
        self.calls.append(event_text)
        if self.fail:
            raise ConnectionError("model unreachable")
        if self.reply is not None and also is not None and self.db is not None:
            with self.db.session() as session:
                also(session)
        return self.reply


@pytest.fixture
def db(tmp_path):
    with Database.open(tmp_path / "data") as database:
        yield database


def add(db, minutes: float, text: str, now: datetime = NOW):
    with db.session() as session:
        return store.add_reminder(session, NOW + timedelta(minutes=minutes), text, now, None)


def test_due_is_soonest_first_and_only_passed(db):
    add(db, 5, "later")
    add(db, -10, "first")
    add(db, -1, "second")
    add(db, 0, "exactly now")
    service = ReminderService(db, clock=lambda: NOW)
    assert [r.content for r in service.due(NOW)] == ["first", "second", "exactly now"]
    assert [r.content for r in service.due()] == ["first", "second", "exactly now"]


def test_missed_while_closed_surfaces_after_reopen(tmp_path):
    with Database.open(tmp_path / "data") as db:
        add(db, 2, "stretch")
    later = NOW + timedelta(days=1)
    with Database.open(tmp_path / "data") as db:
        service = ReminderService(db, clock=lambda: later)
        assert [r.content for r in service.due()] == ["stretch"]
        runner = FakeRunner(db=db)
        record = service.due()[0]
        assert service.fire(record, runner) == "Time to stretch!"
        assert runner.calls == [f"{EVENT_PREFIX}stretch"]
        assert runner.calls == ["Reminder you set earlier is due now: stretch"]
        assert service.due() == []
        assert service.fire(record, runner) is None  # already executed: not fired twice
        assert len(runner.calls) == 1


def test_failure_keeps_it_pending(db):
    add(db, -1, "call mom")
    service = ReminderService(db, clock=lambda: NOW)
    runner = FakeRunner(fail=True, db=db)
    record = service.due()[0]
    assert service.fire(record, runner) is None
    assert [r.content for r in service.due()] == ["call mom"]
    with db.read_session() as session:
        assert store.all_reminders(session)[0].executed is False
    runner.fail = False
    assert service.fire(service.due()[0], runner) == "Time to stretch!"
    assert service.due() == [] and len(runner.calls) == 2


def test_none_result_keeps_it_pending(db):
    add(db, -1, "water")
    service = ReminderService(db, clock=lambda: NOW)
    runner = FakeRunner(reply=None)
    assert service.fire(service.due()[0], runner) is None
    assert len(service.due()) == 1


def test_dismissal_is_stored(db):
    record = add(db, -1, "stretch")
    service = ReminderService(db, clock=lambda: NOW)
    service.fire(record, FakeRunner(db=db))
    assert [r.id for r in service.undismissed()] == [record.id]
    assert service.dismiss(record.id) is True
    assert service.dismiss(9999) is False
    with db.read_session() as session:
        stored = store.all_reminders(session)[0]
    assert stored.executed and stored.dismissed
    assert service.undismissed() == []


def test_fallback_only_when_no_tag(db):
    service = ReminderService(db, clock=lambda: NOW)
    assert service.schedule_fallback("remind me in 10 minutes to stretch", True, NOW, None) is None
    assert service.schedule_fallback("how are you?", False, NOW, None) is None
    with db.read_session() as session:
        assert store.all_reminders(session) == []
    record = service.schedule_fallback("remind me in 10 minutes to stretch", False, NOW, None)
    assert record is not None
    assert record.content == "stretch" and record.trigger_at == NOW + timedelta(minutes=10)
    with db.read_session() as session:
        assert [r.content for r in store.all_reminders(session)] == ["stretch"]


def test_upcoming_and_next_text(db):
    service = ReminderService(db, clock=lambda: NOW)
    assert service.next_reminder_text(NOW) is None
    add(db, 60, "lunch")
    add(db, 10, "stretch")
    add(db, -5, "fired")
    with db.session() as session:
        store.mark_executed(session, 3, NOW)
    assert [r.content for r in service.upcoming(NOW)] == ["stretch", "lunch"]
    assert service.next_reminder_text(NOW) == "in 10 minutes: stretch"
    assert service.next_reminder_text(NOW + timedelta(minutes=11)) == "now: stretch"


@pytest.mark.parametrize("seconds,text", [
    (0, "now"), (-5, "now"), (1, "in 1 second"), (45, "in 45 seconds"), (60, "in 1 minute"),
    (600, "in 10 minutes"), (3600, "in 1 hour"), (7200, "in 2 hours"), (86400 * 3, "in 3 days"),
])
def test_describe_delay(seconds, text):
    assert describe_delay(seconds) == text


def test_poller_fires_one_at_a_time_and_retries(db, qtbot):
    from companion_desktop.ui.reminder_poller import ReminderPoller

    add(db, -2, "first")
    add(db, -1, "second")
    service = ReminderService(db, clock=lambda: NOW)
    runner = FakeRunner(db=db)
    pending_done = []

    def fire(record, done):
        pending_done.append((record, done))

    notes = []
    poller = ReminderPoller(service, fire, notify=lambda t, m: notes.append((t, m)),
                            windows_visible=lambda: False, interval_ms=60_000)
    fired = []
    poller.fired.connect(lambda record, reply: fired.append((record.content, reply)))
    poller.start()
    qtbot.waitUntil(lambda: len(pending_done) == 1)
    poller.poll()  # busy: nothing new starts
    assert len(pending_done) == 1
    record, done = pending_done.pop()
    done(None)  # failure: stays pending, this round stops
    qtbot.wait(10)
    assert fired == [] and pending_done == []
    poller.poll()
    record, done = pending_done.pop()
    assert record.content == "first"
    done(service.fire(record, runner))
    qtbot.waitUntil(lambda: len(pending_done) == 1)
    record, done = pending_done.pop()
    assert record.content == "second"
    done(service.fire(record, runner))
    qtbot.waitUntil(lambda: len(fired) == 2)
    assert fired == [("first", "Time to stretch!"), ("second", "Time to stretch!")]
    assert notes == [("Reminder", "Time to stretch!")] * 2
    assert service.due() == []
    poller.stop()


@pytest.mark.parametrize("now,due", [
    (NOW, datetime(2026, 3, 11, 18, 0)),  # 11:00 in Berlin: tomorrow evening
    # Saturday 28 March, noon in Berlin: the clocks go forward tonight (18:00 is UTC+2)
    (datetime(2026, 3, 28, 11, 0, tzinfo=timezone.utc), datetime(2026, 3, 29, 18, 0)),
    # 23:30 UTC is already Wednesday 00:30 in Berlin: "tomorrow" is Thursday
    (datetime(2026, 3, 10, 23, 30, tzinfo=timezone.utc), datetime(2026, 3, 12, 18, 0)),
])
def test_fallback_reads_a_time_and_day_in_local_time(db, berlin, now, due):
    service = ReminderService(db, clock=lambda: now)
    record = service.schedule_fallback("Can you remind me to call my mum tomorrow at 6pm?",
                                       False, now, None)
    assert record is not None and record.content == "call my mum"
    assert record.trigger_at == due.replace(tzinfo=berlin)
    with db.read_session() as session:
        assert [r.trigger_at for r in store.all_reminders(session)] == [record.trigger_at]
