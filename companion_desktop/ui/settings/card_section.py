"""Settings > Character > Character card: import and export a card, her portrait, the
card's creator notes and tags (shown as plain text, never sent), the greeting of her
next new relationship (and of the one now, while unanswered) with "Start a new
relationship…", what she calls the user, and her lorebook (enable, edit, delete, add).
Edits are saved with the page (``apply``); an import or a new start is saved at once.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import repository
from companion_desktop.storage.card_greeting import choose_greeting
from companion_desktop.storage.card_store import StoredCard, StoredEntry, load_card
from companion_desktop.storage.settings import save_settings
from companion_desktop.ui.card_import import CardImporter
from companion_desktop.ui.plain import ask_choice, plain_label, plain_tip
from companion_desktop.ui.settings.form import name_labels, new_form, status

PORTRAIT_SIZE = (120, 180)
NO_CARD = "No card yet: import one to make her that character, or export her as one."


def _keys(text: str) -> list[str]:
    return [k.strip() for k in text.split(",") if k.strip()][:50]


class EntryDialog(QDialog):
    """Edit one lorebook entry: name, keys, secondary keys, text, always on."""

    def __init__(self, entry: StoredEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Lorebook entry")
        form = QFormLayout(self)
        self.name = QLineEdit(entry.name, objectName="entryName", maxLength=200)
        self.keys = QLineEdit(", ".join(entry.keys), objectName="entryKeys")
        self.secondary = QLineEdit(", ".join(entry.secondary_keys), objectName="entrySecondary")
        self.content = QPlainTextEdit(objectName="entryContent")
        self.content.setPlainText(entry.content)
        self.constant = QCheckBox("Always in the prompt", checked=entry.constant)
        form.addRow("Name", self.name)
        form.addRow("Keys (comma-separated)", self.keys)
        form.addRow("Also needs", self.secondary)
        form.addRow("Text", self.content)
        form.addRow("", self.constant)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.base = entry

    def entry(self) -> StoredEntry:
        secondary = _keys(self.secondary.text())
        return self.base.model_copy(update={
            "name": self.name.text().strip()[:200], "keys": _keys(self.keys.text()),
            "secondary_keys": secondary, "selective": bool(secondary) or self.base.selective,
            "content": self.content.toPlainText().strip()[:8000],
            "constant": self.constant.isChecked()})


class CardSection(QWidget):
    """The card part of the Character page; ``imported(CardImport)`` after an import."""

    imported = Signal(object)

    def __init__(self, service: CompanionService, clock: Callable[[], datetime],
                 parent: QWidget | None = None, render: Callable[[], bytes] | None = None):
        super().__init__(parent)
        self.service = service
        self.clock = clock
        self.render = render  # her avatar as PNG bytes for an export (None: her portrait)
        self.importer = CardImporter(service.db, clock, self)
        self.importer.imported.connect(self._imported)
        self.importer.refused.connect(lambda text: status(self.status, f"✗  {text}", "error"))
        self.importer.working.connect(lambda text: text and status(self.status, text, "hint"))
        self.choose_export_path: Callable[[], Path | None] = self._export_path
        self.edit_entry: Callable[[StoredEntry], StoredEntry | None] = self._edit
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.portrait = QLabel(objectName="cardPortrait", alignment=Qt.AlignmentFlag.AlignCenter)
        self.portrait.setFixedSize(*PORTRAIT_SIZE)
        top.addWidget(self.portrait)
        about = QVBoxLayout()
        self.about = plain_label(objectName="cardAbout", wordWrap=True)
        self.notes = plain_label(objectName="cardNotes", wordWrap=True)
        self.notes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        about.addWidget(self.about)
        about.addWidget(self.notes)
        buttons = QHBoxLayout()
        self.import_button = QPushButton("Import a character card…", objectName="secondaryButton")
        self.export_button = QPushButton("Export as a card…", objectName="secondaryButton")
        self.import_button.clicked.connect(self.importer.choose)
        self.export_button.clicked.connect(self.export)
        buttons.addWidget(self.import_button)
        buttons.addWidget(self.export_button)
        buttons.addStretch(1)
        about.addStretch(1)
        top.addLayout(about, 1)
        layout.addLayout(top)
        layout.addLayout(buttons)
        form = new_form()
        self.user_name = QLineEdit(objectName="userName", maxLength=60,
                                   placeholderText="User")
        form.addRow("She calls you", self.user_name)
        self.greeting = QComboBox(objectName="greetingChoice")
        self.greeting.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.greeting.setMinimumContentsLength(20)  # a long greeting never widens the page
        self.again_button = QPushButton("Start a new relationship…", objectName="secondaryButton")
        self.again_button.setToolTip("You meet her for the first time and she greets you; "
                                     "the current relationship is backed up first.")
        self.again_button.clicked.connect(self.start_again)
        self.confirm_again: Callable[[str], bool] = self._confirm_again
        form.addRow("First greeting", self.greeting)
        again_row = QHBoxLayout()
        again_row.addWidget(self.again_button)
        again_row.addStretch(1)
        form.addRow("", again_row)
        self.lore = QListWidget(objectName="loreList")
        self.lore.setMinimumHeight(140)
        self.lore.itemDoubleClicked.connect(lambda _item: self.edit_current())
        lore_box = QVBoxLayout()
        lore_box.addWidget(self.lore)
        lore_buttons = QHBoxLayout()
        for text, slot in (("Add", self.add_entry), ("Edit", self.edit_current),
                           ("Delete", self.delete_current)):
            button = QPushButton(text, objectName="secondaryButton")
            button.clicked.connect(slot)
            lore_buttons.addWidget(button)
        lore_buttons.addStretch(1)
        lore_box.addLayout(lore_buttons)
        form.addRow("Lorebook", lore_box)
        name_labels(form)
        layout.addLayout(form)
        self.status = plain_label(objectName="statusLine", wordWrap=True)
        self.status.hide()
        layout.addWidget(self.status)
        self.reload()

    # ---------------------------------------------------------------- showing
    def reload(self) -> None:
        """Show the card as saved."""
        with self.service.db.read_session() as session:
            self.stored = load_card(session)
        card = self.stored
        image = card.portrait()
        pixmap = QPixmap()
        if image and pixmap.loadFromData(image):
            self.portrait.setPixmap(pixmap.scaled(*PORTRAIT_SIZE,
                                                  Qt.AspectRatioMode.KeepAspectRatio,
                                                  Qt.TransformationMode.SmoothTransformation))
        else:
            self.portrait.setPixmap(QPixmap())
            self.portrait.setText("No portrait")
        if card.present:
            by = f" by {card.creator}" if card.creator else ""
            tags = f"\nTags: {', '.join(card.tags)}" if card.tags else ""
            self.about.setText(f"From {card.source_name or 'a card'} ({card.spec}){by}{tags}")
        else:
            self.about.setText(NO_CARD)
        self.notes.setText(f"Creator's notes (never sent to the model):\n{card.creator_notes}"
                           if card.creator_notes else "")
        self.notes.setVisible(bool(card.creator_notes))
        self.user_name.setText(card.user_name)
        self.greeting.clear()
        for index, text in enumerate(card.greetings()):
            label = "First message" if index == 0 and card.first_message else f"Alternate {index}"
            self.greeting.addItem(f"{label}: {' '.join(text.split())[:80]}")
        self.greeting.setCurrentIndex(min(card.greeting, max(0, self.greeting.count() - 1)))
        self.greeting.setEnabled(self.greeting.count() > 1)
        self.greeting.setToolTip("Her first message when a new relationship starts (and, "
                                 "until you answer it, the greeting she gave).")
        self.again_button.setEnabled(card.present)
        self.entries = list(card.lorebook)
        self._show_entries()

    def _show_entries(self) -> None:
        self.lore.clear()
        for entry in self.entries:
            keys = ", ".join(entry.keys) or ("always" if entry.constant else "no keys")
            item = QListWidgetItem(f"{entry.name or entry.content[:40]}  —  {keys}")
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if entry.enabled else Qt.CheckState.Unchecked)
            item.setToolTip(plain_tip(entry.content[:500]))
            self.lore.addItem(item)

    # ---------------------------------------------------------------- lorebook
    def _edit(self, entry: StoredEntry) -> StoredEntry | None:
        dialog = EntryDialog(entry, self)
        return dialog.entry() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def _take_checks(self) -> None:
        for row, entry in enumerate(self.entries):
            on = self.lore.item(row).checkState() == Qt.CheckState.Checked
            self.entries[row] = entry.model_copy(update={"enabled": on})

    def add_entry(self) -> None:
        self._take_checks()
        made = self.edit_entry(StoredEntry(content=""))
        if made is not None and made.content:
            self.entries.append(made)
            self._show_entries()

    def edit_current(self) -> None:
        row = self.lore.currentRow()
        if 0 <= row < len(self.entries):
            self._take_checks()
            made = self.edit_entry(self.entries[row])
            if made is not None and made.content:
                self.entries[row] = made
                self._show_entries()
                self.lore.setCurrentRow(row)

    def delete_current(self) -> None:
        row = self.lore.currentRow()
        if 0 <= row < len(self.entries):
            self._take_checks()
            del self.entries[row]
            self._show_entries()

    def apply(self) -> None:
        """Save what she calls the user, the greeting and the lorebook as edited."""
        self._take_checks()
        with self.service.db.session() as session:
            stored = load_card(session)
            update = {"user_name": self.user_name.text().strip(),
                      "lorebook": list(self.entries)}
            if any(getattr(stored, k) != v for k, v in update.items()):
                save_settings(session, StoredCard(**{**stored.model_dump(), **update}))
        index = self.greeting.currentIndex()
        if index >= 0 and index != stored.greeting:  # her open greeting says it too
            choose_greeting(self.service.db, index)

    # ------------------------------------------------------------ start again
    def _confirm_again(self, name: str) -> bool:
        role = QMessageBox.ButtonRole
        return ask_choice(
            self, "Start a new relationship", f"Meet {name} for the first time?",
            "Your stats, stage, memories and conversation with her start again; the current "
            "relationship is backed up first (Settings > Data can restore it). Her card, "
            "lorebook and avatar stay.",
            [("Start a new relationship", role.DestructiveRole)]) == 0

    def start_again(self) -> object | None:
        """Ask, then begin a new relationship with her as she is (the greeting chosen
        above); ``imported`` fires with what was done."""
        from companion_desktop.storage.card_greeting import start_again
        from companion_desktop.storage.errors import StorageError

        self.apply()  # the greeting and lorebook as shown
        with self.service.db.read_session() as session:
            name = repository.load_or_create_character(session, self.clock()).name
        if not self.confirm_again(name):
            return None
        try:
            done = start_again(self.service.db, self.clock())
        except StorageError as error:
            status(self.status, f"✗  {error}", "error")
            return None
        self.reload()
        status(self.status, f"✓  A new relationship with {done.name} begins.", "ok")
        self.imported.emit(done)
        return done

    # ---------------------------------------------------------------- import / export
    def _imported(self, done: object) -> None:
        self.reload()
        notes = " ".join(getattr(done, "notes", ()))
        name = getattr(done, "name", "her")
        status(self.status, f"✓  She is now {name}. {notes}".strip(), "ok")
        self.imported.emit(done)

    def _export_path(self) -> Path | None:
        path, _ = QFileDialog.getSaveFileName(self, "Export her as a character card",
                                              str(Path.home() / "character.png"),
                                              "Character card (*.png)")
        return Path(path).with_suffix(".png") if path else None

    def export(self) -> Path | None:
        """Write her card (V3 with a V2 chunk) on a picture of her; the path, or None."""
        from companion_desktop.pipeline.card_export import card_picture, card_png

        path = self.choose_export_path()
        if path is None:
            return None
        self.apply()  # the lorebook as shown goes out
        picture = card_picture(self.service.db, self.render or _no_render)
        try:
            path.write_bytes(card_png(self.service.db, self.clock(), picture))
        except OSError as error:
            status(self.status, f"✗  {path.name} could not be written: {error}", "error")
            return None
        how = "" if picture.kind == "render" else (
            f" Her avatar could not be drawn ({picture.reason}), so the image is "
            f"{'her portrait' if picture.kind == 'portrait' else 'a plain one'}.")
        status(self.status, f"✓  Wrote {path.name}.{how}", "ok")
        return path


def _no_render() -> bytes:
    raise RuntimeError("her 3D view is not available")


def host_render(host: object) -> Callable[[], bytes]:
    """A PNG of her as she is now, drawn by the app's avatar host (``ui.avatar``)."""

    def render() -> bytes:
        import numpy as np
        from PIL import Image

        from companion_desktop.avatar.render.camera import frame_camera

        gl, model, frame = (getattr(host, n, None) for n in ("gl", "model", "frame"))
        if gl is None or model is None or frame is None:
            raise RuntimeError("her 3D view has not been drawn yet")
        width, height = 512, 768
        camera = frame_camera(model, frame, "upper", width / height)
        bgra = gl.picture("card-export", model, frame, camera, width, height).astype(np.float32)
        gl.forget("card-export")
        alpha = bgra[..., 3:4]
        rgb = bgra[..., 2::-1] * 255.0 / np.maximum(alpha, 1.0)
        rgba = np.concatenate([rgb, alpha], axis=-1).clip(0, 255).astype(np.uint8)
        out = io.BytesIO()
        Image.fromarray(rgba).save(out, "PNG")
        return out.getvalue()

    return render
