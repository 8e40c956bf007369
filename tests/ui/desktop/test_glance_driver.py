"""The desktop's glance: a minute's tick under the rules, the capture (replaced here by a
picture the test makes), the eye on her, the moment on the pipeline thread to a vision
model on 127.0.0.1, and a private window never looked at."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtGui import QColor, QImage

from companion_desktop.pipeline.glance import Glances
from companion_desktop.pipeline.proactive import SpeakFirst
from companion_desktop.storage.settings import ProactiveSettings, load_settings, save_settings
from companion_desktop.ui.desktop.screen.capture import ScreenRefused, ScreenShot
from companion_desktop.ui.desktop.screen.glance import DENIED_LINE, GlanceDriver
from tests.ui.conftest import make_window, use_server

pytestmark = pytest.mark.qt
WAIT_MS = 10_000


class Overlay:
    def __init__(self) -> None:
        self.eyes = 0

    def isVisible(self) -> bool:  # noqa: N802
        return False

    def show_eye(self) -> None:
        self.eyes += 1


@pytest.fixture
def glancing(qtbot, service, server):
    use_server(service, server, model="llava-test")
    with service.db.session() as session:
        settings = load_settings(session, ProactiveSettings)
        settings.glance = True
        save_settings(session, settings)
    window = make_window(qtbot, service)
    yield window
    window.shutdown()


def driver_for(window, capture, idle=timedelta(seconds=3)):
    clock = window.backend.clock
    glances = Glances(SpeakFirst(window.service.db, clock), clock)
    overlay = Overlay()
    driver = GlanceDriver(glances, lambda: idle, window.backend, overlay, capture=capture,
                          parent=window)
    return driver, overlay


def test_a_glance_shows_the_eye_and_sends_the_picture_once(glancing, server, qtbot):
    seen = []

    def capture(mode, deny, screen):  # noqa: ANN001
        seen.append((mode, tuple(deny)))
        image = QImage(400, 300, QImage.Format.Format_RGB32)
        image.fill(QColor(0, 0, 255))
        return ScreenShot(image, "Firefox")

    driver, overlay = driver_for(glancing, capture)
    results = []
    driver.glanced.connect(lambda result, label: results.append((result, label)))
    assert driver.tick()
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    assert seen[0][0] == "active" and "keepass" in seen[0][1]
    assert overlay.eyes == 1 and results[0][1] == "Firefox"
    assert any(isinstance(m["content"], list) for m in server.requests[0]["messages"])
    assert not driver.tick() and driver.last_why in ("glanced recently", "too soon")


def test_a_private_window_is_not_looked_at_and_the_chat_says_so(glancing, server, qtbot):
    def capture(mode, deny, screen):  # noqa: ANN001
        raise ScreenRefused("That window is on your private list, so I didn't look.")

    driver, overlay = driver_for(glancing, capture)
    lines = []
    driver.refused.connect(lines.append)
    assert not driver.tick()
    assert lines == [DENIED_LINE] and overlay.eyes == 0
    qtbot.wait(100)
    assert server.requests == []


def test_no_glance_while_the_user_is_away(glancing, server):
    driver, overlay = driver_for(glancing, lambda *a: None, idle=timedelta(minutes=10))
    assert not driver.tick() and driver.last_why == "the user is away" and overlay.eyes == 0


def test_after_a_restart_the_chat_shows_each_glance_as_it_did_then(glancing, server, qtbot):
    from companion_desktop.pipeline.system_lines import glance_line, system_line

    def capture(mode, deny, screen):  # noqa: ANN001
        image = QImage(320, 200, QImage.Format.Format_RGB32)
        image.fill(QColor(0, 128, 0))
        return ScreenShot(image, "Calc (budget)")

    driver, _overlay = driver_for(glancing, capture)
    results = []
    driver.glanced.connect(lambda result, label: results.append(result))
    assert driver.tick()
    qtbot.waitUntil(lambda: bool(results), timeout=WAIT_MS)
    again = make_window(qtbot, glancing.service)  # the app started again
    lines = [n.text() for n in again.transcript.notices("info")]
    assert glance_line("Calc (budget)") in lines
    assert not any("glanced at the user's screen" in line for line in lines)
    assert again.transcript.bubbles("her")[-1].text() == results[0].reply
    assert system_line("Speaking first: the user is back") == "💬 She spoke first"
    assert system_line("Reminder you set earlier is due now: stretch") == "⏰ Reminder: stretch"
    assert system_line("Something else") == "Something else"
    again.shutdown()
