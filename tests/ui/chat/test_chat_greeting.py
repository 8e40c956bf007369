"""Her card's greetings in the chat: after a new relationship her greeting is the only
message, arrows under it offer the card's other greetings until it is answered, the
chosen words are what the model reads on the next real turn (a model server on
127.0.0.1), and Settings > Character's choice and "Start a new relationship…" show in
the open chat window."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from companion_desktop.storage import repository
from companion_desktop.ui.card_import import NEW
from companion_desktop.ui.chat.greeting import GreetingArrows
from tests.storage.card_samples import portrait_png, text_chunk, v2_card
from tests.ui.chat.test_show_image import drag_and_drop, url_mime
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt
WAIT_MS = 15000
SHOTS = Path(os.environ.get("CARD_SHOTS", Path(__file__).resolve().parents[3] / "out-cards"))
FIRST, TIDE, RAIN = ("Oh! User, you came. Mind the wet paint.", "The tide is high today.",
                     "You smell like rain.")


def arrows(chat) -> list[GreetingArrows]:
    return [row for row in chat.transcript.rows if isinstance(row, GreetingArrows)]


def drop_mira(chat, tmp_path) -> None:
    card = tmp_path / "mira.png"
    card.write_bytes(portrait_png(middle=(text_chunk(b"chara", v2_card()),)))
    chat.photos.cards.ask = lambda _name, _what: NEW
    drag_and_drop(chat, url_mime(card))


def stored_turns(service) -> list[tuple[str, str]]:
    with service.db.read_session() as session:
        return [(t.role, t.content) for t in repository.recent_turns(session)]


def test_arrows_change_her_greeting_until_it_is_answered(chat, server, qtbot, tmp_path):
    chat.transcript.add_her("An old message from before the card.")
    drop_mira(chat, tmp_path)
    assert [b.text() for b in chat.transcript.bubbles()] == [FIRST]  # the view starts anew
    (row,) = arrows(chat)
    assert row.position.text() == "1/3"
    qtbot.mouseClick(row.next, Qt.MouseButton.LeftButton)
    assert chat.transcript.bubbles("her")[-1].text() == TIDE and row.position.text() == "2/3"
    qtbot.mouseClick(row.previous, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(row.previous, Qt.MouseButton.LeftButton)  # wraps round to the last
    assert chat.transcript.bubbles("her")[-1].text() == RAIN and row.position.text() == "3/3"
    assert stored_turns(chat.service) == [("assistant", RAIN)]
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(100)  # the rows laid out
    assert chat.grab().save(str(SHOTS / "chat-greeting-arrows.png"))

    server.scripts.append(Script(reply_with_block("Rain follows me from the sea.")))
    chat.input.setPlainText("Do I?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    assert arrows(chat) == []  # answered: the greeting stays as it is
    qtbot.waitUntil(lambda: not chat.busy and bool(server.requests), timeout=WAIT_MS)
    messages = [r for r in server.requests if r.get("stream")][-1]["messages"]
    assert {"role": "assistant", "content": RAIN} in messages
    assert not any(m["content"] in (FIRST, TIDE) for m in messages)


def settings_dialog(chat, qtbot):
    chat.open_settings()
    dialog = next(w for w in QApplication.topLevelWidgets()
                  if type(w).__name__ == "SettingsDialog" and w.isVisible())
    qtbot.addWidget(dialog)
    return dialog


def test_settings_choose_her_greeting_and_start_a_new_relationship(chat, qtbot, tmp_path):
    drop_mira(chat, tmp_path)
    dialog = settings_dialog(chat, qtbot)
    section = dialog.character.card
    section.greeting.setCurrentIndex(1)
    assert dialog.save()
    assert chat.transcript.bubbles("her")[-1].text() == TIDE
    assert arrows(chat)[0].position.text() == "2/3"

    chat.transcript.add_user("Hello again")  # stands for a conversation in the view
    asked = []
    section.confirm_again = lambda name: asked.append(name) or True
    section.greeting.setCurrentIndex(2)
    done = section.start_again()
    assert asked == ["Mira"] and done is not None and done.backup is not None
    assert [b.text() for b in chat.transcript.bubbles()] == [RAIN]
    assert chat.transcript.notices("info")[-1].text().startswith("A new relationship with Mira")
    assert arrows(chat)[0].position.text() == "3/3"
    assert stored_turns(chat.service) == [("assistant", RAIN)]

    section.confirm_again = lambda _name: False  # a "no" changes nothing
    assert section.start_again() is None
    assert stored_turns(chat.service) == [("assistant", RAIN)]


def test_an_import_works_off_the_window_thread_and_the_window_keeps_drawing(chat, qtbot):
    import threading
    import time

    from PySide6.QtCore import QTimer

    cards = chat.photos.cards
    said, ticks, threads = [], [], []
    cards.working.connect(said.append)
    timer = QTimer(interval=10, timeout=lambda: ticks.append(chat.transcript.phase.text()))
    timer.start()

    def slow() -> str:
        threads.append(threading.current_thread())
        time.sleep(0.4)
        return "done"

    assert cards._off_thread(slow, "Reading big.png…") == "done"
    timer.stop()
    assert threads[0] is not threading.main_thread()
    assert said == ["Reading big.png…", ""] and len(ticks) >= 5  # the window's loop ran
    assert "Reading big.png…" in ticks and not chat.transcript.phase.isVisible()

    def broken() -> None:
        time.sleep(0.2)
        raise ValueError("not a card")

    with pytest.raises(ValueError, match="not a card"):
        cards._off_thread(broken, "Reading…")
