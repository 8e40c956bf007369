"""Settings > Voice > Hearing, and her hearing's faults in the chat window: no microphone
(this machine has none), a source that fails, a server that refuses; typing goes on."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError
from PySide6.QtCore import Qt

from companion_desktop.llm import keys
from companion_desktop.storage.settings import (
    HEARING_KEY_ID,
    HearingSettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.settings.llm_page import SettingsProblem
from companion_desktop.ui.voice.mic import NO_MICROPHONE, microphones
from tests.llm.provider_server import JsonReply, ProviderServer
from tests.llm.wire_formats import openai_error
from tests.ui.scripted_provider import Script
from tests.ui.voice.hearing_fixtures import (  # noqa: F401 - fixture
    SAY,
    listen_to_file,
    model_cache,
    needs_voice,
    save_hearing,
    silence,
    spoken,
)

pytestmark = [pytest.mark.qt, pytest.mark.skipif(not os.environ.get("DISPLAY"),
                                                 reason="needs an X display (Xvfb)")]


def stored(service) -> HearingSettings:  # noqa: ANN001
    with service.db.read_session() as session:
        return load_settings(session, HearingSettings)


def test_hearing_settings_round_trip_and_refuse_bad_values(service):
    assert stored(service) == HearingSettings()
    assert (HearingSettings().mode, HearingSettings().silence_s, HearingSettings().ptt_key) \
        == ("off", 0.7, "F9")
    chosen = HearingSettings(mode="hands_free", device_id="ab12", sensitivity=0.8,
                             silence_s=1.2, max_s=12, backend="server",
                             base_url="http://127.0.0.1:9/v1", model="whisper-x", language="de",
                             ptt_key="F8")
    with service.db.session() as session:
        save_settings(session, chosen)
    assert stored(service) == chosen
    for bad in ({"mode": "always"}, {"sensitivity": 1.5}, {"silence_s": 0}, {"language": "german"}):
        with pytest.raises(ValidationError):
            HearingSettings(**bad)


@pytest.fixture
def section(qtbot, service):
    from companion_desktop.ui.settings.voice.hearing_section import HearingSection

    widget = HearingSection(service)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget.stop_meter()


def test_the_section_without_a_microphone_says_so_and_still_saves(section, service, tmp_path):
    assert microphones() == []  # Xvfb: no audio input at all
    assert not section.device.isEnabled() and section.device.currentText() == "No microphone found"
    assert section.mic_status.text() == NO_MICROPHONE and section.mic_status.isVisible()
    assert section.meter_source is None and not section.meter.isVisible()
    section.mode.setCurrentIndex(section.mode.findData("push_to_talk"))
    section.silence.setValue(1.0)
    section.language.setCurrentIndex(section.language.findData("en"))
    section.check()
    section.apply()
    saved = stored(service)
    assert (saved.mode, saved.silence_s, saved.language) == ("push_to_talk", 1.0, "en")
    assert section.grab().save(str(tmp_path / "hearing.png"))


def test_each_option_says_what_it_does(section):
    hints = {name: label.text() for name, label in section.hints.items() if label.isVisible()}
    assert set(hints) == {"sensitivity", "silence", "max_length", "language", "ptt_key"}
    assert "softer speech" in hints["sensitivity"] and "0.7 s" in hints["silence"]
    assert "Display > Global hotkeys" in hints["ptt_key"]  # where a key for every program is set


def test_the_server_key_goes_to_the_keyring_never_the_database(section, service, memory_keyring):
    section.backend.setCurrentIndex(section.backend.findData("server"))
    assert section.base_url.isVisibleTo(section)
    section.base_url.setText("http://127.0.0.1:9/v1")
    section.key_field.key.setText("sk-hearing-secret-123")
    section.apply()
    assert memory_keyring.store[(keys.SERVICE, HEARING_KEY_ID)] == "sk-hearing-secret-123"
    with service.db.read_session() as session:
        from companion_desktop.storage.models import SettingsRow

        rows = [str(row.data) for row in session.query(SettingsRow).all()]
    assert rows and not any("sk-hearing-secret" in row for row in rows)
    assert stored(service).backend == "server"


def test_the_server_key_has_its_own_variable_never_the_chat_models(qtbot, service, monkeypatch):
    from companion_desktop.ui.settings.voice.hearing_section import HearingSection

    monkeypatch.setenv("COMPANION_API_KEY", "sk-chat-model-key")
    widget = HearingSection(service)
    qtbot.addWidget(widget)
    assert widget.key_field.value() is None  # the chat model's key is not sent to this server
    monkeypatch.setenv("COMPANION_STT_API_KEY", "sk-stt-key")
    widget.key_field.refresh()
    assert widget.key_field.value() == "sk-stt-key"
    assert "COMPANION_STT_API_KEY" in widget.key_field.key_state.text()


def test_bad_input_is_named_and_nothing_is_saved(section, service):
    section.mode.setCurrentIndex(section.mode.findData("hands_free"))
    section.language.setEditText("klingon!")
    with pytest.raises(SettingsProblem, match="language code"):
        section.apply()
    section.language.setCurrentIndex(0)
    section.backend.setCurrentIndex(section.backend.findData("server"))
    section.base_url.setText("ftp://nowhere")
    with pytest.raises(SettingsProblem, match="http://"):
        section.apply()
    assert stored(service) == HearingSettings()


def test_no_microphone_in_the_chat_window_is_said_and_typing_works(qtbot, chat, server):
    assert chat.mic_button.isHidden() and not chat.listen_line.isVisible()  # off by default
    save_hearing(chat.service, mode="hands_free")
    chat.settings_saved()
    assert chat.mic_button.isVisible()
    qtbot.waitUntil(lambda: chat.listen_line.text == NO_MICROPHONE, timeout=5000)
    assert chat.listen_line.property("kind") == "error"
    assert chat.hearing.source is None and chat.hearing.state == "paused"
    server.scripts.append(Script(["Typed reply."]))
    chat.input.setPlainText("typed anyway")
    chat.submit(chat.input.toPlainText())
    qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=15000)
    assert any("Typed reply." in bubble.text() for bubble in chat.transcript.bubbles())


def test_hands_free_saved_before_start_says_no_microphone_at_once(qtbot, service, server):
    """The app starts with hands-free already on: the reason she is not listening is on
    the line from the first moment, not only "Not listening"."""
    from tests.ui.conftest import make_window, use_server

    save_hearing(service, mode="hands_free")
    use_server(service, server)
    window = make_window(qtbot, service)
    try:
        assert window.listen_line.text == NO_MICROPHONE
        assert window.listen_line.property("kind") == "error"
    finally:
        window.shutdown()


def test_push_to_talk_without_a_microphone(qtbot, chat):
    save_hearing(chat.service, mode="push_to_talk")
    chat.hearing.reload()
    assert chat.mic_button.isVisible() and "F9" in chat.mic_button.toolTip()
    qtbot.mousePress(chat.mic_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: chat.listen_line.text == NO_MICROPHONE, timeout=5000)
    qtbot.mouseRelease(chat.mic_button, Qt.MouseButton.LeftButton)
    assert chat.hearing.state == "ready" and chat.hearing.source is None


def test_the_push_to_talk_key_opens_and_closes_the_microphone(qtbot, chat, model_cache):
    source = listen_to_file(chat.hearing, model_cache)
    save_hearing(chat.service, mode="push_to_talk", ptt_key="F8")
    chat.hearing.reload()
    chat.input.setFocus()
    qtbot.keyPress(chat.input, Qt.Key.Key_F8)
    assert chat.hearing.state == "hearing" and source.active
    qtbot.keyRelease(chat.input, Qt.Key.Key_F8)
    assert chat.hearing.source is None and chat.hearing.state == "ready"
    qtbot.keyPress(chat.input, Qt.Key.Key_F9)  # not the chosen key: nothing opens
    assert chat.hearing.source is None


@needs_voice
def test_the_first_use_prepares_the_model_with_progress(qtbot, chat, tmp_path):
    listen_to_file(chat.hearing, tmp_path / "fresh-cache")
    shown: list[str] = []
    chat.hearing.progress.connect(lambda text: shown.append(chat.listen_line.text))
    save_hearing(chat.service, mode="hands_free")
    chat.hearing.reload()
    qtbot.waitUntil(lambda: any("%" in text for text in shown), timeout=30000)
    assert "Preparing the speech model" in next(text for text in shown if "%" in text)
    qtbot.waitUntil(lambda: chat.hearing._transcriber is not None, timeout=60000)
    qtbot.waitUntil(lambda: chat.listen_line.text == "Listening…", timeout=5000)
    assert (tmp_path / "fresh-cache" / "whisper-base" / "model.bin").is_file()


@needs_voice
def test_a_model_that_cannot_be_prepared_is_said_and_typing_works(qtbot, chat, server, tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the model cache should be")
    listen_to_file(chat.hearing, blocked)
    save_hearing(chat.service, mode="hands_free")
    chat.hearing.reload()
    qtbot.waitUntil(lambda: chat.listen_line.property("kind") == "error", timeout=30000)
    assert "speech model could not be prepared" in chat.listen_line.text
    server.scripts.append(Script(["Still here."]))
    chat.submit("typed instead")
    qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=15000)
    assert server.user_messages() == ["typed instead"]


def test_a_source_that_fails_closes_and_says_why(qtbot, chat, tmp_path, model_cache):
    source = listen_to_file(chat.hearing, model_cache)
    save_hearing(chat.service, mode="hands_free")
    chat.hearing.reload()
    assert chat.hearing.state == "listening" and source.active
    source.failed.emit("The microphone was disconnected; she stopped listening.")
    assert not source.active and chat.hearing.state == "paused"
    assert "disconnected" in chat.listen_line.text


@needs_voice
def test_a_refusing_transcription_server_is_shown_and_no_turn_runs(qtbot, chat, server, tmp_path,
                                                                    model_cache):
    with ProviderServer() as stt:
        stt.on("POST", "/v1/audio/transcriptions",
               JsonReply(openai_error("model overloaded"), status=503))
        source = listen_to_file(chat.hearing, model_cache)
        save_hearing(chat.service, mode="hands_free", backend="server", base_url=stt.url + "/v1")
        chat.hearing.reload()
        source.feed(spoken(SAY, tmp_path))
        qtbot.waitUntil(lambda: chat.listen_line.property("kind") == "error", timeout=30000)
        assert stt.requests_to("/v1/audio/transcriptions")
    assert "503" in chat.listen_line.text or "overloaded" in chat.listen_line.text
    assert not chat.busy and chat.pending is None and server.server.requests == []
    assert chat.hearing.state == "listening"  # still listening for the next try
    source.feed(silence(0.2))


def test_the_microphone_is_open_only_while_hands_free_is_on(qtbot, chat, model_cache):
    source = listen_to_file(chat.hearing, model_cache)
    assert chat.hearing.source is None and not source.active  # off: nothing open
    save_hearing(chat.service, mode="hands_free")
    chat.settings_saved()
    assert source.active and chat.listen_line.text == "Listening…"
    qtbot.mouseClick(chat.mic_button, Qt.MouseButton.LeftButton)  # stop listening
    assert not source.active and chat.hearing.source is None and chat.hearing.state == "paused"
    assert "Not listening" in chat.listen_line.text
    source = listen_to_file(chat.hearing, model_cache)
    qtbot.mouseClick(chat.mic_button, Qt.MouseButton.LeftButton)  # listen again
    assert source.active and chat.hearing.state == "listening"
    save_hearing(chat.service, mode="off")
    chat.settings_saved()
    assert not source.active and chat.hearing.source is None and chat.mic_button.isHidden()
    assert not chat.listen_line.isVisible()
