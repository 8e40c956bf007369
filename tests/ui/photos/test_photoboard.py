"""The photoboard over a real database and real keepsake files: cards newest first,
the viewer, deleting with a real confirmation box, and refreshing after a photo turn."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from companion_desktop.storage import keepsakes
from companion_desktop.ui.photos.photoboard import EMPTY_TEXT, PhotoboardWindow
from tests.conftest import T0
from tests.ui.chat.test_show_image import (
    vision_chat,  # noqa: F401 - the fixture
    wait_idle,
    wait_ready,
    write_photo,
)
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = pytest.mark.qt


def jpeg(size, color) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "JPEG")
    return out.getvalue()


def keep(service, note, hours_ago, size=(400, 300), color=(200, 60, 90)):
    with service.db.session() as session:
        return keepsakes.add_keepsake(
            session, service.db.path.parent, image=jpeg(size, color),
            thumbnail=jpeg((160, 120), color), mime_type="image/jpeg", width=size[0],
            height=size[1], note=note, turn_id=None, created_at=T0 - timedelta(hours=hours_ago))


def stored(service):
    with service.db.read_session() as session:
        return keepsakes.list_keepsakes(session, service.db.path.parent)


@pytest.fixture
def board(qtbot, service):
    def make() -> PhotoboardWindow:
        window = PhotoboardWindow(service)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        return window
    return make


def test_an_empty_board_says_what_it_is_for(board):
    window = board()
    assert window.cards == [] and window.empty.isVisible()
    assert window.empty.text() == EMPTY_TEXT
    assert window.windowTitle() == "Photoboard (0 photos)"


def grid_rows(window) -> list[int]:
    return [window._grid.getItemPosition(window._grid.indexOf(card))[0] for card in window.cards]


def test_cards_show_thumbnail_note_and_date_newest_first(board, service, qtbot):
    keep(service, "their cat on the sofa", hours_ago=30)
    keep(service, "a sunset over the bay", hours_ago=2)
    keep(service, None, hours_ago=10)
    window = board()
    assert window.windowTitle() == "Photoboard (3 photos)" and not window.empty.isVisible()
    notes = [card.note.text() for card in window.cards]
    assert notes == ["a sunset over the bay", "No note from her yet", "their cat on the sofa"]
    assert window.cards[1].note.property("empty") is True
    for card in window.cards:
        assert not card.thumb.pixmap().isNull()
        assert card.thumb.pixmap().width() <= 196
        assert card.date.text().endswith(
            card.keepsake.created_at.astimezone().strftime("%H:%M"))
    window.resize(1000, 600)
    assert grid_rows(window) == [0, 0, 0]  # wide enough: one row
    qtbot.waitUntil(lambda: len({card.y() for card in window.cards}) == 1)
    window.resize(300, 600)
    assert grid_rows(window) == [0, 1, 2]


def test_double_click_opens_the_photo_scaled_to_fit(board, service, qtbot):
    keep(service, "a tall lighthouse", hours_ago=1, size=(300, 900))
    window = board()
    [card] = window.cards
    qtbot.mouseDClick(card, Qt.MouseButton.LeftButton)
    viewer = window.viewer
    assert viewer is not None and viewer.isVisible()
    qtbot.waitExposed(viewer)
    pixmap = viewer.picture.pixmap()
    assert not pixmap.isNull()
    assert pixmap.height() <= viewer.picture.height() and pixmap.width() <= viewer.picture.width()
    assert abs(pixmap.width() / pixmap.height() - 300 / 900) < 0.02


def test_delete_asks_then_removes_the_row_and_files(board, service, qtbot):
    keep(service, "keep me", hours_ago=5)
    doomed = keep(service, "delete me", hours_ago=1)
    window = board()
    card = window.cards[0]
    assert card.keepsake.id == doomed.id
    assert [a.text() for a in card.menu().actions()] == ["Open", "Edit note…", "Delete…"]

    card.setFocus()
    qtbot.keyClick(card, Qt.Key.Key_Delete)
    box = window.confirm
    assert box is not None and box.isVisible()
    box.button(QMessageBox.StandardButton.Cancel).click()
    assert len(stored(service)) == 2 and doomed.image_path.is_file()

    qtbot.mouseMove(card)
    card.enterEvent(None)
    assert card.delete_button.isVisible()
    qtbot.mouseClick(card.delete_button, Qt.MouseButton.LeftButton)
    box = window.confirm
    [delete] = [b for b in box.buttons() if b.text() == "Delete"]
    delete.click()
    assert not doomed.image_path.exists() and not doomed.thumbnail_path.exists()
    assert [k.note for k in stored(service)] == ["keep me"]
    assert [c.note.text() for c in window.cards] == ["keep me"]
    assert window.windowTitle() == "Photoboard (1 photo)"
    assert window.delete(doomed.id) is False and "already gone" in window.status.text()


def test_a_missing_file_shows_a_placeholder_and_can_still_be_deleted(board, service):
    lost = keep(service, "gone astray", hours_ago=1)
    lost.thumbnail_path.unlink()
    lost.image_path.unlink()
    window = board()
    [card] = window.cards
    assert card.thumb.text() == "(photo missing)"
    viewer = window.open_photo(card.keepsake)
    assert "could not be opened" in viewer.picture.text()
    viewer.close()
    assert window.delete(lost.id) is True and stored(service) == [] and window.cards == []


def test_the_chat_window_opens_the_board_and_it_follows_new_photos(  # noqa: F811 - the fixture
        vision_chat, server, service, qtbot, tmp_path):
    chat = vision_chat
    qtbot.mouseClick(chat.photoboard_button, Qt.MouseButton.LeftButton)
    board = chat.photoboard
    assert board is not None and board.isVisible() and board.cards == []
    chat.stage_image(str(write_photo(tmp_path / "garden.jpg")), "garden.jpg")
    wait_ready(qtbot, chat)
    server.scripts.append(Script(reply_with_block("Your garden looks so peaceful.")))
    qtbot.keyClicks(chat.input, "my garden")
    qtbot.keyClick(chat.input, Qt.Key.Key_Return)
    wait_idle(qtbot, chat)
    [card] = board.cards
    assert card.note.text()  # her note (her memory, or the first words of her reply)
    assert board.windowTitle() == "Photoboard (1 photo)"
    [kept] = stored(service)
    assert kept.image_path.is_file() and kept.width == 640
    chat.open_photoboard()  # reused, not a second window
    assert chat.photoboard is board
