"""The XDG autostart entry (companion_desktop.desktop_entry), Qt-free: where it goes,
what it runs, and that the freedesktop validator accepts it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion_desktop import desktop_entry
from companion_desktop.storage.paths import resolve_data_dir


def test_the_entry_goes_under_xdg_config_home(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path / "cfg"), "HOME": str(tmp_path / "home")}
    assert desktop_entry.autostart_path(env) == (
        tmp_path / "cfg" / "autostart" / f"{desktop_entry.APP_ID}.desktop")
    for unset in ({"HOME": str(tmp_path / "home")},
                  {"XDG_CONFIG_HOME": "relative/not/allowed", "HOME": str(tmp_path / "home")}):
        assert desktop_entry.config_home(unset) == tmp_path / "home" / ".config"


def test_data_dir_is_named_only_when_not_the_default(tmp_path):
    command = ["/opt/companion/companion-desktop"]
    assert desktop_entry.autostart_command(resolve_data_dir(None, environ={}), command) == command
    assert desktop_entry.autostart_command(None, command) == command
    other = tmp_path / "her data"
    assert desktop_entry.autostart_command(other, command) == [*command, "--data-dir", str(other)]


def test_exec_quoting_follows_the_desktop_entry_spec():
    assert desktop_entry.quote_exec(["/usr/bin/companion-desktop"]) == "/usr/bin/companion-desktop"
    assert desktop_entry.quote_exec(["/a b/app", "100%"]) == '"/a b/app" 100%%'
    # a backslash inside quotes is four in the file (string escape, then quoting)
    assert desktop_entry.quote_exec(["C:\\x y"]) == '"C:\\\\\\\\x y"'
    assert desktop_entry.quote_exec(['say "hi"', "$HOME"]) == '"say \\\\"hi\\\\"" "\\\\$HOME"'


def test_set_and_remove(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    path = desktop_entry.set_autostart(True, tmp_path / "data", env, ["/bin/companion-desktop"])
    assert desktop_entry.autostart_enabled(env)
    assert f"Exec=/bin/companion-desktop --data-dir {tmp_path / 'data'}" in path.read_text()
    assert f"Icon={desktop_entry.APP_ID}" in path.read_text()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no partial file left
    desktop_entry.set_autostart(False, environ=env)
    assert not path.exists() and not desktop_entry.autostart_enabled(env)
    desktop_entry.set_autostart(False, environ=env)  # removing twice is fine


def test_the_running_program_is_the_command():
    command = desktop_entry.launch_command()
    assert Path(command[0]).is_absolute()
    if len(command) > 1:
        assert command == [sys.executable, "-m", "companion_desktop"]


def test_only_xdg_systems_are_supported():
    assert desktop_entry.autostart_supported("linux")
    assert not desktop_entry.autostart_supported("win32")
    assert not desktop_entry.autostart_supported("darwin")


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None,
                    reason="desktop-file-validate is not installed (Debian: desktop-file-utils)")
def test_the_autostart_entry_validates(tmp_path):
    env = {"XDG_CONFIG_HOME": str(tmp_path)}
    path = desktop_entry.set_autostart(True, tmp_path / 'odd "data" $dir\\x', env,
                                       ["/opt/my apps/companion-desktop"])
    proc = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and "error" not in proc.stdout.lower(), proc.stdout + proc.stderr


@pytest.mark.parametrize("start_hidden,overlay_visible,tray,expected", [
    ("no", True, True, (True, True)),
    ("no", False, True, (True, False)),
    ("overlay", False, True, (False, True)),
    ("tray", True, True, (False, False)),
    ("tray", True, False, (False, True)),  # no tray to come back from: her overlay shows
])
def test_what_shows_at_start(start_hidden, overlay_visible, tray, expected):
    assert desktop_entry.start_windows(start_hidden, overlay_visible, tray) == expected
