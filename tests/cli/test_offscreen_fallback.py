"""``avatar render`` without EGL (Windows, macOS, a broken driver): Qt's offscreen surface."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

pytestmark = [pytest.mark.gl, pytest.mark.qt]


def render(tmp_path, **env: str) -> tuple[subprocess.CompletedProcess[str], object]:
    out = tmp_path / "hana.png"
    full = {**os.environ, "PYTHONIOENCODING": "utf-8", "DISPLAY": os.environ.get("DISPLAY", ":99"),
            "QT_QPA_PLATFORM": "xcb", "COMPANION_OFFSCREEN_GL": "", **env}
    proc = subprocess.run([sys.executable, "-m", "companion_desktop", "avatar", "render",
                           "default", "--out", str(out), "--size", "200x300"],
                          capture_output=True, text=True, env=full, timeout=120,
                          stdin=subprocess.DEVNULL)
    return proc, out


def assert_drawn(out) -> None:
    rgba = np.asarray(Image.open(out))
    assert rgba.shape == (300, 200, 4)
    assert rgba[0, 0, 3] == 0
    assert (rgba[..., 3] > 0).sum() > 0.1 * rgba[..., 3].size


def test_render_through_the_qt_surface_when_asked(tmp_path):
    proc, out = render(tmp_path, COMPANION_OFFSCREEN_GL="qt")
    assert proc.returncode == 0, proc.stderr
    assert_drawn(out)


def test_render_falls_back_to_qt_when_egl_is_missing(tmp_path):
    # glvnd finds no EGL driver: what a machine without EGL looks like to the app
    proc, out = render(tmp_path, __EGL_VENDOR_LIBRARY_FILENAMES="/nonexistent/egl.json")
    assert proc.returncode == 0, proc.stderr
    assert_drawn(out)


def test_neither_way_says_why(tmp_path):
    proc, out = render(tmp_path, __EGL_VENDOR_LIBRARY_FILENAMES="/nonexistent/egl.json",
                       QT_QPA_PLATFORM="offscreen", DISPLAY="")
    assert proc.returncode == 1
    assert "cannot render here: EGL:" in proc.stderr and "Qt offscreen OpenGL" in proc.stderr
    assert not out.exists()


def test_qt_context_is_chosen_when_asked(tmp_path):
    """In a fresh process (an EGL context made earlier in the same process leaves Mesa
    unable to make Qt's GLX context current, which a real command never does)."""
    script = ("from companion_desktop.cli import offscreen_gl as o\n"
              "c = o.best_context()\n"
              "print(type(c).__name__)\n"
              "c.release()\n")
    env = {**os.environ, "DISPLAY": os.environ.get("DISPLAY", ":99"), "QT_QPA_PLATFORM": "xcb",
           "COMPANION_OFFSCREEN_GL": "qt"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "QtOffscreenContext"
