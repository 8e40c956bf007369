"""A photo dropped on her on the desktop, end to end: the real overlay and chat window,
the scripted vision model on 127.0.0.1, the keepsake on the photoboard."""

from __future__ import annotations

import os

import pytest

from companion_desktop.storage import keepsakes
from companion_desktop.storage.settings import LlmSettings, load_settings, save_settings
from tests.ui.chat.test_show_image import drag_enter, drop, sent_images, url_mime, write_photo
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script, reply_with_block

pytestmark = [
    pytest.mark.gl,
    pytest.mark.qt,
    pytest.mark.skipif(not os.environ.get("DISPLAY"),
                       reason="needs an X display (Xvfb) for OpenGL windows"),
]


def use_model(desktop, service, model: str) -> None:
    with service.db.session() as session:
        settings = load_settings(session, LlmSettings)
        settings.model = model
        save_settings(session, settings)
    desktop.chat.reconnect()


def test_a_photo_dropped_on_her_is_seen_answered_and_kept(desktop, qtbot, server, service,
                                                          tmp_path):
    use_model(desktop, service, "llava:7b")
    server.scripts.append(Script(reply_with_block("What a pretty garden!"), delay=0.01))
    photo = write_photo(tmp_path / "garden.jpg", size=(2400, 1800))
    view = desktop.overlay.view
    assert drag_enter(view, url_mime(photo)).isAccepted()
    drop(view, url_mime(photo))
    chat = desktop.chat
    qtbot.waitUntil(lambda: len(chat.transcript.bubbles("user")) == 1, timeout=15000)
    qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=15000)
    assert "What a pretty garden!" in desktop.overlay.bubble.label.text()
    assert [im.size for im in sent_images(server)] == [(1568, 1176)]
    assert chat.transcript.bubbles("user")[0].has_photo
    with service.db.read_session() as session:
        kept = keepsakes.list_keepsakes(session, service.db.path.parent)
    assert len(kept) == 1 and kept[0].image_path.is_file()


def test_a_text_only_model_says_so_on_her_bubble(desktop, qtbot, server, service, tmp_path):
    use_model(desktop, service, "llama3.1:8b")
    photo = write_photo(tmp_path / "garden.jpg")
    assert drag_enter(desktop.overlay.view, url_mime(photo)).isAccepted()
    drop(desktop.overlay.view, url_mime(photo))
    qtbot.waitUntil(lambda: "can't see images" in desktop.overlay.bubble.label.text(),
                    timeout=15000)
    assert sent_images(server) == [] and not desktop.chat.busy
