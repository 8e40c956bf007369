"""The photoboard: every photo shown to her, kept with its thumbnail and her memory note.

Cards (thumbnail, her note, the date) in a grid that reflows with the width,
newest first; the window title counts them. Double-click (or Enter) opens the
full photo, scaled to fit, in a viewer. "Edit note…" (the context menu, F2 or
the viewer's button) opens the note dialog and stores her note in one transaction,
updating the card at once. Delete (the button on a hovered card, the context menu
or the Delete key) asks first, then removes the row and both files through
``storage.keepsakes``. The chat window calls ``refresh()`` when a turn kept a
new photo.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QLabel,
    QMenu,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.keepsakes import Keepsake, delete_keepsake, list_keepsakes
from companion_desktop.ui.photos.note_dialog import NoteDialog, store_note
from companion_desktop.ui.photos.viewer import (
    PhotoViewer,
    read_bytes,
    show_note_on,
    when_text,
)
from companion_desktop.ui.photos.widgets import rounded_pixmap
from companion_desktop.ui.plain import plain_label
from companion_desktop.ui.style import STYLE_SHEET

#: Card and thumbnail sizes, in pixels.
CARD_W = 220
THUMB = 196  # width; thumbnails fill a THUMB x THUMB_H box, cropped from the centre
THUMB_H = 160
SPACING = 16
#: Characters of her note shown on a card (the viewer shows all of it, up to NOTE_MAX).
NOTE_SHOWN = 160
EMPTY_TEXT = "Photos you show her are kept here"
EMPTY_HINT = "Show her one with the paperclip in the chat, or drop a photo on her."
NO_CARD_NOTE = "No note from her yet"

BOARD_STYLE = """
#boardBody, #boardScroll { background: #fbf7fb; border: none; }
#boardTitle { font-size: 20px; font-weight: 600; color: #5b3a6e; }
#keepsakeCard { background: #ffffff; border: 1px solid #eadff0; border-radius: 14px; }
#keepsakeCard:focus { border: 2px solid #c99ae0; }
#cardThumb { background: transparent; }
#cardNote { color: #3a3340; }
#cardNote[empty="true"] { color: #b3a6bc; font-style: italic; }
#cardDate, #viewerDate { color: #a093aa; font-size: 11px; }
#cardDelete { background: rgba(255, 255, 255, 235); color: #c0354f; border: 1px solid #f0b3c1;
  border-radius: 10px; padding: 0; font-size: 12px; font-weight: 600; }
