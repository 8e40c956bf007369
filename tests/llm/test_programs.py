"""Finding helper programs beyond the PATH, and arguments split with each platform's rules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion_desktop.llm import programs
from companion_desktop.llm.programs import find_program, join_args, path_with, split_args
from companion_desktop.llm.tts import EspeakBackend

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")


def executable(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_a_program_outside_the_path_is_found_where_installers_put_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("ProgramFiles", str(tmp_path / "pf"))
    target = executable(tmp_path / "pf" / "eSpeak NG", "espeak-ng")
    assert find_program("espeak-ng", platform="win32") == str(target)
    assert find_program("espeak-ng", platform="linux") is None  # not a Linux place


def test_the_path_comes_first_and_missing_is_none(tmp_path, monkeypatch):
    first = executable(tmp_path / "bin", "uvx")
    executable(tmp_path / "home" / ".local" / "bin", "uvx")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert find_program("uvx") == str(first)
    assert find_program("no-such-program-anywhere") is None
    assert find_program(str(tmp_path / "nothing" / "uvx")) is None  # a path is not searched


def test_path_with_adds_the_programs_folder_once():
    assert path_with("/opt/homebrew/bin/npx", "/usr/bin") == os.pathsep.join(
        ["/usr/bin", "/opt/homebrew/bin"])
    assert path_with("/usr/bin/npx", "/usr/bin") == "/usr/bin"
    assert path_with("npx", None) == ""


@needs_espeak
def test_espeak_outside_the_path_still_speaks(tmp_path, monkeypatch):
    """A Finder-started app's PATH lacks Homebrew; the user's own bin folder is searched."""
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "espeak-ng").symlink_to(shutil.which("espeak-ng"))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    audio = EspeakBackend().synthesize("Hello there.")
    assert audio.duration > 0.3


@pytest.mark.parametrize("text,expected", [
    (r'C:\Tools\server.exe --root C:\Users\me\notes', [r"C:\Tools\server.exe", "--root",
                                                         r"C:\Users\me\notes"]),
    (r'"C:\Program Files\x\y.js" -y', [r"C:\Program Files\x\y.js", "-y"]),
    (r'a\\"b c" d', ["a\\b c", "d"]),
    (r'say \"hi\"', ["say", '"hi"']),
    ('""  x', ["", "x"]),
])
def test_windows_rules_keep_backslashes(text, expected):
    assert split_args(text, platform="win32") == expected


def test_posix_rules_elsewhere_and_round_trips():
    assert split_args(r"a\ b 'c d'", platform="linux") == ["a b", "c d"]
    for platform in ("win32", "linux"):
        args = [r"C:\Program Files\n", "plain", 'quo"te', "", "tab\there"]
        assert split_args(join_args(args, platform), platform) == args
    with pytest.raises(ValueError):
        split_args('"open', platform="win32")


def test_no_window_flag_only_on_windows():
    expected = subprocess.CREATE_NO_WINDOW if sys.platform == "win32" else 0  # type: ignore[attr-defined]
    assert programs.NO_WINDOW == expected


def test_an_mcp_command_outside_the_path_starts(tmp_path, monkeypatch):
    """``uvx``/``npx`` installed in a place a Finder-started app's PATH lacks."""
    from companion_desktop.llm.mcp_client import McpHub, McpServerConfig
    from tests.llm.test_mcp_client import DEMO

    home = tmp_path / "home"
    script = executable(home / ".local" / "bin", "demo-mcp")
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{DEMO}" "$@"\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with McpHub([McpServerConfig("demo", "stdio", command="demo-mcp")],
                connect_timeout=10) as hub:
        tools = hub.list_tools()["demo"]
    assert isinstance(tools, list) and {t.name for t in tools} >= {"add", "echo"}
