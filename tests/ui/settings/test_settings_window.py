"""The Settings window over a real database and a provider server on 127.0.0.1."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from companion_desktop.llm import keys
from companion_desktop.storage.settings import LlmSettings, RelationshipSettings, load_settings
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.settings.llm_page import SAVED_KEY, WINDOW_STOPS_K
from tests.conftest import T0

pytestmark = pytest.mark.qt

WAIT_MS = 8000


@pytest.fixture
def dialog(qtbot, service):
    dlg = SettingsDialog(service, lambda: T0)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    return dlg


def llm_settings(service) -> LlmSettings:
    with service.db.read_session() as session:
        return load_settings(session, LlmSettings)


def choose_provider(page, provider_id: str) -> None:
    page.provider.setCurrentIndex(page.provider.findData(provider_id))


def test_defaults_are_shown(dialog):
    page = dialog.llm
    assert page.window_label.text() == "8k tokens" and page.context_window == 8192
    assert page.scaling.isChecked()
    choose_provider(page, "ollama")
    assert page.base_url.text() == "http://127.0.0.1:11434/v1"  # the preset


def test_llm_page_lists_models_tests_and_saves(dialog, server, service, qtbot):
    page = dialog.llm
    choose_provider(page, "openai-compatible")
    page.base_url.setText(server.base_url)
    qtbot.mouseClick(page.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.count() == 2, timeout=WAIT_MS)
    assert "Found 2 models" in page.models_status.text()
    page.model.setCurrentIndex(page.model.findText("warm-model"))

    qtbot.mouseClick(page.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.test_result.text().startswith("✓"), timeout=WAIT_MS)
    assert "warm-model" in page.test_result.text()

    page.window_slider.setValue(WINDOW_STOPS_K.index(32))
    assert page.window_label.text() == "32k tokens"
    assert "20 messages" in page.budget_hint.text()
    page.scaling.click()
    assert not page.scaling.isChecked()

    saved = []
    dialog.saved.connect(lambda: saved.append(True))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert saved == [True] and not dialog.isVisible()
    settings = llm_settings(service)
    assert (settings.provider, settings.base_url, settings.model) == (
        "openai-compatible", server.base_url, "warm-model")
    assert settings.context_window == 32 * 1024 and settings.context_scaling is False


def test_connection_failure_is_shown_inline(dialog, server, qtbot):
    page = dialog.llm
    choose_provider(page, "openai-compatible")
    page.base_url.setText(server.root + "/nowhere/v1")
    qtbot.mouseClick(page.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.test_result.text().startswith("✗"), timeout=WAIT_MS)
    assert page.test_result.property("kind") == "error"
    assert page.test_button.isEnabled()


def test_a_typed_key_goes_to_the_keyring_and_is_never_shown(dialog, service, memory_keyring, qtbot):
    page = dialog.llm
    choose_provider(page, "openai")
    assert SAVED_KEY not in page.key_state.text()
    qtbot.keyClicks(page.key, "sk-test-1234567890")
    page.model.setEditText("gpt-test")
    assert dialog.save()
    assert memory_keyring.store == {(keys.SERVICE, "openai"): "sk-test-1234567890"}
    assert llm_settings(service).provider == "openai"

    again = SettingsDialog(service, lambda: T0)
    qtbot.addWidget(again)
    assert again.llm.key.text() == "" and again.llm.key_state.text() == SAVED_KEY
    texts = [w.text() for w in again.findChildren(QLabel) + again.findChildren(QLineEdit)]
    assert not any("sk-test" in t for t in texts)
    assert again.save()  # nothing typed: the stored key stays as it was
    assert memory_keyring.store == {(keys.SERVICE, "openai"): "sk-test-1234567890"}


def test_without_a_keyring_the_key_problem_is_shown(dialog, service):
    page = dialog.llm
    choose_provider(page, "openai")
    page.key.setText("sk-nowhere-to-go")
    assert not dialog.save()
    assert "keyring" in dialog.problem.text() and dialog.isVisible()
    assert llm_settings(service).provider is None


def test_the_key_field_follows_the_provider_the_keyring_and_the_environment(
        dialog, memory_keyring, monkeypatch):
    page = dialog.llm
    assert page.key_state.text() == "" and not page.forget_key.isVisibleTo(page)  # none chosen
    choose_provider(page, "ollama")
    assert page.key_state.text() == "Optional for this provider."
    memory_keyring.store[(keys.SERVICE, "openai")] = "sk-saved-earlier"
    choose_provider(page, "openai")
    assert page.key_state.text() == SAVED_KEY and page.forget_key.isVisibleTo(page)
    assert page.key.placeholderText() == "type a new key to replace it"
    assert page.config().api_key == "sk-saved-earlier"
    page.key.setText(" sk-typed ")
    assert page.config().api_key == "sk-typed"  # what is typed wins, stripped
    page.forget_key.click()
    assert memory_keyring.store == {} and not page.forget_key.isVisibleTo(page)
    assert page.key_state.text().startswith("Needed:") and page.key.placeholderText() == "API key"
    monkeypatch.setenv(keys.ENV_VAR, "sk-from-env")
    choose_provider(page, "anthropic")
    assert page.key_state.text() == f"Using the key from {keys.ENV_VAR}."
    assert not page.forget_key.isVisibleTo(page)


def test_forgetting_a_key_without_a_keyring_says_why(dialog):
    page = dialog.llm
    choose_provider(page, "openai")
    page.key_field.forget()
    assert page.key_state.text() == keys.NO_KEYRING


def test_character_page_saves_name_persona_mode_and_tracking(dialog, service):
    page = dialog.character
    dialog.show_page("Character")
    assert dialog.stack.currentIndex() == 1
    assert page.name.text() == "Hana" and page.mode_buttons["dating_sim"].isChecked()
    page.name.setText("Mika")
    page.prompt.setPlainText("You are Mika, a calm night owl who loves astronomy.")
    page.mode_buttons["companion"].setChecked(True)
    page.tracking.setChecked(False)
    assert dialog.save()
    state = service.load(T0).state
    assert (state.name, state.app_mode) == ("Mika", "companion")
    assert state.relationship_stage == "companion"
    assert state.system_prompt.startswith("You are Mika")
    with service.db.read_session() as session:
        assert load_settings(session, RelationshipSettings).tracking_enabled is False


def test_an_empty_name_is_refused(dialog, service):
    dialog.character.name.setText("  ")
    assert not dialog.save()
    assert "name" in dialog.problem.text() and dialog.stack.currentIndex() == 1
    assert service.load(T0).state.name == "Hana"


def test_display_page_saves_mood_faces_and_frame_rate(qtbot, service):
    from companion_desktop.storage.settings import AvatarSettings, DisplaySettings, load_settings
    from companion_desktop.ui.settings import SettingsDialog

    dialog = SettingsDialog(service, lambda: T0, page="Display")
    qtbot.addWidget(dialog)
    assert dialog.display.yield_cpu.isChecked()  # other programs go first by default
    dialog.display.mood_faces.setChecked(False)
    dialog.display.yield_cpu.setChecked(False)
    dialog.display.fps.setValue(24)
    assert dialog.save()
    with service.db.read_session() as session:
        assert load_settings(session, DisplaySettings).mood_expressions is False
        assert load_settings(session, DisplaySettings).yield_cpu is False
        assert load_settings(session, AvatarSettings).fps == 24


def test_desktop_page_holds_life_on_the_desktop_and_saves_from_the_dialog(qtbot, service):
    from companion_desktop.storage.settings import (
        HotkeySettings,
        ProactiveSettings,
        WalkingSettings,
        load_settings,
    )
    from companion_desktop.ui.settings import SettingsDialog
    from companion_desktop.ui.settings.dialog import PAGES

    dialog = SettingsDialog(service, lambda: T0, page="Desktop")
    qtbot.addWidget(dialog)
    assert dialog.nav.currentItem().text() == "Desktop"
    assert dialog.stack.currentWidget().widget().findChild(type(dialog.desktop)) is dialog.desktop
    assert not hasattr(dialog.display, "hotkeys")  # the Display page is only about her look
    dialog.show()
    qtbot.waitExposed(dialog)
    for row in range(len(PAGES)):  # every page fits the window's width: no sideways scrolling
        dialog.show_page(PAGES[row])
        qtbot.wait(20)
        assert not dialog.stack.currentWidget().horizontalScrollBar().isVisible(), PAGES[row]
    dialog.desktop.walking.enabled.setChecked(False)
    dialog.desktop.hotkeys.enabled.setChecked(True)
    dialog.desktop.proactive.cap.setValue(2)
    assert dialog.save()
    with service.db.read_session() as session:
        assert load_settings(session, WalkingSettings).enabled is False
        assert load_settings(session, HotkeySettings).enabled is True
        assert load_settings(session, ProactiveSettings).daily_cap == 2
