"""``companion-desktop`` run as a real process from this checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def companion(data_dir: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``companion-desktop --data-dir DATA_DIR ARGS``: its exit status, stdout and stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion_desktop", "--data-dir",
                           str(data_dir), *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
