"""A second avatar load while one runs (Settings > Character during the start-up load):
the latest request wins, the older thread runs to its end, nothing is destroyed while
it runs. Run in a subprocess: Qt aborts the whole process (exit 134) otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent("""
    import gc, sys, time
    from PySide6.QtWidgets import QApplication
    from companion_desktop.resources import default_avatar_path
    from companion_desktop.ui.avatar.host import AvatarHost

    app = QApplication([])
    host = AvatarHost()
    changes, failures = [], []
    host.model_changed.connect(lambda: changes.append(host.model_path))
    host.load_failed.connect(failures.append)
    hana = default_avatar_path()
    host.load_async(hana)
    host.load_async(sys.argv[1])  # a broken file, asked for last: its failure is what counts
    gc.collect()
    host.load_async(hana)  # and the latest request wins
    gc.collect()
    end = time.monotonic() + 60
    while time.monotonic() < end and (not changes or host._loaders):
        app.processEvents()
        time.sleep(0.01)
    assert changes == [str(hana)], changes
    assert failures == [], failures
    assert not host._loaders and not host.loading_now
    print("ok", flush=True)
""")


def test_a_second_load_supersedes_the_first_safely(tmp_path):
    broken = tmp_path / "broken.vrm"
    broken.write_bytes(b"not a model")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(broken)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert "QThread: Destroyed" not in output, output[-2000:]
    assert proc.returncode == 0, output[-2000:]
    assert "ok" in proc.stdout
