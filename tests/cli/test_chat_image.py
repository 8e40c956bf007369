"""``companion-desktop chat --image PATH``: a photo shown headless, end to end."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.cli.test_chat_cli import BLOCK, chat, chunks, server  # noqa: F401 - fixture
from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import anthropic_stream, openai_stream


def write_photo(path: Path, size=(3000, 2000)) -> Path:
    Image.new("RGB", size, (30, 120, 200)).save(path, "JPEG")
    return path


def local_vision_args(server: ProviderServer, model: str = "llava:13b") -> list[str]:
    return ["--provider", "ollama", "--base-url", server.url + "/v1", "--model", model]


def test_local_vision_model_sees_the_photo(server, tmp_path):
    photo = write_photo(tmp_path / "lake.jpg")
    reply = "Oh, that lake is so blue!\n" + BLOCK
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks(reply))))
    proc = chat(tmp_path / "data", *local_vision_args(server), "--image", str(photo),
                "--message", "Look at this", "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert turn["reply"] == "Oh, that lake is so blue!"
    assert "never leaves your computer" in turn["notice"]
    kept = Path(turn["keepsake"]["path"])
    assert kept.is_file() and kept.is_relative_to(tmp_path / "data")
    assert turn["keepsake"]["note"] == "They love hiking"
    body = server.requests_to("/v1/chat/completions")[0].json
    assert "<being_shown>" in body["messages"][0]["content"]
    parts = body["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": "Look at this"}
    url = parts[1]["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert max(sent.size) == 1568


def test_photo_alone_to_a_cloud_provider_notices_once(server, tmp_path):
    photo = write_photo(tmp_path / "cat.png", (400, 300))
    args = ["--provider", "anthropic", "--base-url", server.url + "/v1", "--model", "claude-test",
            "--image", str(photo), "--json"]
    reply = "A cat!\n" + BLOCK
    server.on("POST", "/v1/messages", StreamReply(anthropic_stream(chunks(reply))),
              StreamReply(anthropic_stream(chunks(reply))))
    first = json.loads(chat(tmp_path / "data", *args).stdout.strip())
    assert "Anthropic" in first["notice"]
    second = json.loads(chat(tmp_path / "data", *args).stdout.strip())
    assert "notice" not in second
    content = server.requests_to("/v1/messages")[0].json["messages"][-1]["content"]
    image = next(block for block in content if block["type"] == "image")
    assert (image["source"]["type"] == "base64"
            and image["source"]["media_type"] in ("image/jpeg", "image/png"))


def test_text_only_model_gets_a_message_and_nothing_is_saved(server, tmp_path):
    photo = write_photo(tmp_path / "x.jpg", (64, 64))
    proc = chat(tmp_path / "data", *local_vision_args(server, "llama3.1:8b"),
                "--image", str(photo), "--json")
    assert proc.returncode == 1
    assert "can't see images" in json.loads(proc.stdout.strip())["error"]
    assert server.requests_to("/v1/chat/completions") == []
    assert (not (tmp_path / "data" / "keepsakes").exists()
            or not any((tmp_path / "data" / "keepsakes").iterdir()))


@pytest.mark.parametrize("content", [b"", b"this is not a picture at all",
                                     b"\x89PNG\r\n\x1a\n broken"])
def test_unreadable_file_is_refused_with_a_message(server, tmp_path, content):
    bad = tmp_path / "broken.png"
    bad.write_bytes(content)
    proc = chat(tmp_path / "data", *local_vision_args(server), "--image", str(bad), "--json")
    assert proc.returncode == 1 and proc.stderr.strip()
    assert "Traceback" not in proc.stderr
    assert server.requests == []


def test_missing_file(server, tmp_path):
    proc = chat(tmp_path / "data", *local_vision_args(server), "--image",
                str(tmp_path / "nope.jpg"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip()
