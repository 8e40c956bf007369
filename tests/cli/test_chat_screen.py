"""``companion-desktop chat --screen active|full``: the user's screen shown headless, under
Xvfb with a window manager and another program's window showing a known pattern."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from tests.cli.test_chat_cli import BLOCK, chat, chunks, server  # noqa: F401 - fixture
from tests.cli.test_chat_image import local_vision_args
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import openai_stream
from tests.ui.desktop.x11_desktop import PatternWindow, start_window_manager

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def xd():
    yield from start_window_manager()


def shown(xd, app: str, title: str) -> PatternWindow:  # noqa: ANN001
    win = PatternWindow(xd, 600, 200, 640, 400, app, title)
    for _ in range(200):
        if win.client_box()[1] > 0:
            break
        xd.sync()
        __import__("time").sleep(0.02)
    win.activate()
    __import__("time").sleep(0.3)
    return win


def test_the_active_window_reaches_the_model_and_is_not_kept(xd, server, tmp_path):
    win = shown(xd, "firefox", "Train times - Firefox")
    try:
        server.on("POST", "/v1/chat/completions",
                  StreamReply(openai_stream(chunks("Nice colours!\n" + BLOCK))))
        proc = chat(tmp_path / "data", *local_vision_args(server), "--screen", "active",
                    "--yes", "--message", "What do you think?", "--json")
    finally:
        win.close()
    assert proc.returncode == 0, proc.stderr
    assert "Captured your screen (Firefox)" in proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert turn["keepsake"] is None and turn["newMemory"] is None
    body = server.requests_to("/v1/chat/completions")[0].json
    assert "untrusted" in body["messages"][0]["content"]
    url = body["messages"][-1]["content"][1]["image_url"]["url"]
    picture = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")
    width, height = picture.size
    red = picture.getpixel((width // 4, height // 2))
    blue = picture.getpixel((3 * width // 4, height // 2))
    assert red[0] > 200 and red[2] < 60 and blue[2] > 200 and blue[0] < 60


def test_a_denied_active_window_is_never_captured(xd, server, tmp_path):
    win = shown(xd, "keepassxc", "Passwords - KeePassXC")
    try:
        proc = chat(tmp_path / "data", *local_vision_args(server), "--screen", "active",
                    "--yes", "--json")
    finally:
        win.close()
    assert proc.returncode != 0
    assert "private list" in proc.stderr
    assert server.requests_to("/v1/chat/completions") == []
