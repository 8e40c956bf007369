"""Editing her note on a kept photo: the card's menu, F2 and the viewer's button open
our note dialog over a real database; Save stores the note in one transaction and
updates the card at once; a locked database or a vanished photo is said, nothing
changed."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import keepsakes
from companion_desktop.storage.db import Database
from companion_desktop.ui.photos.note_dialog import (
    NOTE_LIMIT,
    NoteDialog,
    chars_before,
    trim_to_limit,
)
from companion_desktop.ui.photos.viewer import NO_NOTE
from tests.ui.photos.test_photoboard import board, keep, stored  # noqa: F401 - the fixture

pytestmark = pytest.mark.qt


def menu_action(card, text):
    [action] = [a for a in card.menu().actions() if a.text() == text]
    return action


def open_from_menu(window, card) -> NoteDialog:
    menu_action(card, "Edit note…").trigger()
    dialog = window.note_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


# ---------------------------------------------------------------- the limit, pure
def test_trim_takes_the_overflow_from_just_before_the_cursor():
    assert trim_to_limit("abcdef", 6, 4) == ("abcd", 4)  # typed at the end
    assert trim_to_limit("abXYZcd", 5, 4) == ("abcd", 2)  # pasted "XYZ" in the middle
    assert trim_to_limit("XYZabcd", 1, 4) == ("XYZa", 1)  # cursor too near the start
    assert trim_to_limit("abc", 2, 4) == ("abc", 2)  # within the limit: unchanged
    assert trim_to_limit("abc", 99, -3) == ("", 0)  # bounded inputs


def test_qt_positions_count_utf16_units_not_characters():
    assert chars_before("😀ab", 2) == 1 and chars_before("😀ab", 3) == 2
    assert chars_before("ab", 99) == 2 and chars_before("ab", -1) == 0


@given(st.text(max_size=40), st.integers(-5, 50), st.integers(0, 30))
def test_trim_never_exceeds_the_limit_and_keeps_the_cursor_inside(text, cursor, limit):
    out, position = trim_to_limit(text, cursor, limit)
    assert len(out) == min(len(text), limit) and 0 <= position <= len(out)
    if len(text) <= limit:
        assert out == text


# ---------------------------------------------------------------- on the board
def test_the_menu_opens_a_prefilled_dialog_and_save_updates_card_and_database(
        board, service, qtbot):
    keep(service, "an old note", hours_ago=3)
    target = keep(service, "their cat on the sofa", hours_ago=1)
    window = board()
    card = window.cards[0]
    assert card.keepsake.id == target.id
    assert [a.text() for a in card.menu().actions()] == ["Open", "Edit note…", "Delete…"]
    dialog = open_from_menu(window, card)
    qtbot.waitExposed(dialog)
    assert dialog.isModal() or dialog.windowModality() != Qt.WindowModality.NonModal
    assert dialog.editor.toPlainText() == "their cat on the sofa"
    assert dialog.counter.text() == f"21 / {NOTE_LIMIT} characters"
    dialog.editor.selectAll()
    qtbot.keyClicks(dialog.editor, "Mochi, asleep on the blue sofa")
    assert dialog.counter.text() == f"30 / {NOTE_LIMIT} characters"
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert [k.note for k in stored(service)] == ["Mochi, asleep on the blue sofa", "an old note"]
    assert card.note.text() == "Mochi, asleep on the blue sofa"  # at once, same card
    assert window.cards[0] is card and card.keepsake.note == "Mochi, asleep on the blue sofa"
    assert window.cards[1].note.text() == "an old note"


def test_f2_opens_the_dialog_and_cancel_changes_nothing(board, service, qtbot):
    keep(service, "a sunset over the bay", hours_ago=1)
    window = board()
    [card] = window.cards
    card.setFocus()
    qtbot.keyClick(card, Qt.Key.Key_F2)
    dialog = window.note_dialog
    assert dialog is not None and dialog.isVisible()
    dialog.editor.setPlainText("something else entirely")
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert [k.note for k in stored(service)] == ["a sunset over the bay"]
    assert card.note.text() == "a sunset over the bay"


def test_an_emptied_note_is_stored_as_none_and_shown_muted(board, service, qtbot):
    keep(service, "a note to forget", hours_ago=1)
    window = board()
    [card] = window.cards
    assert card.note.property("empty") is False
    viewer = window.open_photo(card.keepsake)
    dialog = open_from_menu(window, card)
    dialog.editor.setPlainText("   \n  ")
    assert dialog.save() is True
    assert [k.note for k in stored(service)] == [None]
    assert card.note.property("empty") is True and card.note.text().startswith("No note")
    assert viewer.note.text() == NO_NOTE and viewer.note.property("empty") is True
    muted = card.note.palette().color(card.note.foregroundRole())
    assert muted.name() == "#b3a6bc"  # the muted colour of the style sheet, applied


def test_the_500_character_limit_is_shown_and_enforced(board, service, qtbot):
    keep(service, "short", hours_ago=1)
    window = board()
    [card] = window.cards
    dialog = open_from_menu(window, card)
    dialog.editor.setPlainText("a" * 480)
    assert dialog.counter.text() == f"480 / {NOTE_LIMIT} characters"
    assert dialog.counter.property("level") == "near"
    cursor = dialog.editor.textCursor()
    cursor.setPosition(10)
    dialog.editor.setTextCursor(cursor)
    dialog.editor.insertPlainText("😀" * 30)  # pasted in the middle, 10 over
    text = dialog.editor.toPlainText()
    assert len(text) == NOTE_LIMIT and text == "a" * 10 + "😀" * 20 + "a" * 470
    assert chars_before(text, dialog.editor.textCursor().position()) == 30
    assert dialog.counter.text() == f"{NOTE_LIMIT} / {NOTE_LIMIT} characters"
    assert dialog.counter.property("level") == "full"
    qtbot.keyClicks(dialog.editor, "zz")  # typing at the limit adds nothing
    assert dialog.editor.toPlainText() == text
    assert dialog.save() is True
    [kept] = stored(service)
    assert kept.note == text and len(card.note.text()) <= 160


def test_a_longer_stored_note_is_cut_to_the_limit_when_prefilled(board, service, qtbot):
    keep(service, "x", hours_ago=1)
    window = board()
    dialog = NoteDialog("b" * 900, lambda text: None, window)
    qtbot.addWidget(dialog)
    assert dialog.text() == "b" * NOTE_LIMIT


def test_the_viewer_button_edits_and_the_viewer_keeps_line_breaks(board, service, qtbot):
    keep(service, "a tall lighthouse", hours_ago=1, size=(300, 900))
    window = board()
    [card] = window.cards
    viewer = window.open_photo(card.keepsake)
    qtbot.waitExposed(viewer)
    assert viewer.note.text() == "a tall lighthouse"
    qtbot.mouseClick(viewer.edit_button, Qt.MouseButton.LeftButton)
    dialog = window.note_dialog
    assert dialog is not None and dialog.isVisible() and dialog.parent() is viewer
    dialog.editor.setPlainText("The lighthouse at Hook Head.\n\nWe climbed all 115 steps.")
    dialog.editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClick(dialog.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert not dialog.isVisible()  # Ctrl+Return saved
    assert viewer.note.text() == "The lighthouse at Hook Head.\nWe climbed all 115 steps."
    assert card.note.text() == "The lighthouse at Hook Head. We climbed all 115 steps."
    assert stored(service)[0].note == "The lighthouse at Hook Head.\n\nWe climbed all 115 steps."


@pytest.fixture
def quick_service(tmp_path):
    """A real database that gives up on another program's lock after 0.2 s."""
    db = Database.open(tmp_path / "quick", busy_timeout=0.2)
    yield CompanionService(db)
    db.close()


