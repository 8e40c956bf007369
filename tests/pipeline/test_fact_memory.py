"""The turn pipeline with the real memory: facts saved, deduped, retrieved and bumped."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.llm.base import ServerError
from companion_desktop.pipeline.facts import FactService
from companion_desktop.pipeline.memory import FactMemory
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import repository
from tests.conftest import T0
from tests.pipeline.test_runner import Scripted, service  # noqa: F401 - the fixture

SEATTLE = ('```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5}, '
           '"new_memory": "They grew up in Seattle and miss the rain"}\n```')
NONE = '```json\n{"mood_change": {"emotion": "curious", "intensity_delta": 2}}\n```'


def facts_in(service):
    with service.db.read_session() as s:
        return repository.list_facts(s)


def run(service, facts, *replies, at=T0):
    provider = Scripted(*replies)
    return provider, TurnRunner(service, provider, lambda: at, memory=FactMemory(facts))


def test_model_memory_is_saved_and_retrieved_later(service):
    facts = FactService(service.db)
    _, runner = run(service, facts, "Seattle sounds lovely!\n" + SEATTLE)
    runner.run("I grew up in Seattle, I miss the rain")
    saved = [f.content for f in facts_in(service)]
    assert "They grew up in Seattle and miss the rain" in saved  # the model's memory
    assert len(saved) <= 2  # plus at most one pattern fact when the model wrote one
    provider, later = run(service, facts, "Of course!\n" + NONE, at=T0 + timedelta(days=2))
    later.run("Do you remember where I grew up? Seattle!")
    assert "They grew up in Seattle and miss the rain" in provider.calls[0][0]  # in <memory>
    model_fact = next(f for f in facts_in(service) if f.content.endswith("miss the rain"))
    assert model_fact.reference_count >= 1  # retrieved facts are bumped


def test_same_memory_twice_merges(service):
    facts = FactService(service.db)
    _, runner = run(service, facts, "Nice!\n" + SEATTLE, "Right!\n" + SEATTLE)
    runner.run("I grew up in Seattle")
    runner.run("Seattle was home")
    same = [f for f in facts_in(service)
            if f.content == "They grew up in Seattle and miss the rain"]
    assert len(same) == 1 and same[0].reference_count >= 1


def test_pattern_and_baseline_sources(service):
    facts = FactService(service.db)
    _, runner = run(service, facts, "Cool job!\n" + NONE)
    runner.run("My name is Sam and I work at the library")
    contents = " | ".join(f.content for f in facts_in(service))
    assert "Sam" in contents and "library" in contents
    assert len(facts_in(service)) <= 2  # at most two per turn


def test_failed_turn_writes_no_memory(service):
    facts = FactService(service.db)
    provider, runner = run(service, facts, "This breaks half way " + SEATTLE)
    provider.fail_after = 7
    with pytest.raises(ServerError):
        runner.run("I grew up in Seattle")
    assert facts_in(service) == []


@pytest.mark.slow
def test_with_the_real_embedding_model(service):
    facts = FactService(service.db)
    if not facts.load_model():
        pytest.skip(f"embedding model not available: {facts.status().detail}")
    _, runner = run(service, facts, "Lovely!\n" + SEATTLE)
    runner.run("I grew up in Seattle")
    provider, later = run(service, facts, "Hmm!\n" + NONE, at=T0 + timedelta(days=1))
    later.run("where was my childhood home?")
    assert "They grew up in Seattle" in provider.calls[0][0]
    assert all(f.embedding_model == facts.embedder.model_name for f in facts_in(service))
