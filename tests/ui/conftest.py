"""UI fixtures: a real database per test, a scripted provider server on 127.0.0.1,
and the chat window wired to both exactly as the app wires it."""

from __future__ import annotations

import gc

import keyring
import pytest
from keyring.backend import KeyringBackend

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import LlmSettings, save_settings
from tests.conftest import T0
from tests.ui.scripted_provider import ScriptedServer


class MemoryKeyring(KeyringBackend):
    """A keyring held in a dict, standing in for the system one (set explicitly only:
    ``viable = False`` keeps keyring's own backend detection from choosing it)."""

    priority = 1
    viable = False

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, username):
        return self.store.get((service, username))

    def set_password(self, service, username, password):
        self.store[(service, username)] = password

    def delete_password(self, service, username):
        self.store.pop((service, username), None)


@pytest.fixture(scope="session", autouse=True)
def _freeze_imported_objects():
    """Everything imported so far is permanent: the per-test collection below then only
    walks what the tests made (seconds saved over the suite)."""
    gc.collect()
    gc.freeze()


@pytest.fixture(autouse=True)
def _collect_on_the_gui_thread(qapp):
    """What a test dropped is freed here, on the GUI thread. Left to Python's cycle
    collector, a dropped window or timer could be freed later from a worker thread
    (the pipeline's, a server's), which Qt does not survive."""
    yield
    qapp.processEvents()
    gc.collect()
    qapp.processEvents()


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch):
    """No key anywhere: not the developer's shell, not a real (or another test's) keyring.

    Tests that need a working keyring install one over this (``memory_keyring``).
    """
    import keyring.backends.fail

    for var in ("COMPANION_API_KEY", "COMPANION_TTS_API_KEY", "COMPANION_STT_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    previous = keyring.core._keyring_backend
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.core._keyring_backend = previous


@pytest.fixture
def memory_keyring():
    """A working keyring for one test (the autouse ``_no_keys`` restores the real one)."""
    ring = MemoryKeyring()
    keyring.set_keyring(ring)
    return ring


@pytest.fixture(autouse=True)
def _background_jobs_finish():
    """Pool jobs (model lists, probes) end before the next test's widgets exist."""
    yield
    from companion_desktop.ui.background import pool

    pool().waitForDone(5000)


@pytest.fixture
def service(tmp_path):
    db = Database.open(tmp_path / "data")
    yield CompanionService(db)
    db.close()


@pytest.fixture
def server():
    with ScriptedServer() as srv:
        yield srv


def use_server(service: CompanionService, server: ScriptedServer,
               model: str = "tiny-model") -> None:
    """Save the scripted server as the provider (OpenAI-compatible, no key)."""
    with service.db.session() as session:
        save_settings(session, LlmSettings(provider="openai-compatible", base_url=server.base_url,
                                           model=model))


def make_window(qtbot, service):
    from companion_desktop.ui.chat.backend import ChatBackend
    from companion_desktop.ui.chat.window import ChatWindow

    backend = ChatBackend(service, lambda: T0)
    backend.connect()
    window = ChatWindow(service, lambda: T0, backend)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


@pytest.fixture
def chat(qtbot, service, server):
    """The chat window talking to ``server``."""
    use_server(service, server)
    window = make_window(qtbot, service)
    yield window
    window.shutdown()


@pytest.fixture
def bare_chat(qtbot, service):
    """The chat window with no provider set up."""
    window = make_window(qtbot, service)
    yield window
    window.shutdown()
