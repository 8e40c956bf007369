"""Settings > Display > Start: "Start with my computer" writes and removes the XDG
autostart entry (in a temporary XDG_CONFIG_HOME), and "At start" round-trips."""

from __future__ import annotations

import pytest

from companion_desktop import desktop_entry
from companion_desktop.storage.settings import DisplaySettings, load_settings, save_settings
from tests.conftest import T0

pytestmark = pytest.mark.qt


@pytest.fixture
def config_home(tmp_path, monkeypatch):
    home = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


def open_display(qtbot, service):
    from companion_desktop.ui.settings import SettingsDialog

    dialog = SettingsDialog(service, lambda: T0, page="Display")
    qtbot.addWidget(dialog)
    return dialog


def stored(service) -> DisplaySettings:
    with service.db.read_session() as session:
        return load_settings(session, DisplaySettings)


def test_start_settings_round_trip_and_refuse_unknown_values(service):
    with service.db.session() as session:
        save_settings(session, DisplaySettings(autostart=True, start_hidden="tray"))
    assert stored(service).autostart is True and stored(service).start_hidden == "tray"
    with pytest.raises(ValueError):
        DisplaySettings(start_hidden="minimised")
    assert DisplaySettings().autostart is False and DisplaySettings().start_hidden == "no"


@pytest.mark.skipif(not desktop_entry.autostart_supported(), reason="XDG autostart is Linux-only")
def test_start_with_my_computer_writes_and_removes_the_entry(qtbot, service, config_home):
    entry = config_home / "autostart" / f"{desktop_entry.APP_ID}.desktop"
    dialog = open_display(qtbot, service)
    page = dialog.display
    assert not page.autostart.isChecked() and page.start_hidden.currentData() == "no"
    page.autostart.setChecked(True)
    page.start_hidden.setCurrentIndex(page.start_hidden.findData("overlay"))
    assert dialog.save()
    text = entry.read_text()
    assert "[Desktop Entry]" in text and "X-GNOME-Autostart-enabled=true" in text
    folder = str(service.db.path.parent.resolve())
    assert f"--data-dir {folder}" in text  # not the default folder: the entry names it
    assert stored(service).autostart is True and stored(service).start_hidden == "overlay"

    again = open_display(qtbot, service).display  # the page shows what was saved
    assert again.autostart.isChecked() and again.start_hidden.currentData() == "overlay"
    again.autostart.setChecked(False)
    again.apply()
    assert not entry.exists() and stored(service).autostart is False


@pytest.mark.skipif(not desktop_entry.autostart_supported(), reason="XDG autostart is Linux-only")
def test_an_unwritable_autostart_folder_is_said_and_nothing_is_saved(qtbot, service, config_home):
    config_home.mkdir()
    (config_home / "autostart").write_text("a file where the folder should be")
    dialog = open_display(qtbot, service)
    dialog.display.autostart.setChecked(True)
    dialog.display.mood_faces.setChecked(False)
    assert not dialog.save()
    assert "Start with my computer" in dialog.problem.text()
    assert stored(service).autostart is False and stored(service).mood_expressions is True


def test_other_systems_are_told_it_is_not_supported_yet(qtbot, service, config_home, monkeypatch):
    monkeypatch.setattr(desktop_entry, "autostart_supported", lambda platform=None: False)
    with service.db.session() as session:
        save_settings(session, DisplaySettings(autostart=True))
    page = open_display(qtbot, service).display
    assert not page.autostart.isEnabled() and not page.autostart.isChecked()
    hints = [label.text() for label in page.findChildren(type(page.fps_label))]
    assert any("not supported on this system yet" in text.lower() for text in hints)
    page.apply()  # saving does not fail, and writes nothing
    assert not config_home.exists() and stored(service).autostart is False