def test_a_locked_database_is_said_and_nothing_changes(quick_service, qtbot):
    from companion_desktop.ui.photos.photoboard import PhotoboardWindow

    keep(quick_service, "the note she wrote", hours_ago=1)
    window = PhotoboardWindow(quick_service)
    qtbot.addWidget(window)
    window.show()
    [card] = window.cards
    dialog = open_from_menu(window, card)
    dialog.editor.setPlainText("my new note")
    other = sqlite3.connect(quick_service.db.path, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
        qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
        assert dialog.isVisible() and dialog.status.isVisible()
        assert "Could not save the note" in dialog.status.text()
        assert "in use by another program" in dialog.status.text()
        assert dialog.text() == "my new note"  # kept for another try
        assert [k.note for k in stored(quick_service)] == ["the note she wrote"]
        assert card.note.text() == "the note she wrote"
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert dialog.save() is True and not dialog.status.isVisible()
    assert [k.note for k in stored(quick_service)] == ["my new note"]
    assert card.note.text() == "my new note"


def test_a_photo_deleted_meanwhile_is_said_and_the_board_refreshes(board, service, qtbot):
    gone = keep(service, "soon gone", hours_ago=1)
    window = board()
    [card] = window.cards
    dialog = open_from_menu(window, card)
    with service.db.session() as session:  # deleted elsewhere while the dialog is open
        assert keepsakes.delete_keepsake(session, service.db.path.parent, gone.id)
    dialog.editor.setPlainText("too late")
    assert dialog.save() is False and dialog.isVisible()
    assert "no longer on the board" in dialog.status.text()
    assert window.cards == [] and stored(service) == []