#cardDelete:hover { background: #fdeef1; }
#emptyTitle { font-size: 17px; color: #8a7d93; }
"""


class KeepsakeCard(QFrame):
    """One kept photo. ``open_requested`` / ``edit_requested`` / ``delete_requested``
    carry the keepsake."""

    open_requested = Signal(object)
    edit_requested = Signal(object)
    delete_requested = Signal(object)

    def __init__(self, keepsake: Keepsake, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.keepsake = keepsake
        self.setObjectName("keepsakeCard")
        self.setFixedWidth(CARD_W)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setToolTip("Double-click to open · F2 to edit her note · Delete key to remove")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(11, 11, 11, 10)
        layout.setSpacing(6)
        self.thumb = QLabel(objectName="cardThumb", alignment=Qt.AlignmentFlag.AlignCenter)
        self.thumb.setFixedSize(THUMB, THUMB_H)
        pixmap = rounded_pixmap(read_bytes(keepsake.thumbnail_path), THUMB, THUMB_H, 10, fill=True)
        if pixmap is None:
            self.thumb.setText("(photo missing)")
        else:
            self.thumb.setPixmap(pixmap)
        layout.addWidget(self.thumb)
        self.note = QLabel(objectName="cardNote", wordWrap=True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.show_note(keepsake)
        layout.addWidget(self.note)
        self.date = QLabel(when_text(keepsake), objectName="cardDate")
        layout.addWidget(self.date)
        self.delete_button = QPushButton("Delete", self, objectName="cardDelete")
        self.delete_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.delete_button.clicked.connect(lambda: self.delete_requested.emit(self.keepsake))
        self.delete_button.setFixedSize(66, 24)
        self.delete_button.move(CARD_W - 66 - 18, 18)
        self.delete_button.hide()

    def show_note(self, keepsake: Keepsake) -> None:
        """Show ``keepsake``'s note (first NOTE_SHOWN characters; muted when empty)."""
        self.keepsake = keepsake
        show_note_on(self.note, keepsake, NOTE_SHOWN, NO_CARD_NOTE)

    def enterEvent(self, event) -> None:  # noqa: N802, ANN001
        self._show_delete(True)
        super().enterEvent(event)

    def leaveEvent(self, event) -> None:  # noqa: N802, ANN001
        self._show_delete(self.hasFocus())
        super().leaveEvent(event)

    def focusInEvent(self, event) -> None:  # noqa: N802, ANN001
        self._show_delete(True)
        super().focusInEvent(event)

    def focusOutEvent(self, event) -> None:  # noqa: N802, ANN001
        self._show_delete(self.underMouse())
        super().focusOutEvent(event)

    def _show_delete(self, shown: bool) -> None:
        """The Delete button shows while the card is hovered or focused (raised over the
        thumbnail); otherwise it hides."""
        self.delete_button.setVisible(shown)
        if shown:
            self.delete_button.raise_()

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802, ANN001
        self.open_requested.emit(self.keepsake)

    def keyPressEvent(self, event) -> None:  # noqa: N802, ANN001
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_requested.emit(self.keepsake)
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space):
            self.open_requested.emit(self.keepsake)
        elif event.key() == Qt.Key.Key_F2:
            self.edit_requested.emit(self.keepsake)
        else:
            super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802, ANN001
        self.menu().exec(event.globalPos())

    def menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction("Open", lambda: self.open_requested.emit(self.keepsake))
        menu.addAction("Edit note…", lambda: self.edit_requested.emit(self.keepsake))
        menu.addAction("Delete…", lambda: self.delete_requested.emit(self.keepsake))
        return menu


