"""What a quit signal changes inside the app before its event loop ends: start-up parts
and her first picture stop where they are, the memory model does not start, a signal
before anything is held ends the start there, and the handlers are given back
afterwards. The signals are real (``os.kill`` of this process)."""

from __future__ import annotations

import os
import signal
import sys
from datetime import datetime

import pytest
from PySide6.QtCore import QTimer

from companion_desktop.pipeline.facts import FactService
from companion_desktop.resources import default_avatar_path
from companion_desktop.storage import repository as repo
from companion_desktop.ui import shutdown

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals")


@pytest.fixture
def quit_signal():
    """Watching quit signals as the app does; ``send()`` delivers a real SIGTERM."""
    before = signal.getsignal(signal.SIGTERM)
    previous = shutdown.watch_quit_signals(end_process=False)
    shutdown.holding()

    def send() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        signal.getsignal(signal.SIGTERM)  # the handler has run by the next bytecode
    yield send
    shutdown.restore_quit_signals(previous)
    shutdown._QUIT_REQUESTED.clear()
    assert signal.getsignal(signal.SIGTERM) is before


def test_a_signal_before_anything_is_held_ends_the_start_there():
    """In a process that is not only hers (this one) as SystemExit(0), which the caller
    may catch; with ``end_process`` the process would end at once."""
    previous = shutdown.watch_quit_signals(end_process=False)
    try:
        with pytest.raises(SystemExit) as ended:
            os.kill(os.getpid(), signal.SIGTERM)
            signal.getsignal(signal.SIGTERM)
        assert ended.value.code == 0 and shutdown.quit_requested()
    finally:
        shutdown.restore_quit_signals(previous)
        shutdown._QUIT_REQUESTED.clear()


def test_start_up_parts_stop_at_a_quit_signal(qtbot, quit_signal):
    from companion_desktop.app import _in_turns

    done = []

    def parts():
        done.append(1)
        yield
        done.append(2)
        quit_signal()  # arrives during part 2
        yield
        done.append(3)

    holder = QTimer()
    _in_turns(holder, parts())
    qtbot.wait(200)
    assert done == [1, 2]


@pytest.mark.gl
def test_her_first_picture_is_not_drawn_after_a_quit_signal(qtbot, quit_signal):
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.avatar.view import AvatarView

    model = load_model(default_avatar_path())
    host = AvatarHost(fps=30, seed=1)
    view = AvatarView(host)
    qtbot.addWidget(view)
    view.resize(200, 300)
    view.show()
    qtbot.waitExposed(view)
    quit_signal()
    host.set_model(model, "hana")  # what a load that ends during the quit delivers
    qtbot.wait(100)
    assert host.pictures == 0 and host.gl is None  # no GL context, no texture upload
    host.release()


@pytest.mark.gl
def test_her_textures_upload_one_at_a_time_until_told_to_stop(qtbot):
    from companion_desktop.avatar.vrm.loader import load_model
    from companion_desktop.ui.avatar.gl import AvatarGL

    model = load_model(default_avatar_path())
    gl = AvatarGL(samples=0)
    try:
        asked = []

        def stop() -> bool:
            asked.append(len(gl.renderer.gpu._image_cache))
            return len(asked) > 1  # after the first texture

        assert not gl.prepare(model, stop=stop)
        assert len(gl.renderer.gpu._image_cache) == 1
        assert asked[:2] == [0, 1]  # asked before each texture
        assert gl.prepare(model)  # the rest follows
        assert len(gl.renderer.gpu._image_cache) > 1
    finally:
        gl.release()


def test_the_memory_model_does_not_start_after_a_quit_signal(qtbot, service, quit_signal):
    from companion_desktop.ui.memory_worker import MemoryWorker

    worker = MemoryWorker(FactService(service.db))
    quit_signal()
    try:
        worker.restart()  # its timer fired in the same turn of the event loop
        assert not worker.isRunning()
    finally:
        worker.stop(60_000)


def test_re_embedding_looks_at_a_quit_every_few_facts(qtbot, service):
    from companion_desktop.ui.memory_worker import BATCH, MemoryWorker

    with service.db.session() as session:
        for i in range(3 * BATCH):
            repo.add_fact(session, f"fact number {i} about tea", "user",
                          datetime(2026, 3, 10).astimezone())
    worker = MemoryWorker(FactService(service.db))
    steps = []
    worker.progress.connect(lambda done, total: steps.append(done))
    with qtbot.waitSignal(worker.finished, timeout=60_000):
        worker.restart()
    assert steps == [BATCH, 2 * BATCH, 3 * BATCH]  # a stop is heard after each


def test_her_own_process_lets_a_backup_thread_finish_before_it_ends(tmp_path):
    """``end_process`` skips the interpreter's teardown, not its wait for threads that are
    not daemons (the day's backup): they get up to a second."""
    import subprocess

    done = tmp_path / "written"
    code = (
        "import sys, threading, time\n"
        "from companion_desktop.ui import shutdown\n"
        "def backup():\n"
        "    time.sleep(0.3)\n"
        "    open(sys.argv[1], 'w').write('whole')\n"
        "threading.Thread(target=backup).start()\n"
        "shutdown.end_process(3)\n"
    )
    from tests.ui.app_process import ROOT

    ended = subprocess.run([sys.executable, "-c", code, str(done)], cwd=ROOT, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert ended.returncode == 3
    assert done.read_text() == "whole"
