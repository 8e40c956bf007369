"""Generated moments: written on the template's structure, or the built-in scene."""

from __future__ import annotations

import time

import pytest

from companion_desktop.engine.events import EVENTS_BY_ID
from companion_desktop.engine.moments import apply_written_scene, pick_memories
from companion_desktop.llm.base import ProviderConfig, ServerError
from companion_desktop.pipeline.moments import MomentGenerator
from companion_desktop.storage import repository
from companion_desktop.storage.settings import DisplaySettings, save_settings
from tests.conftest import T0
from tests.pipeline.test_runner import service  # noqa: F401 - the fixture

EVENT = EVENTS_BY_ID["confession"]


def written(n=None, **over):
    scene = EVENT.scene
    data = {"intro": "The evening light is soft.", "dialogue": "I... I have to tell you something.",
            "outro": "She smiles, a little shy.",
            "choices": [{"text": f"Choice {i}", "response": f"Response {i}"}
                        for i in range(len(scene.choices) if n is None else n)]}
    data.update(over)
    return data


class JsonProvider:
    id = "json"

    def __init__(self, answer, delay=0.0):
        self.config = ProviderConfig("json", "in-process", "json")
        self.answer, self.delay, self.calls = answer, delay, []

    def complete_json(self, system, messages, cancel=None):
        self.calls.append((system, messages))
        end = time.monotonic() + self.delay
        while time.monotonic() < end:
            if cancel is not None and cancel.cancelled:
                raise ServerError("cancelled")
            time.sleep(0.01)
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_written_scene_keeps_the_structure():
    moment = apply_written_scene(EVENT, written())
    assert moment.scene.dialogue == "I... I have to tell you something."
    for old, new in zip(EVENT.scene.choices, moment.scene.choices, strict=True):
        assert new.state_changes == old.state_changes and new.unlocks == old.unlocks
    assert moment.id == EVENT.id and moment.conditions == EVENT.conditions


@pytest.mark.parametrize("bad", [
    written(dialogue=""), written(n=1), written(intro=None),
    written(dialogue="x" * 1201), written(intro="x" * 401),
    written(choices=[{"text": "x" * 161, "response": "ok"}] * len(EVENT.scene.choices)),
    written(choices=[{"text": "ok", "response": "x" * 801}] * len(EVENT.scene.choices)),
    "not a dict",
])
def test_invalid_output_is_rejected(bad):
    assert apply_written_scene(EVENT, bad) is None


def test_memory_selection_prefers_shared_and_relationship():
    facts = [(f"user fact {i}", "user", 90.0) for i in range(30)] + [
        ("we watched a film", "shared_experience", 40.0), ("they trust her", "relationship", 41.0)]
    chosen = pick_memories(facts)
    assert chosen[:2] == ["we watched a film", "they trust her"] and len(chosen) == 8


def test_generator_caches_successes_and_falls_back_on_failures(service):
    with service.db.session() as s:
        repository.add_fact(s, "We watched Spirited Away together", "shared_experience", T0, 70)
    state = service.load(T0).state
    generator = MomentGenerator(service.db)
    bad = JsonProvider(written(n=0))
    assert generator.personalize(EVENT, bad, state, ["hi"], T0) is EVENT  # built-in plays
    assert EVENT.id not in generator.cache  # failures are not cached
    good = JsonProvider(written())
    moment = generator.personalize(EVENT, good, state, ["hi"], T0)
    assert moment.scene.dialogue == "I... I have to tell you something."
    assert "Spirited Away" in good.calls[0][1][0].content  # the memory was offered
    # cached
    assert generator.personalize(EVENT, JsonProvider(ServerError("x")), state, [], T0) is moment


def test_timeout_and_setting_off_play_the_built_in_scene(service):
    state = service.load(T0).state
    slow = MomentGenerator(service.db, timeout_s=0.2)
    start = time.monotonic()
    assert slow.personalize(EVENT, JsonProvider(written(), delay=5), state, [], T0) is EVENT
    assert time.monotonic() - start < 2
    with service.db.session() as s:
        save_settings(s, DisplaySettings(personalized_moments=False))
    provider = JsonProvider(written())
    assert MomentGenerator(service.db).personalize(EVENT, provider, state, [], T0) is EVENT
    assert provider.calls == []
    assert MomentGenerator(service.db).personalize(EVENT, None, state, [], T0) is EVENT
