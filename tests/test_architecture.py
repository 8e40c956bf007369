"""The layer rules of DESIGN.md, as import-linter contracts, hold; and they can fail."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    assert LINT.exists(), "import-linter is not installed (it is in the dev extra of pyproject.toml)"
    return subprocess.run(
        [str(LINT), "--no-cache"], cwd=cwd, capture_output=True, text=True, timeout=120,
        env={"PYTHONPATH": str(cwd), "PATH": "/usr/bin:/bin"},
    )


def test_contracts_are_kept():
    proc = lint(ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


@pytest.mark.parametrize(
    "module,line",
    [
        ("engine/stages.py", "import numpy"),
        ("engine/stages.py", "from companion_desktop.storage import models"),
        ("storage/paths.py", "from PySide6 import QtWidgets"),
        ("storage/paths.py", "from companion_desktop.pipeline import companion"),
        ("voice/audio.py", "from PySide6 import QtMultimedia"),
        ("voice/listener.py", "from companion_desktop.llm import wav"),
    ],
)
def test_a_violation_breaks_a_contract(tmp_path, module, line):
    shutil.copytree(ROOT / "companion_desktop", tmp_path / "companion_desktop",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "companion_desktop" / module
    target.write_text(f"{line}\n{target.read_text()}")
    proc = lint(tmp_path)
    assert proc.returncode != 0 and "BROKEN" in proc.stdout

