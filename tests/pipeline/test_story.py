"""A scripted story over many days with the clock passed in: milestones, markers and the
gated stage, reminders across a restart, a broken moment falling back to the template."""

from __future__ import annotations

from datetime import timedelta

from companion_desktop.engine.events import CONFESSION_MARKER, EVENTS_BY_ID
from companion_desktop.engine.stages import STAGE_REQUIREMENTS
from companion_desktop.pipeline.reminders import ReminderService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import repository
from tests.conftest import T0
from tests.pipeline.test_runner import BLOCK, Scripted, service  # noqa: F401 - the fixture

REPLY = "That's so nice!\n" + BLOCK


def test_the_story(service):
    day = [T0]
    provider = Scripted(*([REPLY] * 40))
    runner = TurnRunner(service, provider, lambda: day[0])
    fired = []
    for i in range(6):
        day[0] = T0 + timedelta(days=i, minutes=i)
        result = runner.run(f"Good morning! Day {i}, thank you for being here.")
        if result.event is not None:
            fired.append(result.event.id)
            service.complete_event(result.event, 0, day[0])
    assert fired and fired.count(fired[0]) == 1  # a one-time milestone fired once
    # she has grown close: every stat of dating, but no confession yet
    with service.db.session() as s:
        state = repository.load_character(s)
        req = STAGE_REQUIREMENTS["dating"]
        for stat in ("affection", "trust", "intimacy", "comfort", "respect"):
            setattr(state, stat, getattr(req, stat) + 60 if stat == "affection"
                                 else getattr(req, stat) + 5)
        state.total_interactions, state.days_known = req.interactions + 5, req.days_known + 1
        state.last_interaction = T0 + timedelta(days=20)  # talked this morning: no decay tonight
        state.relationship_stage = "romantic_interest"
        repository.save_character(s, state)
    day[0] = T0 + timedelta(days=20, hours=21)
    result = runner.run("Can I tell you something? You mean a lot to me.")
    assert result.stage == "romantic_interest"  # the marker gates dating
    confession = EVENTS_BY_ID["confession"]
    accept = next(i for i, c in enumerate(confession.scene.choices)
                  if CONFESSION_MARKER in c.unlocks)
    state = service.complete_event(confession, accept, day[0])
    assert CONFESSION_MARKER in state.completed_events and state.relationship_stage == "dating"


def test_a_reminder_set_before_a_restart_fires_after_it(service):
    tagged = "Sure! [reminder:2h]call mom[/reminder]\n" + BLOCK
    first = TurnRunner(service, Scripted(tagged), lambda: T0)
    first.run("remind me to call mom later")
    first.close()
    later = T0 + timedelta(hours=3)  # the app was closed meanwhile
    reminders = ReminderService(service.db, lambda: later)
    due = reminders.due(later)
    assert [r.content for r in due] == ["call mom"]
    second = TurnRunner(service, Scripted("Time to call your mom!\n" + BLOCK), lambda: later)
    result = reminders.fire(due[0], second)
    assert result is not None and "call your mom" in result.reply
    assert reminders.due(later) == []
