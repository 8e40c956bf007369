"""``companion-desktop avatar inspect|render`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from tests.conftest import SHARED_ASSETS

ENV = {**os.environ, "PYTHONIOENCODING": "utf-8"}


def avatar(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "companion_desktop", "avatar", *args],
                          capture_output=True, text=True, env=ENV, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_inspect_default_avatar_json():
    proc = avatar("inspect", "default", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["version"] == "1.0"
    text = json.dumps(report)
    for name in ("happy", "blink", "aa", "lookUp"):
        assert name in text


def test_inspect_vrm0_text():
    path = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
    if not path.is_file():
        pytest.skip("shared assets not present")
    proc = avatar("inspect", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "0.x" in proc.stdout and "Spring bones" in proc.stdout and "Problems" in proc.stdout


@pytest.mark.gl
def test_render_writes_a_transparent_png(tmp_path):
    out = tmp_path / "hana.png"
    proc = avatar("render", "default", "--out", str(out), "--size", "200x300",
                  "--expression", "happy=1", "--mood", "playful:60", "--look-at", "0.5,0.2",
                  "--time", "1.5")
    assert proc.returncode == 0, proc.stderr
    rgba = np.asarray(Image.open(out))
    assert rgba.shape == (300, 200, 4)
    assert rgba[0, 0, 3] == 0 and rgba[-1, -1, 3] == 0
    assert (rgba[..., 3] > 0).sum() > 0.1 * rgba[..., 3].size


@pytest.mark.parametrize(
    "args,message",
    [
        (["--expression", "wink=1"], "no expression 'wink'"),
        (["--expression", "happy"], "NAME=WEIGHT"),
        (["--mood", "zorblax:50"], "unknown emotion"),
        (["--size", "huge"], "WIDTHxHEIGHT"),
        (["--look-at", "left"], "X,Y"),
    ],
)
def test_render_refuses_bad_options(tmp_path, args, message):
    proc = avatar("render", "default", "--out", str(tmp_path / "x.png"), *args)
    assert proc.returncode in (1, 2) and message in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("content", [b"", b"glTF\x02\x00\x00\x00" + b"\xff" * 40,
                                     b"not a model at all"])
def test_bad_model_file_gives_a_clear_message(tmp_path, content):
    bad = tmp_path / "broken.vrm"
    bad.write_bytes(content)
    for args in (["inspect", str(bad)], ["render", str(bad), "--out", str(tmp_path / "o.png")]):
        proc = avatar(*args)
        assert (proc.returncode == 1 and "broken.vrm" in proc.stderr
                and "Traceback" not in proc.stderr)


def test_truncated_real_model(tmp_path):
    path = SHARED_ASSETS / "vrm0" / "Godette_vrm_v4.vrm"
    if not path.is_file():
        pytest.skip("shared assets not present")
    cut = tmp_path / "cut.vrm"
    cut.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    proc = avatar("inspect", str(cut))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and proc.stderr.strip()


def _auto_mode_here() -> str:
    """The edge mode the app would pick with this machine's offscreen OpenGL."""
    from companion_desktop.avatar.render.context import (
        OffscreenContext,
        RenderUnavailable,
        prefer_egl,
    )

    prefer_egl()  # before OpenGL is first imported
    from companion_desktop.avatar.render.antialias import auto_mode

    try:
        context = OffscreenContext().create()
    except RenderUnavailable:
        pytest.skip("no offscreen OpenGL here")
    try:
        return auto_mode()
    finally:
        context.release()


@pytest.mark.gl
def test_render_edges_as_the_app_draws_them(tmp_path):
    model = SHARED_ASSETS / "vrm0" / "sphere.vrm"
    model_arg = str(model) if model.is_file() else "default"
    pictures, said = {}, {}
    for aa in ("auto", "lines", "post", "none", "msaa"):
        out = tmp_path / f"{aa}.png"
        proc = avatar("render", model_arg, "--out", str(out), "--size", "68x128",
                      "--pose", "rest", "--shot", "full", "--aa", aa)
        assert proc.returncode == 0, proc.stderr
        pictures[aa] = np.asarray(Image.open(out))
        said[aa] = proc.stdout
    assert "edges: post" in said["post"] and "edges: none" in said["none"]
    assert "edges: msaa" in said["msaa"]
    assert "edges: lines" in said["lines"] or "edges: post" in said["lines"]  # no compute
    partial = {aa: int(((p[..., 3] > 0) & (p[..., 3] < 255)).sum()) for aa, p in pictures.items()}
    assert partial["none"] == 0 and partial["post"] > 10 and partial["msaa"] > 10
    assert partial["lines"] > 10
    expected = _auto_mode_here()
    assert f"edges: {expected}" in said["auto"]
    assert np.array_equal(pictures["auto"], pictures[expected])
