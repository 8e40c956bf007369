"""The chat window over a real database and a real provider on 127.0.0.1, driven by keys."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtCore import Qt
from sqlalchemy import func, select

from companion_desktop.storage import repository
from companion_desktop.storage.models import TurnRow
from companion_desktop.ui.settings import SettingsDialog
from tests.conftest import T0
from tests.ui.conftest import make_window, use_server
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt

WAIT_MS = 30_000  # a bound, not a speed: a turn takes under a second here; CI once took 8 s


def turn_count(service) -> int:
    with service.db.read_session() as session:
        return int(session.scalar(select(func.count()).select_from(TurnRow)))


def type_and_enter(qtbot, window, text: str) -> None:
    qtbot.keyClicks(window.input, text)
    qtbot.keyClick(window.input, Qt.Key.Key_Return)


def wait_idle(qtbot, window) -> None:
    qtbot.waitUntil(lambda: not window.busy, timeout=WAIT_MS)


def test_enter_streams_the_reply_and_updates_the_panel(chat, server, service, qtbot):
    reply = "Aww, that is so sweet of you. Thank you for saying it!"
    chunks = reply_with_block(reply, affection_delta=5, trust_delta=2)
    server.scripts.append(Script(chunks, delay=0.03))
    seen: list[tuple[str, bool]] = []
    chat.backend.controller.text.connect(
        lambda t: seen.append((t, chat.transcript.phase.isVisible())))
    assert chat.panel.bars["affection"].value() == 0

    type_and_enter(qtbot, chat, "You're wonderful, thank you so much for listening to me!")
    assert chat.input.toPlainText() == ""
    assert chat.transcript.phase.isVisible() and chat.transcript.phase.text() == "Remembering…"
    assert chat.transcript.phase.animating
    assert chat.stop_button.isVisible() and not chat.send_button.isVisible()
    wait_idle(qtbot, chat)

    user = chat.transcript.bubbles("user")
    her = chat.transcript.bubbles("her")
    assert [b.text() for b in user] == ["You're wonderful, thank you so much for listening to me!"]
    assert [b.text() for b in her] == [reply]  # one bubble, replaced in place
    assert len({text for text, _ in seen}) > 3  # it streamed in steps
    assert all(not phase_visible for _, phase_visible in seen)  # hidden on the first text
    assert not chat.transcript.phase.isVisible() and not chat.transcript.phase.animating
    assert chat.panel.bars["affection"].value() > 0
    assert chat.panel.bars["trust"].value() > 0
    assert turn_count(service) == 2
    assert chat.send_button.isVisible() and not chat.stop_button.isVisible()


def test_shift_enter_inserts_a_new_line(chat, server, qtbot):
    qtbot.keyClicks(chat.input, "first line")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(chat.input, "second line")
    assert chat.input.toPlainText() == "first line\nsecond line"
    assert chat.transcript.bubbles() == [] and server.requests == []


def test_stop_saves_nothing_and_retry_resends_the_kept_message(chat, server, service, qtbot):
    server.scripts.append(Script(["word "] * 200, delay=0.05))
    type_and_enter(qtbot, chat, "Tell me a long story")
    qtbot.waitUntil(lambda: bool(chat.transcript.bubbles("her")), timeout=WAIT_MS)
    chat.input.insertPlainText("typing while she talks")  # still typeable while busy
    assert chat.input.property("busy") is True
    qtbot.mouseClick(chat.stop_button, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, chat)

    [error] = chat.transcript.notices("error")
    assert "Stopped" in error.text() and "Nothing was saved" in error.text()
    assert chat.transcript.bubbles("her") == []
    assert [b.text() for b in chat.transcript.bubbles("user")] == ["Tell me a long story"]
    assert turn_count(service) == 0
    assert chat.input.toPlainText() == "typing while she talks"

    server.scripts.append(Script(reply_with_block("Once upon a time, you came back.")))
    qtbot.mouseClick(error.buttons["↻  Retry"], Qt.MouseButton.LeftButton)
    wait_idle(qtbot, chat)
    assert server.user_messages() == ["Tell me a long story", "Tell me a long story"]
    assert [b.text() for b in chat.transcript.bubbles("user")] == ["Tell me a long story"]
    her = [b.text() for b in chat.transcript.bubbles("her")]
    assert her == ["Once upon a time, you came back."]
    assert chat.transcript.notices("error") == []
    assert turn_count(service) == 2


@pytest.mark.parametrize("status,retryable", [(401, False), (503, True)])
def test_http_error_shows_inline_with_retry_per_retryable(chat, server, service, qtbot, status,
                                                         retryable):
    server.scripts.append(Script(status=status, error="scripted failure"))
    before = service.load(T0).state
    type_and_enter(qtbot, chat, "Hello there")
    qtbot.waitUntil(lambda: bool(chat.transcript.notices("error")), timeout=WAIT_MS)
    wait_idle(qtbot, chat)
    [error] = chat.transcript.notices("error")
    assert str(status) in error.text() or "scripted failure" in error.text()
    assert ("↻  Retry" in error.buttons) is retryable
    assert ("Open Settings" in error.buttons) is not retryable
    assert error.objectName() == "errorNotice"
    assert [b.text() for b in chat.transcript.bubbles("user")] == ["Hello there"]
    assert turn_count(service) == 0
    after = service.load(T0).state
    assert (after.affection, after.energy, after.total_interactions) == (
        before.affection, before.energy, before.total_interactions)


def test_relationship_command_shows_the_card_without_a_model_call(chat, server, qtbot):
    type_and_enter(qtbot, chat, "/relationship")
    [card] = chat.transcript.notices("card")
    assert "Stranger" in card.text() and "Affection" in card.text()
    assert server.requests == [] and chat.input.toPlainText() == ""


def test_without_a_provider_the_window_says_what_to_set_up(bare_chat, service, server, qtbot):
    window = bare_chat
    assert not window.backend.ready
    setup = window._setup
    assert setup is not None and "Settings" in setup.text()
    assert "Open Settings" in setup.buttons
    qtbot.keyClicks(window.input, "hello?")
    assert not window.send_button.isEnabled()
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    assert window.transcript.bubbles() == [] and window.input.toPlainText() == "hello?"

    window.input.clear()
    type_and_enter(qtbot, window, "/relationship")  # no model needed
    assert window.transcript.notices("card")

    qtbot.mouseClick(setup.buttons["Open Settings"], Qt.MouseButton.LeftButton)
    dialog = window.findChild(SettingsDialog)
    assert dialog is not None and dialog.isVisible()
    page = dialog.llm
    page.provider.setCurrentIndex(page.provider.findData("openai-compatible"))
    page.base_url.setText(server.base_url)
    page.model.setEditText("tiny-model")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert window.backend.ready and window._setup is None
    assert "tiny-model" in window.model_line.text()
    server.scripts.append(Script(reply_with_block("Hi! Finally we can talk.")))
    type_and_enter(qtbot, window, "hello?")
    wait_idle(qtbot, window)
    assert [b.text() for b in window.transcript.bubbles("her")] == ["Hi! Finally we can talk."]


def test_history_is_loaded_on_start(qtbot, service, server):
    use_server(service, server)
    with service.db.session() as session:
        sid = repository.start_session(session, T0 - timedelta(days=1))
        repository.add_turn(session, sid, "user", "Good morning!", T0 - timedelta(days=1))
        repository.add_turn(session, sid, "assistant", "Morning! Did you sleep well?",
                            T0 - timedelta(days=1))
        repository.add_turn(session, sid, "system", "Reminder: stretch", T0 - timedelta(hours=1))
    window = make_window(qtbot, service)
    try:
        assert [b.text() for b in window.transcript.bubbles("user")] == ["Good morning!"]
        her = [b.text() for b in window.transcript.bubbles("her")]
        assert her == ["Morning! Did you sleep well?"]
        assert [n.text() for n in window.transcript.notices("info")] == ["Reminder: stretch"]
        assert len(window.transcript.notices("day")) == 2
    finally:
        window.shutdown()


def test_refresh_resolves_decay(chat, service):
    with service.db.session() as session:
        state = repository.load_character(session)
        state.energy, state.last_interaction = 10, T0 - timedelta(hours=3)
        repository.save_character(session, state)
    chat.refresh()
    assert chat.panel.bars["energy"].value() == 10 + 45  # floor(90 * 3 / 6)


def test_locked_database_is_shown_not_raised(qtbot, tmp_path):
    import sqlite3

    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.storage.db import Database

    db = Database.open(tmp_path / "quick", busy_timeout=0.2)
    window = make_window(qtbot, CompanionService(db))
    holder = sqlite3.connect(db.path, timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        window.refresh()
        message = window.statusBar().currentMessage()
    finally:
        holder.rollback()
        holder.close()
    assert "in use" in message
    window.refresh()
    assert window.statusBar().currentMessage() == ""
    window.shutdown()
    db.close()


def test_the_empty_box_says_what_to_do(bare_chat, chat):
    """No model: the box says to set one up; a ready model: how to send."""
    assert bare_chat.input.placeholderText().startswith("Set up a language model in Settings")
    assert chat.input.placeholderText().startswith("Say something…")
