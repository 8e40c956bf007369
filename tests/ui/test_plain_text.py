"""Model, server and file text is shown as plain text on every surface: a reply with
``<img src="a local PNG" width=3000 height=2000>`` neither loads the picture nor blows
the widget up, and ``<b>x</b>`` shows its tags. Real widgets under pytest-qt."""

from __future__ import annotations

import dataclasses
import os

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from companion_desktop.engine.events.model import EventDefinition, Scene, SceneChoice
from tests.conftest import T0

pytestmark = pytest.mark.qt
BOLD = "<b>x</b>"


@pytest.fixture
def image_reply(tmp_path) -> str:
    picture = tmp_path / "local.png"
    image = QImage(64, 64, QImage.Format.Format_RGB32)
    image.fill(0xFF3366)
    assert image.save(str(picture))
    return f'<img src="{picture}" width=3000 height=2000>'


def shows_literally(label: QLabel, text: str) -> None:
    """``label`` shows ``text`` with its tags (its size is that of the literal text)."""
    assert label.text().endswith(text) or text in label.text()
    hint = label.sizeHint()
    assert hint.width() < 1500 and hint.height() < 1500, hint  # no 3000 × 2000 picture
    if text == BOLD:
        assert hint.width() >= label.fontMetrics().horizontalAdvance(BOLD)  # the tags show


def tip_is_literal(tip: str, text: str) -> None:
    doc = QTextDocument()
    if GuiQt.mightBeRichText(tip):
        doc.setHtml(tip)
    else:
        doc.setPlainText(tip)
    assert text in doc.toPlainText()
    assert doc.size().width() < 1500


@pytest.fixture(params=["image", "bold"])
def markup(request, image_reply) -> str:
    return image_reply if request.param == "image" else BOLD


def test_state_panel_name_and_mood_cause(qtbot, service, markup):
    from companion_desktop.ui.chat.state_panel import StatePanel

    panel = StatePanel()
    qtbot.addWidget(panel)
    state = service.load(T0).state
    mood = dataclasses.replace(state.mood, causes=[markup])
    panel.show_state(dataclasses.replace(state, name=markup, mood=mood))
    shows_literally(panel.mood, markup)
    shows_literally(panel.name, markup)


def test_scene_written_by_the_model(qtbot, service, markup):
    from companion_desktop.ui.chat.scene import SceneDialog

    choice = SceneChoice(text="Sure", response=markup)
    scene = Scene("s", intro=markup, dialogue=markup, choices=[choice], outro=markup)
    event = EventDefinition("made_up", "A moment", "milestone", scene=scene)
    dialog = SceneDialog(event, service, lambda: T0)
    qtbot.addWidget(dialog)
    dialog.choose(0)
    for label in (dialog.intro, dialog.dialogue, dialog.response, dialog.outro):
        shows_literally(label, markup)


def test_memory_graph_line_and_tooltip(qtbot, markup):
    from companion_desktop.storage.records import FactRecord
    from companion_desktop.ui.settings.memory.graph import MemoryGraph, NodeItem

    graph = MemoryGraph()
    qtbot.addWidget(graph)
    fact = FactRecord(1, markup, "personal", 50.0, 1.0, T0)
    graph.set_graph([fact], None)
    graph.view.hovered.emit(markup)
    shows_literally(graph.info, markup)
    nodes = [item for item in graph.view.scene().items() if isinstance(item, NodeItem)]
    assert nodes
    tip_is_literal(nodes[0].toolTip(), markup)


def test_chat_window_title_and_status_lines(bare_chat, markup):
    bare_chat.title.setText(markup)  # her name (an imported save file may set it)
    bare_chat.model_line.setText(markup)  # a model name from the server's list
    shows_literally(bare_chat.title, markup)
    shows_literally(bare_chat.model_line, markup)


def test_settings_status_lines_with_server_errors(qtbot, service, markup):
    from companion_desktop.storage.settings import McpServerEntry
    from companion_desktop.ui.settings.tools.editor import Draft
    from companion_desktop.ui.settings.tools.page import McpPage

    page = McpPage(service)
    qtbot.addWidget(page)
    draft = Draft(McpServerEntry(name="demo"))
    page.drafts.append(draft)
    page._add_row(draft)
    page.server_list.setCurrentRow(0)
    page._list_failed(draft, RuntimeError(markup))
    shows_literally(page.status_line, markup)


def test_photo_chip_and_note_dialog_status(qtbot, markup):
    from companion_desktop.ui.photos.note_dialog import NoteDialog
    from companion_desktop.ui.photos.widgets import PhotoChip

    chip = PhotoChip()
    qtbot.addWidget(chip)
    chip.status.setText(markup)
    shows_literally(chip.status, markup)
    chip._set_name(markup)
    tip_is_literal(chip.name_label.toolTip(), markup)
    dialog = NoteDialog("", lambda _text: markup)
    qtbot.addWidget(dialog)
    dialog.save()
    shows_literally(dialog.status, markup)


def test_questions_with_names_in_them(qtbot, markup):
    from companion_desktop.ui.plain import ask_yes_no

    seen: list[QMessageBox] = []

    def answer() -> None:
        box = QApplication.activeModalWidget()
        assert isinstance(box, QMessageBox)
        seen.append(box)
        label = box.findChild(QLabel, "qt_msgbox_label")
        shows_literally(label, f"Delete {markup}?")
        box.button(QMessageBox.StandardButton.No).click()

    QTimer.singleShot(100, answer)
    assert ask_yes_no(None, "Delete memory", f"Delete {markup}?") is False
    assert seen


@pytest.mark.gl
@pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (Xvfb) for OpenGL")
def test_overlay_bubble(qtbot, markup):
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.overlay.window import OverlayWindow

    overlay = OverlayWindow(AvatarHost(fps=30, seed=1), click_through=False)
    qtbot.addWidget(overlay)
    overlay.show()
    overlay.on_done(markup)
    shows_literally(overlay.bubble.label, markup)
    assert overlay.bubble.width() < 1000 and overlay.bubble.height() < 1000


def test_model_section_title_from_the_vrm(qtbot, service, markup):
    """The VRM's own title (written by whoever made the file) is escaped in the bold line."""
    from PySide6.QtCore import QObject, Signal

    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.resources import default_avatar_path
    from companion_desktop.ui.settings.model_section import ModelSection

    class Host(QObject):  # the three signals and the model ModelSection reads
        model_changed, load_failed, loading = Signal(), Signal(str), Signal(str)

        def __init__(self, model) -> None:
            super().__init__()
            self.model, self.model_path = model, None

    model = load_model(default_avatar_path())
    meta = model.meta
    model.meta = dataclasses.replace(meta, name=markup) if dataclasses.is_dataclass(meta) else meta
    if not dataclasses.is_dataclass(meta):
        meta.name = markup
    section = ModelSection(service, Host(model))
    qtbot.addWidget(section)
    document = QTextDocument()
    document.setHtml(section.current.text())
    assert markup in document.toPlainText()
    assert section.current.sizeHint().width() < 1500
