"""The turn runner with scripted in-process providers and a real database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from companion_desktop.engine.familiarity import Familiarity, prompt_modifier
from companion_desktop.llm.base import (
    CancelledError,
    CancelToken,
    ChatMessage,
    ProviderConfig,
    ServerError,
)
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import reminders as reminder_store
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from tests.conftest import T0

BLOCK = (
    '```json\n{"mood_change": {"emotion": "playful", "intensity_delta": 10}, "affection_delta": 4, '
    '"trust_delta": 2, "intimacy_delta": 1, "comfort_delta": 1, '
    '"new_memory": "They love hiking"}\n```'
)


class Scripted:
    """A provider that replays scripted replies and records what it was sent."""

    id = "scripted"

    def __init__(self, *replies: str, json_reply: dict | Exception | None = None,
                 fail_after: int | None = None):
        self.config = ProviderConfig("scripted", "in-process", "scripted")
        self.replies = list(replies)
        self.json_reply = json_reply
        self.fail_after = fail_after
        self.calls: list[tuple[str, list[ChatMessage]]] = []
        self.json_calls = 0

    def stream_chat(self, system, messages, cancel=None) -> Iterator[str]:
        self.calls.append((system, list(messages)))
        reply = self.replies.pop(0)
        for i in range(0, len(reply), 7):
            if self.fail_after is not None and i >= self.fail_after:
                raise ServerError("The server failed (500).")
            if cancel is not None and cancel.cancelled:
                raise CancelledError("Stopped.")
            yield reply[i : i + 7]

    def complete_json(self, system, messages, cancel=None):
        self.json_calls += 1
        if isinstance(self.json_reply, Exception):
            raise self.json_reply
        return self.json_reply or {}

    def list_models(self):
        return ["scripted"]

    def test_connection(self):
        return "ok"


class Hooks:
    def __init__(self, cancel_on_text: CancelToken | None = None):
        self.phases: list[str] = []
        self.texts: list[str] = []
        self.cancel_on_text = cancel_on_text

    def set_phase(self, phase):
        self.phases.append(phase)

    def on_text(self, visible):
        self.texts.append(visible)
        if self.cancel_on_text is not None:
            self.cancel_on_text.cancel()


@pytest.fixture
def service(tmp_path):
    db = Database.open(tmp_path / "data")
    yield CompanionService(db)
    db.close()


def runner_for(service, provider, at=T0):
    return TurnRunner(service, provider, lambda: at)


def turns(service):
    with service.db.read_session() as s:
        return repository.recent_turns(s, 100)


def no_moments(service):
    """Events still fire, but their scenes are not written by the model (no extra call)."""
    from companion_desktop.storage.settings import DisplaySettings, save_settings

    with service.db.session() as s:
        save_settings(s, DisplaySettings(personalized_moments=False))


def test_turn_with_block(service):
    no_moments(service)
    provider = Scripted("Hiking sounds wonderful! Where did you go?\n" + BLOCK)
    hooks = Hooks()
    result = runner_for(service, provider).run("I love hiking, it makes me so happy!", hooks)
    assert result.reply == "Hiking sounds wonderful! Where did you go?"
    assert hooks.phases[:2] == ["remembering", "thinking"]
    assert all("```" not in t and "{" not in t for t in hooks.texts)
    assert result.mood.primary == "playful"
    assert result.applied["affection"] >= 4 and not result.used_extraction
    assert provider.json_calls == 0
    state = service.load(T0).state
    assert state.total_interactions == 1 and state.affection == result.state.affection
    assert [t.role for t in turns(service)] == ["user", "assistant"]
    assert turns(service)[1].content == result.reply
    with service.db.read_session() as s:
        assert [f.content for f in repository.list_facts(s)] == ["They love hiking"]


def test_missing_block_uses_extraction(service):
    no_moments(service)
    provider = Scripted("Oh no, that sounds hard.", json_reply={
        "mood_change": {"emotion": "sad", "intensity_delta": 5}, "affection_delta": 2})
    result = runner_for(service, provider).run("My cat is sick and I'm worried.")
    assert result.used_extraction and provider.json_calls == 1
    assert result.mood.primary == "sad"
    assert result.reply == "Oh no, that sounds hard."


def test_failed_extraction_falls_back_to_heuristics(service):
    provider = Scripted("Thanks!", json_reply=ServerError("down"))
    result = runner_for(service, provider).run("Thank you so much, you're amazing!")
    assert result.used_extraction and result.applied["affection"] > 0


def test_failed_stream_saves_nothing_and_can_retry(service):
    before = service.load(T0).state
    provider = Scripted("A long reply that will break halfway through.",
                        "Second try works!\n" + BLOCK, fail_after=14)
    runner = runner_for(service, provider)
    with pytest.raises(ServerError):
        runner.run("hello there")
    assert service.load(T0).state == before and turns(service) == []
    provider.fail_after = None
    result = runner.run("hello there")
    assert result.reply == "Second try works!" and len(turns(service)) == 2


def test_cancel_saves_nothing(service):
    token = CancelToken()
    provider = Scripted("This reply is long enough to be interrupted by the stop button.")
    with pytest.raises(CancelledError):
        runner_for(service, provider).run("tell me a story", Hooks(cancel_on_text=token), token)
    assert turns(service) == [] and service.load(T0).state.total_interactions == 0


def test_working_memory_is_refilled_and_sent(service):
    first = runner_for(service, Scripted("Nice to meet you!\n" + BLOCK))
    first.run("Hi, I'm Sam.")
    first.close()
    provider = Scripted("Welcome back!\n" + BLOCK)
    second = runner_for(service, provider, T0 + timedelta(hours=1))
    assert len(second.working) == 2
    second.run("I'm back")
    sent = provider.calls[0][1]
    assert [(m.role, m.content) for m in sent] == [
        ("user", "Hi, I'm Sam."), ("assistant", "Nice to meet you!"), ("user", "I'm back")]
    with service.db.read_session() as s:
        sessions = repository.list_sessions(s)
    assert len(sessions) == 2 and sessions[0].ended_at is not None


def test_reminder_tag_is_scheduled(service):
    provider = Scripted("Sure! [reminder:10min]Stretch your legs[/reminder] I'll remind you.\n"
                        + BLOCK)
    result = runner_for(service, provider).run("remind me to stretch in 10 minutes")
    assert "[reminder" not in result.reply
    with service.db.read_session() as s:
        pending = reminder_store.pending_reminders(s)
    assert [(r.content, r.trigger_at) for r in pending] == [
        ("Stretch your legs", T0 + timedelta(minutes=10))]
    assert result.reminders[0]["text"] == "Stretch your legs"


def test_familiarity_modifier_follows_tracking_setting(service):
    provider = Scripted("Hi!\n" + BLOCK, "Hi again!\n" + BLOCK)
    runner = runner_for(service, provider)
    modifier = prompt_modifier(Familiarity())
    runner.run("hello")
    assert modifier in provider.calls[0][0]
    service.set_tracking(False)
    runner.run("hello again")
    assert modifier not in provider.calls[1][0]


def test_enabled_animations_enter_the_prompt_and_action_passes_through(service):
    reply = ('Hi there!\n```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5}, '
             '"action": "wave"}\n```')
    provider = Scripted(reply, "Plain reply.\n" + BLOCK)
    runner = TurnRunner(service, provider, lambda: T0, animations=lambda: [("wave", "waves hello")])
    result = runner.run("hello!")
    system = provider.calls[0][0]
    assert "<avatar>" in system and "- wave: waves hello" in system and '"action"' in system
    assert result.suggestion.action == "wave"
    runner.animations = lambda: []
    runner.run("again")
    assert "<avatar>" not in provider.calls[1][0] and '"action"' not in provider.calls[1][0]


def test_past_sessions_get_a_summary_on_the_next_start(service):
    first = runner_for(service, Scripted("Hiking is great!\n" + BLOCK, "Seattle rain!\n" + BLOCK))
    first.run("I went hiking near Seattle, hiking is my favourite thing")
    first.run("Seattle rain makes hiking muddy")
    first.close()
    runner_for(service, Scripted(), T0 + timedelta(hours=8))
    with service.db.read_session() as s:
        sessions = repository.list_sessions(s)
    assert "hiking" in sessions[0].summary.lower() and "hiking" in sessions[0].key_topics
    assert sessions[1].summary is None  # the current session is summarized next time


def test_system_event_goes_through_the_event_layer_and_moves_only_mood(service):
    first = runner_for(service, Scripted("Hello!\n" + BLOCK))
    first.run("Thank you, I love talking with you!")
    before = service.load(T0).state
    reply = ("Time to stretch! [reminder:1h]drink some water[/reminder]\n"
             '```json\n{"mood_change": {"emotion": "playful", "intensity_delta": 5}, '
             '"affection_delta": 20}\n```')
    provider = Scripted(reply)
    later = TurnRunner(service, provider, lambda: T0 + timedelta(minutes=10))
    result = later.run_system_event("Reminder you set earlier is due now: stretch")
    system, messages = provider.calls[0]
    assert "<event>" in system and "stretch" in system.split("<event>")[1]
    assert messages[-1].role == "user" and "stretch" not in messages[-1].content  # not a user turn
    after = service.load(T0 + timedelta(minutes=10)).state
    assert after.mood.primary == "playful"
    for field in ("affection", "trust", "total_interactions", "current_streak", "last_interaction"):
        assert getattr(after, field) == getattr(before, field), field
    assert result.reply == "Time to stretch!" and result.reminders[0]["text"] == "drink some water"
    roles = [t.role for t in turns(service)]
    assert roles[-2:] == ["system", "assistant"] and roles.count("user") == 1


def test_first_meeting_event_fires_once_and_a_choice_is_recorded(service):
    provider = Scripted(*(["Hi!\n" + BLOCK] * 3))
    runner = runner_for(service, provider)
    first = runner.run("Hello! Nice to meet you.")
    assert first.event is not None and first.events[0]["id"] == first.event.id
    state = service.complete_event(first.event, 0, T0)
    assert first.event.id in state.completed_events
    again = runner.run("How are you?")
    assert again.event is None or again.event.id != first.event.id  # one-time events never repeat


def test_system_events_never_fire_events(service):
    provider = Scripted("Time!\n" + BLOCK)
    result = runner_for(service, provider).run_system_event("Reminder: stretch")
    assert result.event is None and result.events == []


def test_companion_mode_fires_no_events(service):
    service.set_mode("companion", T0)
    result = runner_for(service, Scripted("Hi!\n" + BLOCK)).run("Hello!")
    assert result.event is None


def test_natural_reminder_fallback_and_next_reminder_in_the_prompt(service):
    provider = Scripted("Sure, I will!\n" + BLOCK, "Hello again!\n" + BLOCK)
    runner = runner_for(service, provider)
    result = runner.run("remind me in 10 minutes to stretch")
    assert result.reminders and result.reminders[0]["text"] == "stretch"
    with service.db.read_session() as s:
        pending = reminder_store.pending_reminders(s)
    assert pending[0].trigger_at == T0 + timedelta(minutes=10)
    runner.run("what's up?")
    assert "in 10 minutes: stretch" in provider.calls[1][0]


def test_natural_reminder_fallback_reads_a_time_and_day_in_local_time(service, berlin):
    provider = Scripted("Of course!\n" + BLOCK)
    result = runner_for(service, provider).run("Can you remind me to call my mum tomorrow at 6pm?")
    assert [r["text"] for r in result.reminders] == ["call my mum"]
    with service.db.read_session() as s:
        pending = reminder_store.pending_reminders(s)
    # T0 is 12:00 at UTC+2, 11:00 in Berlin: the reminder is due tomorrow at 18:00 there
    assert [r.trigger_at for r in pending] == [datetime(2026, 3, 11, 18, 0, tzinfo=berlin)]
    assert datetime.fromisoformat(result.reminders[0]["triggerAt"]) == pending[0].trigger_at


def test_their_own_words_set_the_time_when_her_tag_gets_it_wrong(service, berlin):
    """A small model asked for "tomorrow at 6pm" wrote a two-hour tag: the reminder keeps
    her text and is due when they said; a tag that agrees, or words with no time, stay."""
    wrong = "Sure!\n[reminder:2h]Call your mum[/reminder]\n" + BLOCK
    right = "Sure!\n[reminder:30min]Stretch now[/reminder]\n" + BLOCK
    runner = runner_for(service, Scripted(wrong, right, right))
    first = runner.run("Can you remind me to call my mum tomorrow at 6pm?")
    assert [r["text"] for r in first.reminders] == ["Call your mum"]
    assert datetime.fromisoformat(first.reminders[0]["triggerAt"]) == datetime(
        2026, 3, 11, 18, 0, tzinfo=berlin)
    second = runner.run("remind me in 30 minutes to stretch")
    assert datetime.fromisoformat(second.reminders[0]["triggerAt"]) == T0 + timedelta(
        minutes=30)
    third = runner.run("please remind me to stretch")  # no time in their words: hers
    assert datetime.fromisoformat(third.reminders[0]["triggerAt"]) == T0 + timedelta(
        minutes=30)


def test_their_own_words_say_what_when_her_tag_says_nothing_of_it(service, berlin):
    """A small model copied the prompt's placeholder into its tag: the reminder says what
    they asked for, in their words, when they said; a tag text of their words stays."""
    copied = "Sure!\n[reminder:1d]remind[/reminder]\n" + BLOCK
    own = "Sure!\n[reminder:22h]Call Mum!![/reminder]\n" + BLOCK
    runner = runner_for(service, Scripted(copied, own))
    first = runner.run("Can you remind me to call my mum tomorrow at 6pm?")
    assert [r["text"] for r in first.reminders] == ["call my mum"]
    assert datetime.fromisoformat(first.reminders[0]["triggerAt"]) == datetime(
        2026, 3, 11, 18, 0, tzinfo=berlin)
    second = runner.run("Remind me to call my mum tomorrow at 6pm, please")
    assert [r["text"] for r in second.reminders] == ["Call Mum!!"]


def test_an_event_whose_scene_is_still_open_does_not_fire_again(service):
    runner = TurnRunner(service, Scripted(*(["Hi!\n" + BLOCK] * 3)), lambda: T0)
    first = runner.run("Hello, nice to meet you!")
    assert first.event is not None
    second = runner.run("(sent from the overlay while the scene window is open)")
    assert second.event is None and second.events == []
    service.complete_event(first.event, None, T0)  # closed: seen, no choice
    third = runner.run("And now?")
    assert third.event is None or third.event.id != first.event.id


def test_a_small_mind_sets_a_reminder_only_when_they_ask_for_one(service, berlin):
    """Her own mind (``reminders_when_asked``) copies the tag of an earlier turn into a
    reply to a question about cooking: no reminder then; asked for one, hers is kept. A
    provider without the flag keeps every tag, as the spec has it."""
    tagged = "Sure!\n[reminder:1h]Check the oven[/reminder]\n" + BLOCK
    small = Scripted(tagged, tagged)
    small.reminders_when_asked = True  # type: ignore[attr-defined]
    runner = runner_for(service, small)
    assert runner.run("What should I cook tonight?").reminders == []
    asked = runner.run("Remind me to check the oven in an hour")
    assert [r["text"] for r in asked.reminders] == ["Check the oven"]
    other = runner_for(service, Scripted(tagged))
    assert [r["text"] for r in other.run("What should I cook?").reminders] == ["Check the oven"]
