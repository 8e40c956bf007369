"""The command line reads and writes UTF-8 whatever the console's encoding (Windows code
pages, a latin-1 locale): her replies and the user's words are never mangled."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from companion_desktop.cli import use_utf8_streams


def test_a_non_utf8_console_gets_utf8(tmp_path):
    env = {**os.environ, "PYTHONIOENCODING": "latin-1", "PYTHONUTF8": "0"}
    proc = subprocess.run([sys.executable, "-m", "companion_desktop", "--data-dir",
                           str(tmp_path), "--now", "2026-日本", "state"],
                          capture_output=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    assert "'2026-日本' is not an ISO-8601" in proc.stderr.decode("utf-8")


def test_streams_are_reconfigured_and_utf8_ones_left_alone(monkeypatch):
    raw_out, raw_in = io.BytesIO(), io.BytesIO("héllo ♥\n".encode())
    out = io.TextIOWrapper(raw_out, encoding="cp1252", errors="strict")
    inp = io.TextIOWrapper(raw_in, encoding="cp1252")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stdin", inp)
    monkeypatch.setattr(sys, "stderr", err)
    use_utf8_streams()
    assert (out.encoding, inp.encoding, err.encoding) == ("utf-8", "utf-8", "utf-8")
    assert inp.readline() == "héllo ♥\n"
    print("日本 ♥", file=out, end="")
    out.flush()
    assert raw_out.getvalue().decode("utf-8") == "日本 ♥"
