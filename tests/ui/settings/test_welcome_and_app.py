"""First-run welcome (local servers probed on 127.0.0.1) and the app's composition root."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication

from companion_desktop.llm.local_servers import LocalServer
from companion_desktop.storage.settings import LlmSettings, load_settings
from companion_desktop.ui.settings.welcome import WelcomeDialog
from tests.conftest import T0
from tests.llm.local_server_fakes import closed_port
from tests.ui.scripted_provider import Script, ScriptedServer

pytestmark = pytest.mark.qt

WAIT_MS = 8000


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


@pytest.fixture
def welcome(qtbot, service, server):
    servers = (LocalServer("ollama", port_of(server.root)), LocalServer("lmstudio", closed_port()))
    dialog = WelcomeDialog(service, servers)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_welcome_lists_local_models_and_saves_the_pick(welcome, service, server, qtbot):
    qtbot.waitUntil(lambda: welcome.again_button.isEnabled(), timeout=WAIT_MS)
    names = [welcome.found.item(i).text() for i in range(welcome.found.count())]
    assert len(names) == 2 and all("Ollama" in n for n in names)
    assert "Found 2 models" in welcome.local_status.text()
    chosen = []
    welcome.chosen.connect(lambda pid, model: chosen.append((pid, model)))
    welcome.found.setCurrentRow(1)
    qtbot.mouseClick(welcome.use_button, Qt.MouseButton.LeftButton)
    assert chosen == [("ollama", "warm-model")] and not welcome.isVisible()
    with service.db.read_session() as session:
        settings = load_settings(session, LlmSettings)
    assert (settings.provider, settings.base_url, settings.model) == (
        "ollama", server.base_url, "warm-model")


def test_nothing_found_says_so_and_later_saves_nothing(qtbot, service):
    dialog = WelcomeDialog(service, (LocalServer("ollama", closed_port()),))
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=WAIT_MS)
    assert dialog.found.count() == 0
    assert "No local model server answered" in dialog.local_status.text()
    assert not dialog.use_button.isEnabled()
    qtbot.mouseClick(dialog.later_button, Qt.MouseButton.LeftButton)
    with service.db.read_session() as session:
        assert load_settings(session, LlmSettings).provider is None


def test_cloud_choice_needs_a_key(welcome, service):
    welcome.cloud_model.setEditText("some-model")
    welcome.use_cloud()  # no key typed, none stored, no keyring here
    assert "API key" in welcome.cloud_status.text()
    welcome.key.setText("sk-abc123456")
    welcome.use_cloud()
    assert "keyring" in welcome.cloud_status.text()  # shown, not raised
    with service.db.read_session() as session:
        assert load_settings(session, LlmSettings).provider is None


@pytest.fixture
def app_run_ends_cleanly(qapp):
    """run_gui's windows are closed and freed here; closing the last one outside its event
    loop quits the application again, which leaves every later event loop (qtbot.wait)
    returning at once: a short run of the application's loop clears that."""
    import gc

    yield
    for widget in QApplication.topLevelWidgets():
        widget.close()
        widget.deleteLater()
    qapp.processEvents()
    gc.collect()
    qapp.processEvents()
    QTimer.singleShot(0, qapp.quit)
    qapp.exec()


def test_run_gui_opens_the_chat_window_and_closes_cleanly(qtbot, tmp_path, monkeypatch,
                                                          app_run_ends_cleanly):
    from companion_desktop.app import run_gui
    from companion_desktop.ui.chat.window import ChatWindow

    monkeypatch.setenv("COMPANION_NO_WELCOME", "1")
    seen = []

    def look_and_quit(tries: int = 50) -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, ChatWindow)]
        if tries and not all(getattr(w, "desktop", None) for w in windows):
            QTimer.singleShot(100, lambda: look_and_quit(tries - 1))  # her part follows the paint
            return
        seen.extend(w for w in windows if w.isVisible())
        for window in windows:
            window.close()
        QApplication.instance().quit()

    QTimer.singleShot(300, look_and_quit)
    with ScriptedServer() as srv:
        srv.scripts.append(Script())
        assert run_gui(str(tmp_path / "app-data")) == 0
    assert len(seen) == 1
    window = seen[0]
    assert not window.backend.ready and window._setup is not None  # said what to set up
    assert window.backend.controller is None
    assert (tmp_path / "app-data").exists()
    # after the first paint: her view in the place kept for her, and the overlay's owner
    assert window.avatar_view is not None and window._avatar_slot is None
    assert window.desktop is not None and window.host is window.desktop.host


