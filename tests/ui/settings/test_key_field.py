"""The API-key field refuses a key that cannot be one, at once and on Save, and keeps
it in the field to fix; the speech page names its own environment variable."""

from __future__ import annotations

import pytest

from companion_desktop.llm import keys
from companion_desktop.storage.settings import LlmSettings, load_settings
from companion_desktop.ui.settings.key_field import SAVED_KEY, KeyField
from tests.ui.settings.test_settings_window import dialog  # noqa: F401 - the Settings window fixture

pytestmark = pytest.mark.qt

BAD_KEYS = [
    ("sk-abc def-123", "a space or line break"),
    ("sk-abc\x1b[2Jdef", "control character"),
    ("sk-abc\u202edef", "control character"),
    ("sk-" + "x" * 5000, "5003 characters long"),
]


@pytest.mark.parametrize(("key", "words"), BAD_KEYS)
def test_the_llm_page_refuses_a_bad_key_and_stores_nothing(dialog, service, memory_keyring,
                                                          key, words):
    page = dialog.llm
    page.provider.setCurrentIndex(page.provider.findData("openai"))
    page.key.setText(key)
    assert words in page.key_state.text()  # said while typing
    assert page.key_state.property("kind") == "error"
    assert not dialog.save()
    assert words in dialog.problem.text() and key not in dialog.problem.text()
    assert memory_keyring.store == {}
    with service.db.read_session() as session:
        assert load_settings(session, LlmSettings).provider is None  # nothing half saved
    assert page.key.text() == key  # kept to fix
    page.key.setText("sk-good-key-0123456789")
    assert page.key_state.property("kind") == "" and "Needed" in page.key_state.text()
    assert dialog.save()
    assert memory_keyring.store == {(keys.SERVICE, "openai"): "sk-good-key-0123456789"}


def test_the_voice_page_refuses_a_bad_key(dialog, memory_keyring, qtbot):
    page = dialog.voice
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.base_url.setText("http://127.0.0.1:9/v1")
    page.key.setText("sk-speech\nkey")
    assert "line break" in page.key_state.text()
    assert not dialog.save()
    assert dialog.problem.text().startswith("Voice: The API key has a space or line break")
    assert memory_keyring.store == {}


def test_storing_a_bad_key_directly_raises_and_keeps_it(qtbot, memory_keyring):
    field = KeyField(lambda: "openai", lambda saved: SAVED_KEY if saved else "none",
                     "apiKey")
    qtbot.addWidget(field)
    field.key.setText("sk-with space")
    with pytest.raises(keys.InvalidKeyError):
        field.store()
    assert field.key.text() == "sk-with space" and memory_keyring.store == {}


def test_the_voice_key_names_its_own_variable(dialog, monkeypatch, memory_keyring):
    monkeypatch.setenv(keys.ENV_VAR, "sk-chat-only")
    page = dialog.voice
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.key_field.refresh()
    assert page.key_state.text() != SAVED_KEY  # the chat key is not the voice's
    monkeypatch.setenv(keys.TTS_ENV_VAR, "sk-speech")
    page.key_field.refresh()
    assert page.key_state.text() == "Using the key from COMPANION_TTS_API_KEY."
    assert not page.forget_key.isVisibleTo(page)
