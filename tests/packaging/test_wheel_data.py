"""A built wheel carries the built-in data (Hana, the clips), the shaders and the migrations,
and the package installed from it (not this checkout) finds them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

#: Run by the unpacked wheel's package; prints what it found, one fact a line.
PROBE = """
import json
import companion_desktop
from companion_desktop.resources import default_avatar_path, memory_pairs_path
from companion_desktop.avatar.animation.library import AnimationLibrary
from companion_desktop.avatar.render.program import SHADER_DIR
from companion_desktop.storage.migrate import head_revision, known_revisions
hana = default_avatar_path()
library = AnimationLibrary()
clip = library.get("idle_calm")
print(json.dumps({
    "package": companion_desktop.__file__,
    "hana": str(hana), "hana_magic": hana.read_bytes()[:4].decode("ascii", "replace"),
    "clip_duration": clip.duration,
    "shaders": sorted(p.name for p in SHADER_DIR.glob("*.glsl")),
    "head": head_revision(), "revisions": len(known_revisions()),
    "pairs": str(memory_pairs_path()),
}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel built from a copy of the sources (the build leaves nothing in the checkout)."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in ("companion_desktop", "resources"):
        shutil.copytree(ROOT / folder, src / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path_factory.mktemp("wheel")
    # With build isolation: pyproject's build requirements, not whatever setuptools the
    # test environment happens to have.
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         str(src), "-w", str(out)], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("companion_desktop-*.whl")
    return built


def test_wheel_lists_the_builtin_data_shaders_and_migrations(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    clips = {n for n in names if n.startswith("companion_desktop/resources/animations/")}
    assert "companion_desktop/resources/avatar/hana.vrm" in names
    assert "companion_desktop/resources/animations/library.json" in names
    assert "companion_desktop/resources/memory_pairs.json" in names
    assert any(n.startswith("companion_desktop/resources/icons/hicolor/") and n.endswith(".svg")
               for n in names)
    assert len([n for n in clips if n.endswith(".vrma")]) >= 10
    for shader in (ROOT / "companion_desktop/avatar/render/shaders").glob("*.glsl"):
        assert f"companion_desktop/avatar/render/shaders/{shader.name}" in names
    assert "companion_desktop/storage/migrations/env.py" in names
    assert "companion_desktop/storage/migrations/script.py.mako" in names
    versions = (ROOT / "companion_desktop/storage/migrations/versions").glob("*.py")
    for version in versions:
        assert f"companion_desktop/storage/migrations/versions/{version.name}" in names
    assert not any(n.startswith("resources/") for n in names)


def test_package_installed_from_the_wheel_finds_its_data(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).is_relative_to(site), found["package"]
    assert Path(found["hana"]).is_relative_to(site)
    assert Path(found["pairs"]).is_relative_to(site) and Path(found["pairs"]).is_file()
    assert found["hana_magic"] == "glTF"
    assert found["clip_duration"] > 0
    assert "mtoon.frag.glsl" in found["shaders"]
    assert found["revisions"] >= 1 and found["head"]
