""".gitattributes: on a Windows checkout (core.autocrlf) shell scripts keep LF endings, which
bash needs, and no binary file (model, clip, picture, golden array) is taken for text and
has its bytes changed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="needs git and a git checkout")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout


def attributes(paths: list[str], *names: str) -> dict[tuple[str, str], str]:
    """(path, attribute) -> value, as git check-attr reports it."""
    out = git("check-attr", *names, "--", *paths) if paths else ""
    found = {}
    for line in out.splitlines():
        path, name, value = line.rsplit(": ", 2)
        found[(path, name)] = value
    return found


def tracked() -> list[str]:
    return [p for p in git("ls-files", "-z").split("\0") if p and (ROOT / p).is_file()]


def is_text(path: Path) -> bool:
    data = path.read_bytes()
    if b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_shell_scripts_keep_lf_endings():
    scripts = [p for p in tracked() if p.endswith(".sh") or p == ".ci/run"]
    assert "packaging/build.sh" in scripts and ".ci/run" in scripts
    found = attributes(scripts, "eol")
    assert {p: found[(p, "eol")] for p in scripts} == {p: "lf" for p in scripts}


def test_every_binary_file_is_marked_binary():
    files = tracked()
    binary = [p for p in files if not is_text(ROOT / p)]
    assert any(p.endswith(".vrm") for p in binary)  # the check sees the real files
    found = attributes(binary, "binary")
    unmarked = [p for p in binary if found[(p, "binary")] != "set"]
    assert unmarked == [], f"add these file kinds to .gitattributes as binary: {unmarked}"
