"""Settings > Character's card section over a real database: import (the choice, the
portrait, notes and tags as plain text), the lorebook edited and saved, export."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from companion_desktop.storage import repository
from companion_desktop.storage.card_store import load_card
from companion_desktop.ui.card_import import KEEP, NEW
from companion_desktop.ui.settings import SettingsDialog
from tests.conftest import T0
from tests.storage.card_samples import chunk_json, portrait_png, text_chunk, v2_card

pytestmark = pytest.mark.qt
SHOTS = Path(os.environ.get("CARD_SHOTS", Path(__file__).resolve().parents[3] / "out-cards"))


@pytest.fixture
def dialog(qtbot, service):
    dlg = SettingsDialog(service, lambda: T0, page="Character")
    qtbot.addWidget(dlg)
    dlg.resize(900, 700)
    dlg.show()
    qtbot.waitExposed(dlg)
    return dlg


def card_file(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "mira.png"
    path.write_bytes(portrait_png(middle=(text_chunk(b"chara", v2_card(**changes)),)))
    return path


def shot(widget, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert widget.grab().save(str(SHOTS / name))


def test_import_shows_her_card_and_a_new_relationship_starts(dialog, service, tmp_path, qtbot):
    page, section = dialog.character, dialog.character.card
    shot(page, "character-page-before.png")
    section.importer.ask = lambda name, what: NEW if (name, what) == ("Mira", "card") else None
    done = section.importer.import_path(card_file(
        tmp_path, creator_notes="<img src='/etc/passwd'> Be kind.\nRain helps."))
    assert done is not None and done.new_relationship
    assert page.name.text() == "Mira" and "lighthouse painter" in page.prompt.toPlainText()
    assert not section.portrait.pixmap().isNull()
    assert section.notes.textFormat() == Qt.TextFormat.PlainText
    assert "(img src='/etc/passwd') Be kind." in section.notes.text()
    assert "Tags: sea, painter" in section.about.text()
    assert section.greeting.count() == 3 and section.lore.count() == 2
    assert section.status.text().startswith("✓  She is now Mira.")
    shot(page, "character-page-imported.png")
    assert dialog.save()  # the page's fields keep the card's name and persona
    with service.db.read_session() as session:
        assert repository.load_character(session).name == "Mira"


def test_the_lorebook_is_edited_and_saved(dialog, service, tmp_path):
    section = dialog.character.card
    section.importer.ask = lambda _name, _what: KEEP
    section.importer.import_path(card_file(tmp_path))
    section.lore.item(1).setCheckState(Qt.CheckState.Unchecked)  # kraken off
    section.lore.setCurrentRow(0)
    section.edit_entry = lambda e: e.model_copy(update={"keys": ["lamp", "tower"]})
    section.edit_current()
    section.edit_entry = lambda e: e.model_copy(update={"content": "Fog comes at dawn.",
                                                        "keys": ["fog"], "name": "fog"})
    section.add_entry()
    section.user_name.setText("Sam")
    section.greeting.setCurrentIndex(2)
    assert section.lore.count() == 3
    shot(dialog.character, "character-page-lorebook-edited.png")
    section.lore.setCurrentRow(2)
    section.delete_current()
    assert dialog.save()
    with service.db.read_session() as session:
        card = load_card(session)
    assert [(e.keys, e.enabled) for e in card.lorebook] == [
        (["lamp", "tower"], True), (["kraken"], False)]
    assert (card.user_name, card.greeting) == ("Sam", 2)


def test_a_bad_card_is_refused_in_one_line(dialog, tmp_path):
    section = dialog.character.card
    bad = tmp_path / "bad.png"
    bad.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\x10IHDR")
    section.importer.ask = lambda _name, _what: pytest.fail("asked about a bad card")
    assert section.importer.import_path(bad) is None
    assert section.status.text().startswith("✗  bad.png was not imported:")
    assert dialog.character.name.text() == "Hana"


def test_export_writes_a_card_png(dialog, tmp_path):
    section = dialog.character.card
    section.importer.ask = lambda _name, _what: KEEP
    section.importer.import_path(card_file(tmp_path))
    section.choose_export_path = lambda: tmp_path / "out.png"
    assert section.export() == tmp_path / "out.png"
    data = (tmp_path / "out.png").read_bytes()
    assert chunk_json(data, b"ccv3")["data"]["name"] == "Mira"
    assert chunk_json(data, b"chara")["spec"] == "chara_card_v2"
    assert "her portrait" in section.status.text()  # no 3D view in this test
