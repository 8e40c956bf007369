"""The main window over a real database, driven as a user would."""

from __future__ import annotations

from datetime import timedelta

import pytest

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from tests.conftest import T0

pytestmark = pytest.mark.qt


@pytest.fixture
def service(tmp_path):
    db = Database.open(tmp_path / "data")
    yield CompanionService(db)
    db.close()


@pytest.fixture
def window(qtbot, service):
    from companion_desktop.ui.main_window import MainWindow

    win = MainWindow(service, lambda: T0)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_window_shows_her_state(window):
    panel = window.panel
    assert panel.name.text() == "Hana"
    assert panel.stage.text() == "Stranger"
    assert panel.bars["energy"].value() == 100
    assert panel.bars["affection"].isVisible()
    assert "Level: Stranger" in window.card.toPlainText()
    assert window.mode_buttons["dating_sim"].isChecked()


def test_mode_switch_from_the_window_is_saved(window, service, qtbot):
    window.mode_buttons["companion"].click()
    assert service.load(T0).state.app_mode == "companion"
    assert window.panel.stage.text() == "Companion"
    assert not window.panel.bars["affection"].isVisible()
    assert window.panel.bars["energy"].isVisible()
    window.mode_buttons["dating_sim"].click()
    assert service.load(T0).state.relationship_stage == "stranger"


def test_refresh_resolves_decay(window, service):
    with service.db.session() as session:
        state = repository.load_character(session)
        state.energy, state.last_interaction = 10, T0 - timedelta(hours=3)
        repository.save_character(session, state)
    window.refresh()
    assert window.panel.bars["energy"].value() == 10 + 45  # floor(90 * 3 / 6)


def test_window_screenshot(window, tmp_path):
    path = tmp_path / "main.png"
    assert window.grab().save(str(path))
    assert path.stat().st_size > 5000


def test_locked_database_is_shown_not_raised(qtbot, tmp_path):
    import sqlite3

    from companion_desktop.ui.main_window import MainWindow

    db = Database.open(tmp_path / "quick", busy_timeout=0.2)
    window = MainWindow(CompanionService(db), lambda: T0)
    qtbot.addWidget(window)
    holder = sqlite3.connect(db.path, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        window.mode_buttons["companion"].click()
        message = window.statusBar().currentMessage()
    finally:
        holder.rollback()
        holder.close()
    assert "in use" in message
    window.refresh()
    assert window.statusBar().currentMessage() == ""
    db.close()
