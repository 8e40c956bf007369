"""The bundle's .tar.gz (packaging/archive.sh, the step build.sh packs the bundle with)
records nothing of the build machine: no user or group names, uid and gid 0, one file time,
and the same folder packs to the same bytes whatever its files' owners, times and order."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "packaging" / "archive.sh"
EPOCH = 1_700_000_000  # seconds since 1970: the time every entry is given
pytestmark = pytest.mark.skipif(shutil.which("bash") is None or shutil.which("tar") is None,
                                reason="needs bash and tar")


def fake_bundle(parent: Path, owner: int, reverse: bool = False) -> Path:
    """A small bundle folder like PyInstaller's, its files made in the given order, owned by
    ``owner`` (when this runs as root) with a file time of its own each."""
    folder = parent / "companion-desktop"
    files = {"companion-desktop": 0o755, "_internal/libpython.so": 0o775,
             "_internal/base_library.zip": 0o664, "_internal/data/clip.vrma": 0o644}
    for i, (name, mode) in enumerate(sorted(files.items(), reverse=reverse)):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(name.encode() * 50)
        path.chmod(mode)
        os.utime(path, (1_000_000 + i, 1_000_000 + i))
    (folder / "_internal" / "libpython3.so").symlink_to("libpython.so")
    if os.geteuid() == 0:
        for path in [folder, *folder.rglob("*")]:
            os.lchown(path, owner, owner + 1)
    return folder


def pack(parent: Path, archive: Path, epoch: int | None = EPOCH) -> tarfile.TarFile:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(parent)}
    if epoch is not None:
        env["SOURCE_DATE_EPOCH"] = str(epoch)
    done = subprocess.run(["bash", str(SCRIPT), str(parent), "companion-desktop", str(archive)],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return tarfile.open(archive)


def test_the_archive_names_no_user_and_gives_one_time(tmp_path):
    fake_bundle(tmp_path / "a", owner=1234)
    with pack(tmp_path / "a", tmp_path / "a.tar.gz") as tar:
        members = tar.getmembers()
        assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
        assert {m.mtime for m in members} == {EPOCH}
        modes = {m.name: m.mode for m in members if m.isfile()}
        link = tar.getmember("companion-desktop/_internal/libpython3.so")
    assert modes == {"companion-desktop/companion-desktop": 0o755,
                     "companion-desktop/_internal/libpython.so": 0o755,
                     "companion-desktop/_internal/base_library.zip": 0o644,
                     "companion-desktop/_internal/data/clip.vrma": 0o644}
    assert link.issym() and link.linkname == "libpython.so"
    header = (tmp_path / "a.tar.gz").read_bytes()[:10]
    assert header[3] & 0x08 == 0 and header[4:8] == b"\0\0\0\0"  # gzip: no name, no time
    assert not list(tmp_path.glob("*.part"))


def test_the_same_folder_packs_to_the_same_bytes(tmp_path):
    fake_bundle(tmp_path / "a", owner=1234)
    fake_bundle(tmp_path / "b", owner=4321, reverse=True)  # other owner, order and times
    pack(tmp_path / "a", tmp_path / "a.tar.gz").close()
    pack(tmp_path / "b", tmp_path / "b.tar.gz").close()
    assert (tmp_path / "a.tar.gz").read_bytes() == (tmp_path / "b.tar.gz").read_bytes()


def test_without_a_given_time_the_last_commit_s_is_used(tmp_path):
    fake_bundle(tmp_path / "a", owner=1234)
    commit = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%ct"],
                            capture_output=True, text=True, check=False).stdout.strip()
    with pack(tmp_path / "a", tmp_path / "a.tar.gz", epoch=None) as tar:
        assert {m.mtime for m in tar.getmembers()} == {int(commit or 0)}


def test_the_bundle_build_packs_with_it():
    build = (ROOT / "packaging" / "build.sh").read_text()
    assert "bash packaging/archive.sh dist companion-desktop \"$ARCHIVE\"" in build
    assert not [line for line in build.splitlines() if line.lstrip().startswith("tar ")]
