"""The first run finds every kind of local model server (real servers on 127.0.0.1 in
each one's format), sets the picked one up, and Settings > LLM Model brings it back."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from companion_desktop.llm.local_servers import default_servers
from companion_desktop.storage.settings import LlmSettings, load_settings
from companion_desktop.ui.settings.welcome import WAY_BACK, WelcomeDialog
from tests.conftest import T0
from tests.llm.local_server_fakes import LocalServers, closed_port

pytestmark = pytest.mark.qt

WAIT_MS = 8000


@pytest.fixture
def local():
    """LocalAI on the llama.cpp slot, vLLM, Jan, KoboldCpp, and GPT4All without a model;
    nothing at Ollama's and LM Studio's ports."""
    with LocalServers() as servers:
        ports = {"llamacpp": servers.add("localai", ["mistral-7b"]),
                 "vllm": servers.add("vllm", ["Qwen/Qwen2.5-7B-Instruct"]),
                 "jan": servers.add("jan", ["llama3.2-3b-instruct"]),
                 "koboldcpp": servers.add("koboldcpp", ["Tiefighter"]),
                 "gpt4all": servers.add("gpt4all", []),
                 "ollama": closed_port(), "lmstudio": closed_port()}
        yield ports, default_servers(ports)


def labels(dialog: WelcomeDialog) -> list[str]:
    return [dialog.found.item(i).text() for i in range(dialog.found.count())]


def pick(qtbot, dialog: WelcomeDialog, text: str) -> None:
    row = next(i for i, label in enumerate(labels(dialog)) if text in label)
    dialog.found.setCurrentRow(row)
    qtbot.mouseClick(dialog.use_button, Qt.MouseButton.LeftButton)


def saved(service) -> LlmSettings:
    with service.db.read_session() as session:
        return load_settings(session, LlmSettings)


def test_every_server_kind_is_listed_and_a_click_sets_it_up(qtbot, service, local):
    ports, servers = local
    dialog = WelcomeDialog(service, servers)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=WAIT_MS)
    assert labels(dialog) == [
        "mistral-7b    ·  LocalAI",
        "Qwen/Qwen2.5-7B-Instruct    ·  vLLM",
        "llama3.2-3b-instruct    ·  Jan",
        "koboldcpp/Tiefighter    ·  KoboldCpp",
    ]
    line = dialog.local_status.text()
    assert "Found 4 models" in line and "GPT4All answered without a model" in line
    pick(qtbot, dialog, "·  Jan")
    settings = saved(service)
    assert (settings.provider, settings.base_url, settings.model) == (
        "openai-compatible", f"http://127.0.0.1:{ports['jan']}/v1", "llama3.2-3b-instruct")


def test_a_server_with_a_preset_is_set_up_with_it(qtbot, service, local):
    ports, servers = local
    dialog = WelcomeDialog(service, servers)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=WAIT_MS)
    pick(qtbot, dialog, "vLLM")
    settings = saved(service)
    assert (settings.provider, settings.base_url) == ("vllm", f"http://127.0.0.1:{ports['vllm']}/v1")


def test_nothing_answering_names_every_place_looked(qtbot, service):
    servers = default_servers({kind: closed_port() for kind in (
        "ollama", "lmstudio", "llamacpp", "vllm", "jan", "koboldcpp", "gpt4all")})
    dialog = WelcomeDialog(service, servers)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=WAIT_MS)
    line = dialog.local_status.text()
    for name in ("Ollama", "LM Studio", "llama.cpp", "vLLM", "Jan", "KoboldCpp", "GPT4All"):
        assert name in line
    footer = [label.text() for label in dialog.findChildren(type(dialog.local_status))]
    assert any(WAY_BACK in text for text in footer)  # "Later" says where to come back


def test_settings_brings_the_welcome_back_and_shows_the_pick(qtbot, service, local):
    from companion_desktop.ui.settings import SettingsDialog

    ports, servers = local
    settings_dialog = SettingsDialog(service, lambda: T0, page="LLM Model")
    qtbot.addWidget(settings_dialog)
    page = settings_dialog.llm
    assert page.provider_id is None
    page.local_servers = servers
    qtbot.mouseClick(page.find_button, Qt.MouseButton.LeftButton)
    welcome = page.welcome
    assert welcome.isVisible()
    qtbot.waitUntil(lambda: welcome.again_button.isEnabled(), timeout=WAIT_MS)
    pick(qtbot, welcome, "KoboldCpp")
    assert not welcome.isVisible()
    assert page.provider_id == "openai-compatible"
    assert page.base_url.text() == f"http://127.0.0.1:{ports['koboldcpp']}/v1"
    assert page.model.currentText() == "koboldcpp/Tiefighter"
    assert settings_dialog.save()  # the page's own save keeps the pick
    assert saved(service).base_url == f"http://127.0.0.1:{ports['koboldcpp']}/v1"