def test_the_chat_window_keeps_her_place_until_she_arrives(qtbot, service):
    from companion_desktop.ui.avatar.host import AvatarHost
    from companion_desktop.ui.chat.backend import ChatBackend
    from companion_desktop.ui.chat.window import AVATAR_HEIGHT, ChatWindow

    backend = ChatBackend(service, lambda: T0)
    backend.connect()
    window = ChatWindow(service, lambda: T0, backend, avatar_later=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    slot = window._avatar_slot
    assert window.avatar_view is None and window.host is None
    assert slot.isVisible() and slot.height() == AVATAR_HEIGHT
    panel_top = window.panel.mapTo(window, window.panel.rect().topLeft())
    host = AvatarHost(fps=30, seed=1)
    window.set_host(host)
    qtbot.waitUntil(lambda: window.avatar_view.isVisible())
    assert window.host is host and window._avatar_slot is None
    assert window.avatar_view.size() == slot.size()
    assert window.panel.mapTo(window, window.panel.rect().topLeft()) == panel_top  # nothing moved
    host.release()


def test_the_app_starts_without_the_heavy_modules():
    """The first picture waits for none of Alembic (a new database), MCP, httpx, Pillow,
    OpenGL, Qt Multimedia, the keyring or the glTF loader: they load after it, when used."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from companion_desktop import app\n"
        "seen = []\n"
        "def look(window):\n"
        "    seen.extend(m.split('.')[0] for m in sys.modules)\n"
        "    seen.extend(m for m in sys.modules if m.startswith('PySide6.'))\n"
        "    from PySide6.QtCore import QTimer\n"
        "    from PySide6.QtWidgets import QApplication\n"
        "    QTimer.singleShot(0, QApplication.instance().quit)\n"
        "app._after_first_paint = lambda window, then: look(window)\n"
        "import tempfile\n"
        "app.run_gui(tempfile.mkdtemp() + '/data')\n"
        "print(' '.join(sorted(set(seen))))\n"
    )
    stats = __import__("tempfile").mkdtemp() + "/frames.jsonl"  # the bench's hook is on too
    env = {**__import__("os").environ, "COMPANION_NO_WELCOME": "1", "COMPANION_FRAME_STATS": stats}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split())
    assert "companion_desktop" in loaded
    heavy = {"alembic", "mcp", "httpx", "PIL", "OpenGL", "PySide6.QtMultimedia", "keyring",
             "pygltflib"}
    assert not loaded & heavy


def test_she_lets_other_programs_go_first():
    """``yield_cpu`` lowers the priority of the app's thread and of every thread started
    after it (her render, memory and turn threads); a second call changes nothing."""
    import subprocess
    import sys

    code = (
        "import os, threading\n"
        "from companion_desktop.app import YIELD_NICE, yield_cpu\n"
        "before = os.nice(0)\n"
        "first, second = yield_cpu(), yield_cpu()\n"
        "seen = []\n"
        "def child():\n"
        "    tid = threading.get_native_id()\n"
        "    seen.append(int(open(f'/proc/self/task/{tid}/stat').read().rsplit(')', 1)[1]"
        ".split()[16]))\n"
        "t = threading.Thread(target=child); t.start(); t.join()\n"
        "print(before, first, second, seen[0], YIELD_NICE)\n"
    )
    if not sys.platform.startswith("linux"):
        pytest.skip("thread niceness is read from /proc")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    before, first, second, thread, wanted = map(int, out.stdout.split())
    assert wanted == 10
    assert first == second == thread == max(before, wanted)  # never raised back
