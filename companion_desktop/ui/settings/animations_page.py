"""Settings > Animations: her emotes and the user's .vrma clips, her idles, her thinking clip.

Names, descriptions, "Companion can use", the idle pool and the thinking clip are
edited here and written by ``apply()``. Uploads and deletions take effect at once
(an upload is parsed off the GUI thread with a busy indicator; a refusal is shown
inline with the loader's reason). ``library_changed`` fires after each of these so
the overlay and the chat window pick the change up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.pipeline.animations import AnimationService
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage import animations as store
from companion_desktop.storage.animations import AnimationEntry
from companion_desktop.storage.errors import StorageError
from companion_desktop.ui.background import Latest, run_in_background
from companion_desktop.ui.plain import ask_yes_no, plain_label
from companion_desktop.ui.settings.llm_page import SettingsProblem, status
from companion_desktop.ui.switch import Switch

FILE_FILTER = "VRM animations (*.vrma);;All files (*)"
KIND_NAMES = {"idle": "Built-in idle", "emote": "Built-in emote", "upload": "Your upload"}
NO_AVATAR = "Preview needs the avatar: open her in the chat window or the overlay first."


class EntryRow(QFrame):
    """One emote or upload: name, description, "Companion can use", Preview, Delete."""

    def __init__(self, entry: AnimationEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("animationRow")
        self.entry = entry
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 6, 0, 6)
        box.setSpacing(4)
        top = QHBoxLayout()
        self.name = QLineEdit(entry.name, objectName="animationName")
        self.name.setMaxLength(store.NAME_MAX)
        self.kind = plain_label(KIND_NAMES.get(entry.kind, entry.kind), objectName="pageHint")
        self.kind.setMinimumWidth(96)
        self.preview = QPushButton("▶  Preview", objectName="secondaryButton")
        self.delete = QPushButton("Delete", objectName="linkButton")
        self.delete.setVisible(not entry.builtin)
        top.addWidget(self.name, 1)
        top.addWidget(self.kind)
        top.addWidget(self.preview)
        top.addWidget(self.delete)
        box.addLayout(top)
        self.description = QLineEdit(entry.description, objectName="animationDescription")
        self.description.setMaxLength(store.DESCRIPTION_MAX)
        self.description.setPlaceholderText("What it shows, for her: e.g. waves hello")
        box.addWidget(self.description)
        self.enabled = Switch("Companion can use")
        self.enabled.setObjectName("animationEnabled")
        self.enabled.setChecked(entry.enabled)
        box.addWidget(self.enabled)

    def changes(self) -> dict[str, Any]:
        """What differs from the stored entry (names and descriptions stripped)."""
        found: dict[str, Any] = {}
        if self.name.text().strip() != self.entry.name:
            found["name"] = self.name.text()
        if self.description.text().strip() != self.entry.description:
            found["description"] = self.description.text()
        if self.enabled.isChecked() != self.entry.enabled:
            found["enabled"] = self.enabled.isChecked()
        return found


class AnimationsPage(QWidget):
    """``apply()`` saves the edits; ``library_changed`` fires after apply, upload, delete."""

    library_changed = Signal()

    def __init__(self, service: CompanionService, host: object | None = None,
                 animations: AnimationService | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.host = host
        self._previews = Latest(self)  # the clip clicked last plays
        self.animations = animations or getattr(service, "animations", None) or AnimationService(
            service.db, service.db.path.parent)
        #: Asks the user a yes/no question (tests replace it).
        self.confirm: Callable[[str], bool] = self._ask
        self.entries: dict[str, AnimationEntry] = {}  # as stored, by id
        self.rows: dict[str, EntryRow] = {}
        self.pool_boxes: dict[str, QCheckBox] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Animations", objectName="pageTitle"))
        layout.addWidget(QLabel(
            "Her emotes and your own .vrma clips. Switch on the ones she may play when she "
            "reacts; she sees each one's description.", objectName="pageHint", wordWrap=True))
        layout.addSpacing(6)
        self._upload_box(layout)
        layout.addWidget(QLabel("Emotes and uploads", objectName="sectionTitle"))
        self.list_box = QVBoxLayout()
        self.list_box.setSpacing(2)
        layout.addLayout(self.list_box)
        self.preview_status = plain_label(objectName="statusLine", wordWrap=True)
        layout.addWidget(self.preview_status)
        layout.addSpacing(10)
        layout.addWidget(QLabel("Idling", objectName="sectionTitle"))
        layout.addWidget(QLabel(
            "She idles with the ticked clips, one or two loops each. None ticked: all "
            "built-in idles.", objectName="pageHint", wordWrap=True))
        self.pool_box = QVBoxLayout()
        self.pool_box.setSpacing(2)
        layout.addLayout(self.pool_box)
        layout.addSpacing(10)
        layout.addWidget(QLabel("While thinking", objectName="sectionTitle"))
        self.thinking = QComboBox(objectName="thinkingCombo")
        self.thinking.setMinimumWidth(240)
        layout.addWidget(self.thinking, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(QLabel("Loops from sending until her reply starts.",
                                objectName="pageHint", wordWrap=True))
        layout.addStretch(1)
        for label in (self.upload_status, self.preview_status):
            label.hide()
        self.reload()

    def _upload_box(self, layout: QVBoxLayout) -> None:
        line = QHBoxLayout()
        self.upload_button = QPushButton("Upload a .vrma…", objectName="secondaryButton")
        self.upload_button.clicked.connect(self.choose_file)
        line.addWidget(self.upload_button)
        line.addWidget(QLabel("at most 25 MB", objectName="pageHint"))
        line.addStretch(1)
        layout.addLayout(line)
        self.busy = QProgressBar(objectName="uploadBusy")
        self.busy.setRange(0, 0)  # indeterminate while the file is read
        self.busy.setMaximumHeight(8)
        self.busy.setTextVisible(False)
        self.busy.hide()
        layout.addWidget(self.busy)
        self.upload_status = plain_label(objectName="statusLine", wordWrap=True)
        self.upload_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.upload_status)

    # ------------------------------------------------------------ building
    def reload(self) -> None:
        """Show what is stored now (unsaved edits are dropped)."""
        for row in self.rows.values():
            self._drop(self.list_box, row)
        for box in self.pool_boxes.values():
            self._drop(self.pool_box, box)
        self.entries.clear()
        self.rows.clear()
        self.pool_boxes.clear()
        try:
            entries = self.animations.list_entries()
            chosen = self.animations.thinking_clip()
            choices = self.animations.thinking_choices()
        except StorageError as error:
            status(self.upload_status, f"The animation library could not be read: {error}",
                   "error")
            return
        for entry in entries:
            self._add(entry)
        self.thinking.clear()
        self.thinking.addItem("None", None)
        for clip_id, name in choices:
            self.thinking.addItem(name, clip_id)
        self.thinking.setCurrentIndex(max(0, self.thinking.findData(chosen)))

    @staticmethod
    def _drop(layout: QVBoxLayout, widget: QWidget) -> None:
        layout.removeWidget(widget)
        widget.hide()
        widget.deleteLater()

    def _add(self, entry: AnimationEntry) -> None:
        self.entries[entry.id] = entry
        if entry.kind in ("emote", store.UPLOAD):
            row = EntryRow(entry)
            row.preview.clicked.connect(lambda _=False, i=entry.id: self.preview(i))
            row.delete.clicked.connect(lambda _=False, i=entry.id: self.delete(i))
            self.rows[entry.id] = row
            self.list_box.addWidget(row)
        if entry.kind in ("idle", store.UPLOAD):
            box = QCheckBox(entry.name, objectName="idlePoolBox")
            box.setChecked(entry.in_idle_pool)
            self.pool_boxes[entry.id] = box
            self.pool_box.addWidget(box)

    # --------------------------------------------------------------- upload
    def choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose an animation", str(Path.home()),
                                              FILE_FILTER)
        if path:
            self.upload_file(Path(path))

    def upload_file(self, path: Path | str) -> None:
        """Check, parse and add ``path`` off the GUI thread; the outcome shows inline."""
        path = Path(path)
        self.busy.show()
        self.upload_button.setEnabled(False)
        status(self.upload_status, f"Reading {path.name}…", "hint")
        run_in_background(self, lambda: self.animations.upload(path), self._uploaded,
                          self._upload_failed)

    def _uploaded(self, entry: AnimationEntry) -> None:
        self._upload_done()
        self._add(entry)
        self.thinking.addItem(entry.name, entry.id)
        status(self.upload_status, f"✓  Added {entry.name}.", "ok")
        self.library_changed.emit()

    def _upload_failed(self, error: Exception) -> None:
        self._upload_done()
        status(self.upload_status, f"✗  {error}", "error")

    def _upload_done(self) -> None:
        self.busy.hide()
        self.upload_button.setEnabled(True)

    # --------------------------------------------------------------- delete
    def _ask(self, text: str) -> bool:
        return ask_yes_no(self, "Delete animation", text)

    def delete(self, animation_id: str) -> bool:
        """Delete an upload after confirmation; True when it is gone."""
        row = self.rows.get(animation_id)
        name = row.entry.name if row is not None else animation_id
        if not self.confirm(f"Delete {name}? Its file is removed from the data folder."):
            return False
        try:
            self.animations.delete(animation_id)
        except (ValueError, LookupError, StorageError, OSError) as error:
            status(self.upload_status, f"✗  {error}", "error")
            return False
        self.entries.pop(animation_id, None)
        if row is not None:
            self._drop(self.list_box, self.rows.pop(animation_id))
        if animation_id in self.pool_boxes:
            self._drop(self.pool_box, self.pool_boxes.pop(animation_id))
        index = self.thinking.findData(animation_id)
        if index >= 0:
            if self.thinking.currentIndex() == index:
                self.thinking.setCurrentIndex(0)
            self.thinking.removeItem(index)
        status(self.upload_status, f"Deleted {name}.", "ok")
        self.library_changed.emit()
        return True

    # -------------------------------------------------------------- preview
    def player(self) -> Callable[[Any], bool] | None:
        """The avatar's ``play_emote(clip)``: the host's own, else the mixer of its runtime
        (``runtime.mixer`` or the ``AnimationDriver`` at ``runtime.animation.mixer``)."""
        if self.host is None or getattr(self.host, "model", True) is None:
            return None
        play = getattr(self.host, "play_emote", None)
        if callable(play):
            return play
        runtime = getattr(self.host, "runtime", None)
        for mixer in (getattr(runtime, "mixer", None),
                      getattr(getattr(runtime, "animation", None), "mixer", None)):
            play = getattr(mixer, "play_emote", None)
            if callable(play):
                return play
        return None

    def preview(self, animation_id: str) -> None:
        """Play the clip once on her (the clip is read off the GUI thread)."""
        if self.player() is None:
            status(self.preview_status, NO_AVATAR, "error")
            return
        status(self.preview_status, "Loading the clip…", "hint")
        self._previews.run(lambda: self.animations.clip(animation_id), self._play,
                           lambda error: status(self.preview_status, f"✗  {error}", "error"))

    def _play(self, clip: Any) -> None:
        play = self.player()
        if play is None:
            status(self.preview_status, NO_AVATAR, "error")
            return
        poke = getattr(self.host, "poke", None)
        if callable(poke):
            poke(max(2.5, float(getattr(clip, "duration", 0.0)) + 0.5))
        if play(clip) is False:
            status(self.preview_status, "She is busy with another animation; try again in a "
                                        "moment.", "hint")
        else:
            status(self.preview_status, f"Playing {getattr(clip, 'name', '') or 'the clip'}.",
                   "ok")

    # ----------------------------------------------------------------- save
    def changes(self) -> dict[str, dict[str, Any]]:
        """Edits not saved yet, by entry id."""
        found: dict[str, dict[str, Any]] = {}
        for animation_id, row in self.rows.items():
            if row.changes():
                found[animation_id] = row.changes()
        for animation_id, box in self.pool_boxes.items():
            stored = self.entries.get(animation_id)
            if stored is not None and box.isChecked() != stored.in_idle_pool:
                found.setdefault(animation_id, {})["in_idle_pool"] = box.isChecked()
        return found

    def check(self) -> None:
        """SettingsProblem naming the entry whose name or description cannot be saved."""
        for row in self.rows.values():
            try:
                store.check_name(row.name.text())
                store.check_description(row.description.text())
            except ValueError as error:
                raise SettingsProblem(f"Animations, {row.entry.name}: {error}") from None

    def apply(self) -> None:
        """Write every edit and the thinking clip in one transaction; then ``library_changed``."""
        self.check()
        try:
            self.animations.save_edits(self.changes(), self.thinking.currentData())
        except (ValueError, LookupError) as error:
            raise SettingsProblem(f"Animations: {error}") from None
        self.reload()
        self.library_changed.emit()
