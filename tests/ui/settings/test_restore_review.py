"""After a restore, in Settings: an address the backup brought gets no stored key until
the user confirms it there; a tool server it brought runs only once the user, shown its
command, says yes; a damaged archive is listed as damaged."""

from __future__ import annotations

import json
import zipfile

import pytest
from PySide6.QtCore import Qt

from companion_desktop.llm import keys
from companion_desktop.llm.tts import TtsError
from companion_desktop.storage import backup
from companion_desktop.storage.settings import (
    LlmSettings,
    McpServerEntry,
    McpSettings,
    VoiceSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.settings.data_backups import DAMAGED, BackupsSection
from companion_desktop.ui.settings.tools.page import McpPage
from companion_desktop.ui.settings.voice.page import VoicePage
from companion_desktop.ui.voice.avatar_link import tts_factory
from tests.conftest import T0
from tests.ui.settings.test_voice_page import KEY, SpeechServer

pytestmark = pytest.mark.qt
WAIT_MS = 8000
LLM_KEY = "sk-mine-0123456789"


def save(service, *sections) -> None:  # noqa: ANN001, ANN002
    with service.db.session() as session:
        for section in sections:
            save_settings(session, section)


def loaded(service, model):  # noqa: ANN001, ANN201
    with service.db.read_session() as session:
        return load_settings(session, model)


def test_the_llm_page_sends_no_stored_key_to_a_restored_address_until_confirmed(
        qtbot, service, server, memory_keyring):
    memory_keyring.store[(keys.SERVICE, "openai-compatible")] = LLM_KEY
    save(service, LlmSettings(provider="openai-compatible", base_url=server.base_url,
                              model="tiny-model", unconfirmed_url=server.base_url))
    dialog = SettingsDialog(service, lambda: T0)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    page = dialog.llm
    notice = page.held_notice
    assert notice.isVisibleTo(page) and server.base_url in notice.text.text()
    assert page.config().api_key is None
    qtbot.mouseClick(page.refresh_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.model.count() == 2, timeout=WAIT_MS)
    listed = server.server.requests_to("/v1/models")
    assert listed and "authorization" not in listed[-1].headers

    page.base_url.setText(server.base_url + "/")  # another address: not the held one
    assert not notice.isVisibleTo(page)
    page.base_url.setText(server.base_url)
    assert notice.isVisibleTo(page)
    qtbot.mouseClick(notice.button, Qt.MouseButton.LeftButton)
    assert not notice.isVisibleTo(page)
    assert loaded(service, LlmSettings).unconfirmed_url is None
    assert page.config().api_key == LLM_KEY
    dialog.accept()  # saving the page keeps it confirmed
    assert loaded(service, LlmSettings).unconfirmed_url is None


def test_the_voice_page_and_her_voice_wait_for_the_confirmation(
        qtbot, service, memory_keyring):
    memory_keyring.store[(keys.SERVICE, "voice")] = KEY
    speech = SpeechServer()
    try:
        url = speech.base_url
        save(service, VoiceSettings(enabled=True, backend="openai", base_url=url,
                                    unconfirmed_url=url))
        with pytest.raises(TtsError, match="Your key is not sent there"):
            tts_factory(service)()
        page = VoicePage(service)
        qtbot.addWidget(page)
        page.show()
        qtbot.waitExposed(page)
        qtbot.waitUntil(lambda: any(p == "/v1/audio/voices" for p, _, _ in speech.requests),
                        timeout=WAIT_MS)
        assert page.held_notice.isVisibleTo(page)
        assert [auth for p, auth, _ in speech.requests if p == "/v1/audio/voices"] == [""]
        qtbot.mouseClick(page.held_notice.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: any(auth == f"Bearer {KEY}" for _, auth, _ in speech.requests),
                        timeout=WAIT_MS)
        assert tts_factory(service)() is not None
        page.backend.setCurrentIndex(page.backend.findData("espeak"))
        assert not page.held_notice.isVisibleTo(page)
    finally:
        speech.close()


def test_a_restored_tool_server_runs_only_after_a_yes(qtbot, service, tmp_path):
    ran = tmp_path / "ran"
    save(service, McpSettings(servers=[McpServerEntry(
        name="helper", command="sh", args=["-c", f"touch {ran}"], enabled=False,
        restored_off=True)]))
    page = McpPage(service)
    qtbot.addWidget(page)
    page.show()
    asked: list[str] = []
    page.trust = lambda text: asked.append(text) or False
    row = page.row(0)
    assert "turned off by a restore" in row.kind.text()
    row.enabled.setChecked(True)
    assert not row.enabled.isChecked() and page.drafts[0].entry.enabled is False
    assert f"sh -c touch {ran}" in asked[0]
    page.list_tools()  # listing runs the program: asked first, and refused
    qtbot.wait(300)
    assert len(asked) == 2 and not ran.exists()

    page.trust = lambda text: asked.append(text) or True
    row.enabled.setChecked(True)
    assert row.enabled.isChecked() and "turned off by a restore" not in row.kind.text()
    page.apply()
    (server,) = loaded(service, McpSettings).servers
    assert (server.enabled, server.restored_off) == (True, False)


def test_a_damaged_archive_is_listed_as_damaged_with_no_restore(qtbot, service):
    folder = backup.backup_dir(service.db.path.parent)
    folder.mkdir()
    with zipfile.ZipFile(folder / "companion-odd.zip", "w") as archive:
        archive.writestr("manifest.json", json.dumps({
            "format": "companion-desktop-backup", "format_version": 1, "files": [],
            "created_at": "9999-12-31T23:59:59+00:00"}))
    section = BackupsSection(service.db.path.parent, lambda: T0)
    qtbot.addWidget(section)
    section.show()
    (button,) = section.restore_buttons()
    assert section.table.item(0, 1).text() == DAMAGED and not button.isEnabled()
    assert "not a real date" in section.table.item(0, 1).toolTip()
    section._busy(True)
    section._busy(False)
    assert not button.isEnabled()
