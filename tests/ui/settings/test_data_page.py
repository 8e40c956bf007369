"""Settings > Data over real databases: export, then import with validation and confirmation."""

from __future__ import annotations

import json

import pytest

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.facts import FactService
from companion_desktop.storage import repository as repo
from companion_desktop.storage.db import Database
from companion_desktop.storage.savefile_text import describe_counts
from companion_desktop.ui.settings.data_page import DataPage
from tests.conftest import T0
from tests.memory.vector_helpers import ScriptedEmbedder, axis

pytestmark = pytest.mark.qt

WAIT_MS = 8000
CAT = "User has a cat named Miso."
HIKE = "User loves hiking in the Alps."


@pytest.fixture
def page(qtbot, service):
    widget = DataPage(service, lambda: T0, facts=FactService(service.db))
    qtbot.addWidget(widget)
    widget.show()
    return widget


def fill(service):
    service.load(T0)
    facts = FactService(service.db)
    facts.add(CAT, "user", T0)
    facts.add(HIKE, "user", T0)
    with service.db.session() as session:
        sid = repo.start_session(session, T0)
        repo.add_turn(session, sid, "user", "Hello!", T0)


def snapshot(db):
    with db.read_session() as session:
        return (repo.load_character(session), repo.list_facts(session),
                repo.list_sessions(session), repo.recent_turns(session, 1000))


def exported_file(tmp_path, service):
    fill(service)
    widget = DataPage(service, lambda: T0)
    path = tmp_path / "save.json"
    widget.choose_export_path = lambda: path
    widget.export()
    widget.deleteLater()
    return path


def test_export_writes_the_file_and_says_what(page, service, tmp_path):
    fill(service)
    target = tmp_path / "out" / "save.json"
    target.parent.mkdir()
    page.choose_export_path = lambda: target
    summary = page.export()
    data = json.loads(target.read_text(encoding="utf-8"))
    assert data["version"] == "2.0"
    assert [f["content"] for f in data["data"]["facts"]] == [CAT, HIKE]
    assert summary.counts["facts"] == 2
    text = page.export_status.text()
    assert str(target) in text and "2 memories" in text and "1 session" in text
    assert "1 message" in text and "her state" in text


def test_export_cancelled_writes_nothing(page, tmp_path):
    page.choose_export_path = lambda: None
    assert page.export() is None
    assert page.export_status.isHidden()


def test_export_failure_is_shown(page, tmp_path):
    page.choose_export_path = lambda: tmp_path / "missing-folder" / "save.json"
    assert page.export() is None
    assert page.export_status.text().startswith("✗")


def test_a_refused_file_shows_the_reason_and_changes_nothing(page, service, tmp_path):
    fill(service)
    before = snapshot(service.db)
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "2.0", "data": {"facts": [{"content": "x", "category": "pets",'
                   ' "importance": 50, "confidence": 0.8, "createdAt": "2026-01-01"}]}}',
                   encoding="utf-8")
    asked = []
    page.choose_import_path = lambda: bad
    page.ask_mode = lambda path, counts: asked.append(counts) or "replace"
    assert page.import_() is False
    assert asked == []  # refused before any question
    text = page.import_status.text()
    assert "bad.json was not imported" in text and "category" in text
    assert snapshot(service.db) == before
    bad.write_text("{not json", encoding="utf-8")
    assert page.import_() is False
    assert "not valid JSON" in page.import_status.text()
    assert snapshot(service.db) == before


def test_cancelling_the_confirmation_changes_nothing(page, service, tmp_path):
    path = exported_file(tmp_path, service)
    with service.db.session() as session:
        repo.add_fact(session, "Only here.", "user", T0)
    before = snapshot(service.db)
    page.choose_import_path = lambda: path
    page.ask_mode = lambda p, counts: None
    assert page.import_() is False
    assert "nothing changed" in page.import_status.text()
    assert snapshot(service.db) == before


def test_import_replace_runs_in_the_background_then_asks_for_a_rebuild(qtbot, tmp_path):
    source = CompanionService(Database.open(tmp_path / "source"))
    path = exported_file(tmp_path, source)
    source.db.close()
    target = Database.open(tmp_path / "target")
    try:
        service = CompanionService(target)
        with target.session() as session:
            repo.add_fact(session, "Only here.", "user", T0)
        facts = FactService(target, ScriptedEmbedder({CAT: axis(0), HIKE: axis(1)}))
        page = DataPage(service, lambda: T0, facts=facts)
        qtbot.addWidget(page)
        questions = []
        page.choose_import_path = lambda: path
        page.ask_mode = lambda p, counts: questions.append((p, counts)) or "replace"
        with qtbot.waitSignal(page.rebuild_requested, timeout=WAIT_MS):
            assert page.import_() is True
            assert page.busy_now and not page.import_button.isEnabled()
        assert questions == [(path, {"character": 1, "relationship": 1, "facts": 2,
                                     "sessions": 1, "turns": 1, "completed_events": 0})]
        assert not page.busy_now and page.import_button.isEnabled()
        assert [f.content for f in facts.list()] == [CAT, HIKE]
        assert all(not f.has_embedding for f in facts.list())  # stripped: the backfill's job
        text = page.import_status.text()
        assert "Imported (replace)" in text and "2 memories" in text
        assert "rebuilt in the background" in text
        assert facts.stale_count() == 2
        facts.backfill_all()
        assert len(facts.index) == 2
    finally:
        target.close()


def test_import_merge_skips_what_is_here(qtbot, service, tmp_path):
    path = exported_file(tmp_path, service)
    page = DataPage(service, lambda: T0, facts=FactService(service.db))
    qtbot.addWidget(page)
    page.choose_import_path = lambda: path
    page.ask_mode = lambda p, counts: "merge"
    with qtbot.waitSignal(page.imported, timeout=WAIT_MS) as signal:
        page.import_()
    summary = signal.args[0]
    assert summary.mode == "merge" and summary.imported["facts"] == 0
    assert "already here (skipped)" in page.import_status.text()
    assert len(FactService(service.db).list()) == 2


def test_describe_counts():
    assert describe_counts({"facts": 1, "sessions": 0, "turns": 2}) == "1 memory, 2 messages"
    assert describe_counts({}) == "nothing"