class PhotoboardWindow(QWidget):
    """The board over ``service``'s database and data folder; ``cards`` newest first."""

    changed = Signal(int)  # the number of kept photos, after a refresh or a delete

    def __init__(self, service: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.service = service
        self.data_dir = Path(service.db.path).parent
        self.cards: list[KeepsakeCard] = []
        self.confirm: QMessageBox | None = None
        self.viewer: PhotoViewer | None = None
        self.note_dialog: NoteDialog | None = None
        self.setStyleSheet(STYLE_SHEET + BOARD_STYLE)
        self.resize(760, 620)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.scroll = QScrollArea(objectName="boardScroll", widgetResizable=True)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        body = QWidget(objectName="boardBody")
        self._column = QVBoxLayout(body)
        self._column.setContentsMargins(22, 18, 22, 18)
        self._column.setSpacing(14)
        self.heading = plain_label(objectName="boardTitle")
        self._column.addWidget(self.heading)
        self.status = plain_label(objectName="statusLine", wordWrap=True)  # storage errors
        self.status.hide()
        self._column.addWidget(self.status)
        centre = Qt.AlignmentFlag.AlignCenter
        self.empty = QLabel(EMPTY_TEXT, objectName="emptyTitle", alignment=centre)
        self.empty_hint = QLabel(EMPTY_HINT, objectName="pageHint", alignment=centre)
        self._column.addWidget(self.empty)
        self._column.addWidget(self.empty_hint)
        self._grid = QGridLayout()
        self._grid.setSpacing(SPACING)
        self._column.addLayout(self._grid)
        self._column.addStretch(1)
        self.scroll.setWidget(body)
        layout.addWidget(self.scroll)
        self._columns = 0
        self.refresh()

    # ------------------------------------------------------------------ content
    def refresh(self) -> None:
        """Reload the keepsakes from the database and rebuild the cards."""
        try:
            with self.service.db.read_session() as session:
                keepsakes = list(list_keepsakes(session, self.data_dir))
        except StorageError as exc:
            self._say(f"Could not read the kept photos: {exc}")
            return
        keepsakes.sort(key=lambda k: (k.created_at, k.id), reverse=True)
        for card in self.cards:
            self._grid.removeWidget(card)
            card.deleteLater()
        self.cards = []
        for keepsake in keepsakes:
            card = KeepsakeCard(keepsake)
            card.open_requested.connect(self.open_photo)
            card.edit_requested.connect(self.edit_note)
            card.delete_requested.connect(self.ask_delete)
            self.cards.append(card)
        self._columns = 0
        self._reflow()
        self._show_count()

    def _show_count(self) -> None:
        count = len(self.cards)
        label = "1 photo" if count == 1 else f"{count} photos"
        self.setWindowTitle(f"Photoboard ({label})")
        self.heading.setText(f"Photoboard · {label}")
        self.empty.setVisible(count == 0)
        self.empty_hint.setVisible(count == 0)
        self.changed.emit(count)

    def _reflow(self) -> None:
        width = self.scroll.viewport().width() - 44
        columns = max(1, (width + SPACING) // (CARD_W + SPACING))
        if columns == self._columns:
            return
        self._columns = columns
        for card in self.cards:
            self._grid.removeWidget(card)
        for index, card in enumerate(self.cards):
            self._grid.addWidget(card, index // columns, index % columns,
                                 Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self._grid.setColumnStretch(columns, 1)

    def resizeEvent(self, event) -> None:  # noqa: N802, ANN001
        super().resizeEvent(event)
        self._reflow()

    def _say(self, text: str) -> None:
        self.status.setText(text)
        self.status.setProperty("kind", "error")
        self.status.setVisible(bool(text))

    # ------------------------------------------------------------------ actions
    def open_photo(self, keepsake: Keepsake) -> PhotoViewer:
        self.viewer = PhotoViewer(keepsake, self)
        self.viewer.edit_requested.connect(lambda kept, v=self.viewer: self.edit_note(kept, v))
        self.viewer.show()
        return self.viewer

    def edit_note(self, keepsake: Keepsake, parent: QWidget | None = None) -> NoteDialog:
        """Open the note dialog on ``keepsake`` (window-modal over ``parent``, else the board)."""
        dialog = NoteDialog(keepsake.note, partial(self.save_note, keepsake.id), parent or self)
        self.note_dialog = dialog
        dialog.open()
        return dialog

    def save_note(self, keepsake_id: int, note: str) -> str | None:
        """Store ``note`` (bounded by storage) in one transaction, then show it on the card
        and in the viewer. None when stored, else a message for the user (nothing changed)."""
        try:
            kept = store_note(self.service.db, self.data_dir, keepsake_id, note)
        except StorageError as exc:
            return f"Could not save the note: {exc}"
        if kept is None:
            self.refresh()
            return "That photo is no longer on the board, so its note was not saved."
        for view in [*self.cards, self.viewer]:
            if view is not None and view.keepsake.id == keepsake_id:
                view.show_note(kept)
        return None

    def ask_delete(self, keepsake: Keepsake) -> QMessageBox:
        """Ask before deleting (a window-modal box; its "Delete" button deletes)."""
        box = QMessageBox(QMessageBox.Icon.Question, "Delete this photo?",
                          "Delete this photo and her note about it? It is removed from this "
                          "computer and cannot be brought back.", parent=self)
        delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(cancel)
        delete.clicked.connect(partial(self.delete, keepsake.id))
        self.confirm = box
        box.open()
        return box

    def delete(self, keepsake_id: int) -> bool:
        """Remove the keepsake (row and files) and its card; False when it was gone already."""
        try:
            with self.service.db.session() as session:
                removed = delete_keepsake(session, self.data_dir, keepsake_id)
        except (StorageError, OSError) as exc:
            self._say(f"Could not delete the photo: {exc}")
            return False
        self._say("" if removed else "That photo was already gone.")
        self.refresh()
        return bool(removed)
