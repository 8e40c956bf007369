"""The welcome offers her own mind (the built-in offline model) where it is installed:
first while no local server answered, after the servers' models once one did; one click
saves it. Her mind is launched from a thread made before the app lowers its priority."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from companion_desktop.llm.local_servers import LocalServer
from companion_desktop.storage.settings import LlmSettings, load_settings
from companion_desktop.ui.settings.welcome import WelcomeDialog, builtin_offer, gigabytes
from tests.llm.local_server_fakes import closed_port
from tests.ui.settings.test_welcome_and_app import WAIT_MS, port_of

pytestmark = pytest.mark.qt


@pytest.fixture
def offered():
    model = builtin_offer()
    if model is None:
        pytest.skip("her mind's runtime or small test model is not installed")
    return model


def cards(dialog: WelcomeDialog) -> list[object]:
    layout = dialog.cards
    return [layout.itemAt(i).widget() for i in range(layout.count())]


def test_no_server_answered_offers_her_own_mind_first_and_one_click_saves_it(
        qtbot, service, offered):
    dialog = WelcomeDialog(service, (LocalServer("ollama", closed_port()),))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.again_button.isEnabled(), timeout=WAIT_MS)
    shown = cards(dialog)
    assert shown.index(dialog.mind_card) < shown.index(dialog.local_card)
    assert "use her own mind above or a cloud provider" in dialog.local_status.text()
    assert dialog.mind_button.objectName() == "primaryButton"
    chosen = []
    dialog.chosen.connect(lambda pid, model: chosen.append((pid, model)))
    qtbot.mouseClick(dialog.mind_button, Qt.MouseButton.LeftButton)
    assert chosen == [("builtin", offered.id)] and not dialog.isVisible()
    with service.db.read_session() as session:
        settings = load_settings(session, LlmSettings)
    assert (settings.provider, settings.model) == ("builtin", offered.id)


def test_a_server_with_models_comes_before_her_own_mind(qtbot, service, server, offered):
    dialog = WelcomeDialog(service, (LocalServer("ollama", port_of(server.root)),))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.found.count() > 0, timeout=WAIT_MS)
    shown = cards(dialog)
    assert shown.index(dialog.local_card) < shown.index(dialog.mind_card)
    assert dialog.mind_button.objectName() == "secondaryButton"


def test_the_card_says_what_she_is_and_how_big(qtbot, service, offered):
    dialog = WelcomeDialog(service, ())
    qtbot.addWidget(dialog)
    words = " ".join(label.text() for label in dialog.mind_card.findChildren(QLabel))
    assert "private, offline, slower than a real model" in words
    assert gigabytes(offered.size) in words and "Ollama or a cloud model" in words


def test_sizes_read_as_people_say_them():
    assert gigabytes(1_117_320_768) == "1.2 GB"
    assert gigabytes(98_362_432) == "160 MB"


def test_her_mind_keeps_the_priority_the_app_started_with():
    """After ``HOST.prepare()`` then ``yield_cpu()``, a process her mind's launcher starts
    runs at the niceness from before; one started by the app's own thread inherits the
    lower priority."""
    import subprocess
    import sys

    code = (
        "import os, subprocess\n"
        "from companion_desktop.app import yield_cpu\n"
        "from companion_desktop.llm.mind.host import HOST\n"
        "before = os.nice(0)\n"
        "HOST.prepare()\n"
        "yield_cpu(min(19, before + 5))\n"  # lower than now, whatever the test runs at
        "def nice(p):\n"
        "    value = int(open(f'/proc/{p.pid}/stat').read().rsplit(')', 1)[1].split()[16])\n"
        "    p.kill(); p.wait(); return value\n"
        "sleep = ['sleep', '30']\n"
        "mind = HOST._launcher.call(lambda: subprocess.Popen(sleep))\n"
        "other = subprocess.Popen(sleep)\n"
        "print(before, nice(mind), nice(other))\n"
    )
    if not sys.platform.startswith("linux"):
        pytest.skip("Linux-only: reads the niceness from /proc")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    before, mind, other = map(int, out.stdout.split())
    assert before < 19 and mind == before and other == min(19, before + 5)
