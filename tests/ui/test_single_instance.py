"""One app per data folder: a second launch on the same folder brings the first one
forward and exits 0 without opening the database; another folder runs normally; the
command line works beside the app; a crash leaves nothing that blocks the next start."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion_desktop.storage.paths import DB_FILENAME
from companion_desktop.ui import single_instance
from companion_desktop.ui.single_instance import claim, server_name
from tests.ui.app_process import ROOT, AppProcess

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display")


def cli(data, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "companion_desktop", "--data-dir", str(data),
                           *args], env=env, cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def test_a_second_launch_asks_the_first_to_come_forward(qtbot, tmp_path):
    data = tmp_path / "data"
    instance = claim(data)
    assert instance is not None
    second = None
    try:
        with qtbot.waitSignal(instance.activated, timeout=30000):
            second = AppProcess(data, tmp_path / "second")
        assert second.proc.wait(30) == 0, second.output()
        assert not (data / DB_FILENAME).exists()  # the second never opened the database
    finally:
        if second is not None:
            second.kill()  # never left running as a full app once the folder is free
        instance.release()
    again = claim(data)  # released: the next start may run
    assert again is not None
    again.release()


def test_the_name_is_the_same_for_every_spelling_of_a_folder(tmp_path):
    (tmp_path / "a").mkdir()
    assert server_name(tmp_path / "a") == server_name(f"{tmp_path}/./a/../a")
    assert server_name(tmp_path / "a") != server_name(tmp_path / "b")


def test_two_real_apps_one_folder_another_folder_and_the_command_line(tmp_path):
    first = AppProcess(tmp_path / "data", tmp_path / "first")
    other = None
    try:
        first.wait_shown()
        second = AppProcess(tmp_path / "data", tmp_path / "second")
        assert second.proc.wait(30) == 0, second.output()
        assert first.alive
        state = cli(tmp_path / "data", "state")  # the command line beside the app (WAL)
        assert state.returncode == 0, state.stderr
        other = AppProcess(tmp_path / "other", tmp_path / "other-run")
        other.wait_shown()  # another folder runs normally
        assert other.quit() < 3.0
        assert first.quit() < 3.0
    finally:
        first.kill()
        if other is not None:
            other.kill()


def test_a_crashed_app_does_not_block_the_next_start(tmp_path):
    crashed = AppProcess(tmp_path / "data", tmp_path / "crashed")
    try:
        crashed.wait_shown()
    finally:
        crashed.kill()  # SIGKILL: its socket file stays behind
    again = AppProcess(tmp_path / "data", tmp_path / "again")
    try:
        again.wait_shown()
        assert again.quit() < 3.0
    finally:
        again.kill()


def test_the_socket_lives_in_a_private_runtime_folder(tmp_path, monkeypatch):
    runtime = Path(tempfile.mkdtemp(prefix="rt-"))  # short, like /run/user/1000
    runtime.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / ("long" * 20)))
    (tmp_path / ("long" * 20)).mkdir(mode=0o700)
    assert "/" not in server_name(tmp_path / "data")  # too long for a socket: not used
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    name = server_name(tmp_path / "data")
    assert name.startswith(f"{runtime}/companion-desktop-")
    instance = claim(tmp_path / "data")
    try:
        assert Path(name).is_socket()
        assert stat.S_IMODE(Path(name).stat().st_mode) & 0o077 == 0
    finally:
        instance.release()
    runtime.chmod(0o755)  # others may enter: not used, the temporary folder's name is
    assert "/" not in server_name(tmp_path / "data")
    shutil.rmtree(runtime)


@pytest.mark.parametrize("what", ["file", "socket of another user"])
def test_a_second_launch_does_not_talk_to_what_another_user_made(tmp_path, monkeypatch, what):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    name = server_name(tmp_path / "data")
    path = Path(single_instance.socket_path(name))
    if what == "file":
        path.write_text("not a socket")
    else:
        if os.getuid() != 0:
            pytest.skip("only root can give a socket to another user")
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(str(path))
        listener.listen(1)
        os.chown(path, 4242, 4242)
    try:
        assert single_instance.ask_to_come_forward(name, within_s=2.0) is False
        if what != "file":
            listener.settimeout(0.5)
            with pytest.raises(TimeoutError):
                listener.accept()  # nobody connected
    finally:
        if what != "file":
            listener.close()
        path.unlink(missing_ok=True)
