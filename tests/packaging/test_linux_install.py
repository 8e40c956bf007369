"""packaging/linux: the desktop entry, icons and AppStream metainfo pass the freedesktop
validators, and install.sh / uninstall.sh put them in place and take exactly that away."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion_desktop.desktop_entry import APP_ID, WM_CLASS
from companion_desktop.version import app_version

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "packaging" / "linux"
ENTRY = LINUX / f"{APP_ID}.desktop"
METAINFO = LINUX / f"{APP_ID}.metainfo.xml"
SIZES = (16, 32, 48, 64, 128, 256, 512)
needs_bash = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
needs_desktop_validate = pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate is not installed (Debian: desktop-file-utils)")
needs_appstream = pytest.mark.skipif(
    shutil.which("appstreamcli") is None,
    reason="appstreamcli is not installed (Debian: appstream)")


def run_script(name: str, *args: str, env: dict[str, str] | None = None,
               script_dir: Path = LINUX) -> subprocess.CompletedProcess[str]:
    base = {"HOME": os.environ.get("HOME", "/nonexistent"), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["bash", str(script_dir / name), *args], capture_output=True,
                          text=True, env={**base, **(env or {})}, timeout=120, check=False)


def fake_app(folder: Path) -> Path:
    folder.mkdir(parents=True)
    program = folder / "companion-desktop"
    program.write_text("#!/bin/sh\necho companion-desktop 0.0.0\n")
    program.chmod(0o755)
    return program


def tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


def validate_entry(path: Path) -> None:
    proc = subprocess.run(["desktop-file-validate", str(path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def validate_metainfo(path: Path) -> None:
    proc = subprocess.run(["appstreamcli", "validate", "--no-net", str(path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def entry_value(path: Path, key: str) -> str:
    match = re.search(rf"^{key}=(.*)$", path.read_text(), re.MULTILINE)
    assert match, f"{key} missing in {path}"
    return match.group(1)


# ------------------------------------------------------------------ the files
def test_the_entry_names_the_icon_and_her_window_class():
    assert entry_value(ENTRY, "Icon") == APP_ID
    assert entry_value(ENTRY, "StartupWMClass") == WM_CLASS
    assert entry_value(ENTRY, "Exec") == "companion-desktop"


def test_metainfo_matches_the_app():
    text = METAINFO.read_text()
    assert f"<id>{APP_ID}</id>" in text
    assert f'<launchable type="desktop-id">{APP_ID}.desktop</launchable>' in text
    assert "<project_license>MIT</project_license>" in text and "<content_rating" in text
    versions = re.findall(r'<release version="([^"]+)"', text)
    assert versions and versions[0] == app_version()  # the newest release is this one


def test_every_icon_size_is_there_and_drawn_from_the_svg(tmp_path):
    from PIL import Image

    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "make_icons.py"), "--out",
                           str(tmp_path)], capture_output=True, text=True, timeout=120,
                          check=False)  # what the project's SVG renders to now (own process:
    assert proc.returncode == 0, proc.stderr  # no Qt application left in this one)
    shipped = ROOT / "resources" / "icons" / "hicolor"
    assert (shipped / "scalable" / "apps" / f"{APP_ID}.svg").read_text() == (
        tmp_path / "scalable" / "apps" / f"{APP_ID}.svg").read_text()
    for size in SIZES:
        name = Path(f"{size}x{size}") / "apps" / f"{APP_ID}.png"
        with Image.open(shipped / name) as image, Image.open(tmp_path / name) as fresh:
            assert image.size == (size, size) and image.mode == "RGBA"
            assert image.getpixel((0, 0))[3] == 0  # round corners: transparent
            assert image.getpixel((size // 2, size // 2))[3] == 255
            difference = max(abs(a - b)
                             for a, b in zip(image.tobytes(), fresh.tobytes(), strict=True))
            assert difference <= 2, f"{name} is out of date: run tools/make_icons.py"


@needs_desktop_validate
def test_the_desktop_entry_validates():
    validate_entry(ENTRY)


@needs_appstream
def test_the_metainfo_validates():
    validate_metainfo(METAINFO)


# -------------------------------------------------------------- install.sh
@needs_bash
def test_install_then_uninstall_into_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    program = fake_app(tmp_path / "my apps" / "bin")  # a space in its path
    env = {"PATH": f"{program.parent}:/usr/bin:/bin"}
    proc = run_script("install.sh", "--prefix", str(prefix), env=env)
    assert proc.returncode == 0, proc.stderr
    share = prefix / "share"
    entry = share / "applications" / f"{APP_ID}.desktop"
    assert entry_value(entry, "Exec") == f'"{program}"'
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (share / "icons/hicolor/scalable/apps" / f"{APP_ID}.svg").is_file()
    for size in SIZES:
        assert (share / f"icons/hicolor/{size}x{size}/apps" / f"{APP_ID}.png").is_file()
    if shutil.which("desktop-file-validate"):
        validate_entry(entry)
    if shutil.which("appstreamcli"):
        validate_metainfo(share / "metainfo" / f"{APP_ID}.metainfo.xml")
    again = run_script("install.sh", "--prefix", str(prefix), env=env)  # twice is fine
    assert again.returncode == 0, again.stderr

    proc = run_script("uninstall.sh", "--prefix", str(prefix))
    assert proc.returncode == 0, proc.stderr
    assert not prefix.exists()  # every folder it made, and nothing else, is gone


@needs_bash
def test_uninstall_leaves_what_was_there_before(tmp_path):
    prefix = tmp_path / "prefix"
    mine = prefix / "share" / "applications" / "someone-else.desktop"
    mine.parent.mkdir(parents=True)
    mine.write_text("[Desktop Entry]\nType=Application\nName=Other\nExec=other\n")
    before = tree(prefix)
    env = {"PATH": f"{fake_app(tmp_path / 'bin').parent}:/usr/bin:/bin"}
    assert run_script("install.sh", "--prefix", str(prefix), env=env).returncode == 0
    assert run_script("uninstall.sh", "--prefix", str(prefix)).returncode == 0
    after = tree(prefix) - {"share/applications/mimeinfo.cache"}  # refreshed, not ours alone
    assert after == before and mine.is_file()


@needs_bash
def test_xdg_data_home_is_honoured(tmp_path):
    env = {"HOME": str(tmp_path / "home"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_STATE_HOME": str(tmp_path / "state"),
           "PATH": f"{fake_app(tmp_path / 'bin').parent}:/usr/bin:/bin"}
    proc = run_script("install.sh", env=env)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "data" / "applications" / f"{APP_ID}.desktop").is_file()
    assert not (tmp_path / "home").exists()
    assert run_script("uninstall.sh", env=env).returncode == 0
    assert not (tmp_path / "data").exists() and not (tmp_path / "state").exists()


@needs_bash
def test_a_bundle_is_copied_and_started_from_there(tmp_path):
    bundle = tmp_path / "dist" / "companion-desktop"
    fake_app(bundle)
    (bundle / "_internal").mkdir()
    (bundle / "_internal" / "lib.so").write_bytes(b"\0")
    prefix = tmp_path / "prefix"
    proc = run_script("install.sh", "--prefix", str(prefix), "--bundle", str(bundle))
    assert proc.returncode == 0, proc.stderr
    copied = prefix / "opt" / "companion-desktop"
    assert (copied / "_internal" / "lib.so").is_file()
    entry = prefix / "share" / "applications" / f"{APP_ID}.desktop"
    assert entry_value(entry, "Exec") == str(copied / "companion-desktop")
    assert run_script("uninstall.sh", "--prefix", str(prefix)).returncode == 0
    assert not prefix.exists()


@needs_bash
def test_a_folder_in_the_bundles_place_is_not_overwritten(tmp_path):
    bundle = fake_app(tmp_path / "bundle").parent
    prefix = tmp_path / "prefix"
    theirs = prefix / "opt" / "companion-desktop" / "notes.txt"
    theirs.parent.mkdir(parents=True)
    theirs.write_text("keep me")
    proc = run_script("install.sh", "--prefix", str(prefix), "--bundle", str(bundle))
    assert proc.returncode == 1 and "was not installed by this script" in proc.stderr
    assert theirs.read_text() == "keep me"
    assert not (prefix / "share" / "applications").exists()


@needs_bash
def test_without_the_app_it_says_what_to_do_and_installs_nothing(tmp_path):
    copy = tmp_path / "repo" / "packaging" / "linux"  # a checkout without .venv
    shutil.copytree(LINUX, copy)
    prefix = tmp_path / "prefix"
    proc = run_script("install.sh", "--prefix", str(prefix), script_dir=copy)
    assert proc.returncode == 1 and "scripts/run.sh" in proc.stderr
    assert not prefix.exists()
