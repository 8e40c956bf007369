"""``companion-desktop --version`` through the installed console script."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from companion_desktop import __version__
from companion_desktop.version import app_version

SCRIPT = Path(sys.executable).with_name("companion-desktop")


def run_version(extra_path: Path | None = None) -> subprocess.CompletedProcess[str]:
    command = [str(SCRIPT)] if SCRIPT.is_file() else [sys.executable, "-m", "companion_desktop"]
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(extra_path), env.get("PYTHONPATH")]))
    return subprocess.run([*command, "--version"], capture_output=True, text=True, env=env,
                          timeout=60, check=False)


def test_version_prints_the_installed_version():
    proc = run_version()
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"companion-desktop {metadata.version('companion-desktop')}\n"


def test_version_comes_from_the_package_metadata(tmp_path):
    """A distribution found first on the path wins over the source's __version__."""
    info = tmp_path / "companion_desktop-9.8.7.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: companion-desktop\n"
                                   "Version: 9.8.7\n")
    proc = run_version(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "companion-desktop 9.8.7"


def test_without_metadata_the_source_version_is_used():
    assert app_version("companion-desktop-not-installed") == __version__

