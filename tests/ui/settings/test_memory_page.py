"""Settings > Memory over a real database: facts tab, graph, sessions, parser test, status."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtCore import Qt

from companion_desktop.pipeline.facts import EmbeddingStatus, FactService
from companion_desktop.storage import repository as repo
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.settings.dialog import PAGES
from companion_desktop.ui.settings.memory.page import MERGED, MemoryPage, status_text
from tests.conftest import T0
from tests.memory.vector_helpers import ScriptedEmbedder, at_similarity, axis

pytestmark = pytest.mark.qt

CAT = "User has a cat named Miso."
HIKE = "User loves hiking in the Alps."
DOG = "User wants a dog like Miso the cat."


@pytest.fixture
def facts(service):
    return FactService(service.db)


@pytest.fixture
def page(qtbot, service, facts):
    widget = MemoryPage(service, lambda: T0, facts=facts)
    qtbot.addWidget(widget)
    widget.resize(760, 620)
    widget.show()
    return widget


def table_texts(page):
    table = page.facts_tab.table
    return [table.item(row, 0).text() for row in range(table.rowCount())]


def add_via_tab(page, content, category="user"):
    page.facts_tab.ask_fact = lambda title, text, cat: (content, category)
    page.facts_tab.add()


def db_facts(service):
    with service.db.read_session() as session:
        return repo.list_facts(session)


# ------------------------------------------------------------------------- facts tab


def test_add_shows_the_fact_and_merges_a_repeat(page, service):
    page.show_tab("Facts")
    add_via_tab(page, CAT)
    assert table_texts(page) == [CAT]
    assert "added" in page.facts_tab.message.text()
    assert page.facts_tab.selected_id() == db_facts(service)[0].id
    add_via_tab(page, "user has a cat named miso")
    assert page.facts_tab.message.text().startswith(MERGED)
    assert table_texts(page) == [CAT]
    table = page.facts_tab.table
    assert table.item(0, 3).data(Qt.ItemDataRole.DisplayRole) == 1  # referenced once more
    assert table.item(0, 1).text() == "About you"


def test_a_cancelled_or_refused_add_writes_nothing(page, service):
    page.facts_tab.ask_fact = lambda *args: None
    page.facts_tab.add()
    add_via_tab(page, "   ")
    assert "needs some words" in page.facts_tab.message.text()
    assert db_facts(service) == []


def test_edit_goes_through_the_service(page, service):
    add_via_tab(page, CAT)
    seen = []

    def ask(title, content, category):
        seen.append((title, content, category))
        return "User has two cats.", "relationship"

    page.facts_tab.ask_fact = ask
    page.facts_tab.table.selectRow(0)
    page.facts_tab.edit_selected()
    assert seen == [("Edit memory", CAT, "user")]
    [fact] = db_facts(service)
    assert (fact.content, fact.category) == ("User has two cats.", "relationship")
    assert table_texts(page) == ["User has two cats."]


def test_delete_asks_first(page, service):
    add_via_tab(page, CAT)
    add_via_tab(page, HIKE)
    questions = []
    page.facts_tab.confirm = lambda text: questions.append(text) or False
    page.facts_tab.table.selectRow(table_texts(page).index(HIKE))
    page.facts_tab.delete_selected()
    assert len(db_facts(service)) == 2
    assert HIKE in questions[0]
    page.facts_tab.confirm = lambda text: True
    page.facts_tab.delete_selected()
    assert [f.content for f in db_facts(service)] == [CAT]
    assert table_texts(page) == [CAT]
    assert not page.facts_tab.delete_button.isEnabled()


def test_search_box_and_category_filter(page):
    add_via_tab(page, CAT)
    add_via_tab(page, HIKE)
    add_via_tab(page, "We adopted Miso together.", "shared_experience")
    page.facts_tab.search.setText("miso")
    assert sorted(table_texts(page)) == [CAT, "We adopted Miso together."]
    combo = page.facts_tab.category
    combo.setCurrentIndex(combo.findData("shared_experience"))
    assert table_texts(page) == ["We adopted Miso together."]
    page.facts_tab.search.clear()
    combo.setCurrentIndex(0)
    assert len(table_texts(page)) == 3
    assert page.facts_tab.count.text() == "3 memories"


def test_embedding_column_names_the_model(qtbot, service):
    facts = FactService(service.db, ScriptedEmbedder({CAT: axis(0)}))
    widget = MemoryPage(service, lambda: T0, facts=facts)
    qtbot.addWidget(widget)
    add_via_tab(widget, CAT)
    assert widget.facts_tab.table.item(0, 4).text() == "scripted"


# ----------------------------------------------------------------------------- graph


def test_graph_draws_a_node_per_fact_linked_by_shared_words(page):
    for content in (CAT, HIKE, DOG):
        add_via_tab(page, content)
    page.show_tab("Graph")
    view = page.graph.view
    assert sorted(n.fact.content for n in view.nodes) == sorted([CAT, HIKE, DOG])
    linked = {frozenset((view.nodes[e.a].fact.content, view.nodes[e.b].fact.content))
              for e in view.edges}
    assert linked == {frozenset((CAT, DOG))}  # "miso", "cat"; hiking shares nothing
    assert "3 memories · 1 link by shared words" in page.graph.summary.text()
    assert CAT in view.nodes[0].toolTip() or CAT in [n.toolTip().split("\n")[0]
                                                      for n in view.nodes]


def test_graph_links_by_similarity_when_facts_have_vectors(qtbot, service):
    embedder = ScriptedEmbedder({CAT: axis(0), DOG: at_similarity(0.6, other=7), HIKE: axis(1)})
    facts = FactService(service.db, embedder)
    for content in (CAT, HIKE, DOG):
        facts.add(content, "user", T0)
    widget = MemoryPage(service, lambda: T0, facts=facts)
    qtbot.addWidget(widget)
    view = widget.graph.view
    assert len(view.nodes) == 3
    [edge] = view.edges
    assert {view.nodes[edge.a].fact.content, view.nodes[edge.b].fact.content} == {CAT, DOG}
    assert edge.weight == pytest.approx(0.6, abs=1e-4)
    assert "by similar meaning" in widget.graph.summary.text()


def test_graph_hover_names_the_fact_and_wheel_zooms(page, qtbot):
    add_via_tab(page, CAT)
    page.show_tab("Graph")
    view = page.graph.view
    node = view.nodes[0]
    view.hover(node, True)
    assert page.graph.info.text().startswith(CAT)
    view.hover(node, False)
    before = view.zoom
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent

    event = QWheelEvent(QPointF(50, 50), QPointF(50, 50), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    view.wheelEvent(event)
    assert view.zoom == pytest.approx(min(6.0, before * 1.15**2))


def test_graph_waits_for_its_tab(page):
    page.show_tab("Facts")
    add_via_tab(page, CAT)
    assert page.graph.view.nodes == []
    page.show_tab("Graph")
    assert len(page.graph.view.nodes) == 1


# -------------------------------------------------------------------------- sessions


def test_sessions_tab_lists_this_runs_turns_and_past_summaries(qtbot, service):
    with service.db.session() as session:
        old = repo.add_session(session, T0 - timedelta(days=2), ended_at=T0 - timedelta(days=2),
                               summary="Talked about tea and rain", key_topics=["tea", "rain"],
                               message_count=4)
        repo.add_turn(session, old, "user", "Old message", T0 - timedelta(days=2))
        current = repo.start_session(session, T0)
        repo.add_turn(session, current, "user", "Hi there!", T0)
        repo.add_turn(session, current, "assistant", "Hello, you!", T0 + timedelta(seconds=3))
    widget = MemoryPage(service, lambda: T0, facts=FactService(service.db))
    qtbot.addWidget(widget)
    tab = widget.sessions_tab
    text = tab.turns.toPlainText()
    assert "You: Hi there!" in text and "Her: Hello, you!" in text
    assert "Old message" not in text
    assert tab.table.rowCount() == 1
    cells = [tab.table.item(0, c).text() for c in range(4)]
    assert cells[0] == (T0 - timedelta(days=2)).astimezone().strftime("%Y-%m-%d %H:%M")
    assert cells[1:] == ["4", "tea, rain", "Talked about tea and rain"]


def test_sessions_tab_takes_the_session_it_is_given(qtbot, service):
    with service.db.session() as session:
        first = repo.start_session(session, T0)
        repo.add_turn(session, first, "user", "From the first run", T0)
        repo.start_session(session, T0 + timedelta(hours=1))
    widget = MemoryPage(service, lambda: T0, facts=FactService(service.db),
                        current_session=lambda: first)
    qtbot.addWidget(widget)
    assert "From the first run" in widget.sessions_tab.turns.toPlainText()
    assert widget.sessions_tab.table.rowCount() == 1


# ------------------------------------------------------------------ settings/advanced


def test_parser_test_shows_the_parse_and_saves_nothing(page, service):
    service.load(T0)  # she exists, so her state shows
    page.advanced_tab.reload()
    assert '"relationshipStage"' in page.advanced_tab.state.toPlainText()
    with service.db.read_session() as session:
        before = (repo.load_character(session), repo.list_facts(session),
                  repo.recent_turns(session))
    page.advanced_tab.sample.setPlainText(
        'Oh, a hike? Fun!\n```json\n{"affection_delta": 99, "new_memory": "User hikes.",'
        ' "mood_change": {"emotion": "happy", "intensity_delta": 5}}\n```')
    shown = page.advanced_tab.parse()
    assert shown["visible text"] == "Oh, a hike? Fun!"
    assert shown["JSON block found"]["affection_delta"] == 99
    suggestion = shown["what the app would apply"]
    assert suggestion["new_memory"] == "User hikes."
    assert suggestion["affection_delta"] < 99  # bounded by the sanitizer
    text = page.advanced_tab.result.toPlainText()
    assert "Oh, a hike? Fun!" in text and '"affection_delta": 99' in text
    with service.db.read_session() as session:
        after = (repo.load_character(session), repo.list_facts(session),
                 repo.recent_turns(session))
    assert after == before


def test_parser_test_without_a_block(page):
    page.advanced_tab.sample.setPlainText("Just words.")
    shown = page.advanced_tab.parse()
    assert shown["JSON block found"] is None
    assert "JSON block found:\nnone" in page.advanced_tab.result.toPlainText()


def test_the_data_link_opens_the_data_page(qtbot, service):
    dialog = SettingsDialog(service, lambda: T0, page="Memory")
    qtbot.addWidget(dialog)
    assert dialog.nav.currentItem().text() == "Memory"
    dialog.memory.show_tab("Settings")
    dialog.memory.advanced_tab.data_button.click()
    assert dialog.nav.currentItem().text() == "Data"
    assert dialog.stack.currentIndex() == PAGES.index("Data")


def test_saving_the_dialog_with_memory_and_data_pages(qtbot, service):
    dialog = SettingsDialog(service, lambda: T0)
    qtbot.addWidget(dialog)
    assert dialog.save() is True


# ---------------------------------------------------------------------- status line


def test_status_line_names_the_model_and_progress(page, facts):
    assert page.status.text() == "Memory model: not loaded (keyword search)"
    facts.mark_loading("sentence-transformers/all-MiniLM-L6-v2")
    page.refresh_status()
    assert page.status.text() == "Memory model: all-MiniLM-L6-v2 (loading…)"
    facts.mark_unavailable("sentence-transformers/all-MiniLM-L6-v2", "no torch")
    page.refresh_status()
    assert page.status.text() == "Memory model: all-MiniLM-L6-v2 (not available: keyword search)"
    assert page.status.toolTip() == "no torch"
    ready = EmbeddingStatus("ready", "sentence-transformers/all-MiniLM-L6-v2", "", 120, 500)
    assert status_text(ready) == "Memory model: all-MiniLM-L6-v2 (ready) · Re-embedding 120/500"


def test_status_follows_a_running_backfill(page, service, facts):
    for content in (CAT, HIKE):
        facts.add(content, "user", T0)
    facts.set_embedder(ScriptedEmbedder({CAT: axis(0), HIKE: axis(1)}))
    facts.backfill_step(batch=1)
    page.refresh_status()
    assert page.status.text() == "Memory model: scripted (ready) · Re-embedding 1/2"
    facts.backfill_step(batch=1)
    page.refresh_status()
    assert page.status.text() == "Memory model: scripted (ready)"
