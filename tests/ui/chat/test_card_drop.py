"""A character card dropped on the chat window or on her: told apart from a photo by
its content, imported after the choice, and her next real turn (against the model server
on 127.0.0.1) carries the card's persona and its triggered lorebook entry."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from companion_desktop.ui.card_import import NEW
from tests.storage.card_samples import portrait_png, text_chunk, tiny_png, v2_card
from tests.ui.chat.test_show_image import drag_and_drop, url_mime
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt
WAIT_MS = 15000


def test_a_dropped_card_makes_her_that_character_for_the_next_turn(chat, server, qtbot,
                                                                    tmp_path):
    card = tmp_path / "mira.png"
    card.write_bytes(portrait_png(middle=(text_chunk(b"chara", v2_card()),)))
    asked = []
    chat.photos.cards.ask = lambda name, what: asked.append((name, what)) or NEW
    drag_and_drop(chat, url_mime(card))
    assert asked == [("Mira", "card")]
    assert chat.photo.prepared is None and not chat.photo.chip.isVisible()  # not a photo
    assert chat.transcript.bubbles("her")[-1].text() == "Oh! User, you came. Mind the wet paint."

    server.scripts.append(Script(reply_with_block("The kraken? Only a story.")))
    chat.input.setPlainText("Is the kraken real?")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not chat.busy and bool(server.requests), timeout=WAIT_MS)
    system = [r for r in server.requests if r.get("stream")][-1]["messages"][0]["content"]
    assert "Name: Mira" in system and "A kraken sleeps under the northern reef." in system
    assert "Old Maren" not in system  # the lighthouse entry was not triggered


def test_a_photo_is_still_a_photo_and_a_bad_card_is_one_notice(chat, qtbot, tmp_path):
    photo = tmp_path / "sea.png"
    photo.write_bytes(tiny_png(32, 32))
    chat.photos.cards.ask = lambda _name, _what: pytest.fail("a photo is not a card")
    drag_and_drop(chat, url_mime(photo))
    qtbot.waitUntil(lambda: chat.photo.prepared is not None, timeout=WAIT_MS)
    broken = tmp_path / "broken.json"
    broken.write_text('{"spec": "chara_card_v2", "data": {"name": "X", "description": "'
                      + "x" * 20_000 + '"}}')
    assert chat.photos.cards.import_path(broken) is None
    assert chat.transcript.notices("error")[-1].text().startswith("broken.json was not imported")


def test_a_card_dropped_on_her_goes_to_the_chat_window(qtbot, tmp_path):
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay.window import OverlayWindow

    overlay = OverlayWindow(AvatarHost(fps=30, seed=1), show_image=lambda s, n: pytest.fail(
        "a card is not a photo"))
    qtbot.addWidget(overlay)
    card = tmp_path / "mira.json"
    card.write_text('{"name": "Mira", "description": "A painter."}')
    with qtbot.waitSignal(overlay.card_dropped) as got:
        drag_and_drop(overlay.view, url_mime(card))
    assert got.args == [str(card)]


def test_a_dropped_world_info_file_is_added_to_her_lorebook_and_said_so(chat, tmp_path):
    import json

    from companion_desktop.ui.card_import import ADD
    from tests.storage.card_samples import world_info

    book = tmp_path / "harbor.json"
    book.write_text(json.dumps(world_info()))
    chat.photos.cards.ask = lambda _name, what: ADD if what == "lorebook" else None
    drag_and_drop(chat, url_mime(book))
    assert chat.transcript.notices("info")[-1].text() == "Added to her lorebook: it has 2 " \
                                                        "entries now."
    assert not any(n.text().startswith("She is now") for n in chat.transcript.notices())
