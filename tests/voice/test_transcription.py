"""RemoteTranscriber against a real 127.0.0.1 server speaking OpenAI's transcription wire
format: a multipart form parsed on the server side, JSON replies, errors and a redirect."""

from __future__ import annotations

import io
import json
import time
import wave
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler

import httpx
import numpy as np
import pytest

from companion_desktop.cli.bench.app_process import LocalServer
from companion_desktop.llm.transcription import RemoteTranscriber
from companion_desktop.voice.stt import SttError
from tests.llm.flood_reply import FloodReply
from tests.llm.provider_server import JsonReply, ProviderServer, StreamReply

KEY = "sk-stt-SECRET-0123456789abcdef"


class Server(LocalServer):
    """A transcription endpoint: ``reply`` (status, headers, body) is what it answers;
    ``requests`` what it was sent (headers and the parsed form)."""

    def __init__(self) -> None:
        self.reply: tuple[int, dict[str, str], bytes] = (200, {}, b"")
        self.requests: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests.append({"path": self.path, "headers": dict(self.headers),
                                       "form": parse_form(self.headers["Content-Type"], body)})
                status, headers, payload = owner.reply
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(Handler)


def parse_form(content_type: str, body: bytes) -> dict[str, tuple[str | None, str | None, bytes]]:
    """multipart/form-data as {name: (filename, content type, bytes)}."""
    assert content_type.startswith("multipart/form-data; boundary=")
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body)
    assert message.is_multipart()
    form = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        form[name] = (part.get_filename(), part.get("Content-Type"),
                      part.get_payload(decode=True))
    return form


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


@pytest.fixture
def client():
    with httpx.Client(timeout=10.0) as c:
        yield c


def tone(seconds: float = 1.5) -> np.ndarray:
    t = np.arange(int(seconds * 16000)) / 16000
    return (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)


def test_the_recording_goes_as_a_wav_form_and_the_text_comes_back(server, client):
    server.reply = (200, {}, json.dumps({"text": " Hello there. "}).encode())
    heard = RemoteTranscriber(server.url, "whisper-large", KEY, client).transcribe(tone(), "de")
    assert (heard.text, heard.language, heard.backend) == ("Hello there.", "de", "server")
    assert heard.audio_seconds == pytest.approx(1.5)
    (request,) = server.requests
    assert request["path"] == "/v1/audio/transcriptions"
    assert request["headers"]["Authorization"] == f"Bearer {KEY}"
    form = request["form"]
    assert form["model"][2] == b"whisper-large" and form["language"][2] == b"de"
    assert form["response_format"][2] == b"json"
    filename, kind, data = form["file"]
    assert filename == "speech.wav" and kind == "audio/wav"
    with wave.open(io.BytesIO(data)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 16000)
        samples = np.frombuffer(wav.readframes(wav.getnframes()), "<i2") / 32767
    assert samples.size == 24000 and np.allclose(samples, tone(), atol=1e-3)


def test_no_language_and_no_key_send_neither(server, client):
    server.reply = (200, {}, json.dumps({"text": "Bonjour", "language": "french"}).encode())
    heard = RemoteTranscriber(server.url + "/", "", None, client).transcribe(tone())
    assert heard.text == "Bonjour" and heard.language == "french"
    request = server.requests[0]
    assert "language" not in request["form"] and "Authorization" not in request["headers"]
    assert request["form"]["model"][2] == b"whisper-1"


@pytest.mark.parametrize("status,expected", [
    (500, "had an error (500); try again later. It said: model crashed"),
    (401, "refused the API key (401)"),
    (404, "no model \"whisper-1\" (404)"),
    (429, "rate-limiting"),
])
def test_an_error_reply_is_a_clear_message_without_the_key(server, client, status, expected):
    body = {"error": {"message": f"model crashed for {KEY}", "type": "server_error"}}
    server.reply = (status, {}, json.dumps(body).encode())
    with pytest.raises(SttError) as caught:
        RemoteTranscriber(server.url, "whisper-1", KEY, client).transcribe(tone())
    assert expected in str(caught.value) and KEY not in str(caught.value)


def test_a_redirect_is_refused_and_nothing_goes_where_it_points(server, client):
    elsewhere = Server()
    try:
        elsewhere.reply = (200, {}, b'{"text": "stolen"}')
        target = elsewhere.url + "/audio/transcriptions"
        server.reply = (307, {"Location": target}, b"")
        follow = httpx.Client(timeout=10.0, follow_redirects=True)  # even a client that would
        with pytest.raises(SttError) as caught:
            RemoteTranscriber(server.url, "whisper-1", KEY, follow).transcribe(tone())
        follow.close()
        message = str(caught.value)
        assert "redirects are not followed" in message and target in message
        assert elsewhere.requests == [] and KEY not in message
    finally:
        elsewhere.close()


def test_a_reply_that_is_not_json_or_has_no_text(server, client):
    transcriber = RemoteTranscriber(server.url, "whisper-1", None, client)
    server.reply = (200, {"Content-Type": "text/html"}, b"<html>proxy login</html>")
    with pytest.raises(SttError, match="not JSON"):
        transcriber.transcribe(tone())
    server.reply = (200, {}, b'{"segments": []}')
    with pytest.raises(SttError, match="no \"text\""):
        transcriber.transcribe(tone())


def test_an_unreachable_server_and_a_missing_address(client):
    with pytest.raises(SttError, match="Could not reach"):
        RemoteTranscriber("http://127.0.0.1:9/v1", "m", None, client).transcribe(tone())
    with pytest.raises(SttError, match="address"):
        RemoteTranscriber("", "m", None, client).transcribe(tone())


def test_its_key_is_its_own_never_the_chat_models(monkeypatch):
    import keyring
    from keyring.backends import fail

    from companion_desktop.llm.transcription import STT_ENV_VAR, transcription_key

    monkeypatch.setattr(keyring, "get_keyring", lambda: fail.Keyring())
    monkeypatch.setenv("COMPANION_API_KEY", "sk-chat-model-key")
    monkeypatch.delenv(STT_ENV_VAR, raising=False)
    assert transcription_key() is None
    monkeypatch.setenv(STT_ENV_VAR, KEY)
    assert transcription_key() == KEY


# -- replies that would exhaust the machine --------------------------------------------
@pytest.fixture
def scripted():
    with ProviderServer() as srv:
        yield srv


def remote(server: ProviderServer, client: httpx.Client, deadline_s: float = 300.0):
    return RemoteTranscriber(server.url + "/v1", "whisper-1", KEY, client, deadline_s)


def test_a_reply_past_the_cap_is_refused_without_being_read(scripted, client):
    """A 64 MiB {"text": ...} was read whole and its text kept."""
    flood = FloodReply(b'{"text": "', 64 * 1024 * 1024, tail=b'"}')
    scripted.on("POST", "/v1/audio/transcriptions", flood)
    with pytest.raises(SttError) as caught:
        remote(scripted, client).transcribe(tone())
    assert str(caught.value) == ("The speech-to-text server sent a reply larger than 1 MiB, "
                                 "the most the app accepts; the rest was not read.")
    assert flood.sent < 16 * 1024 * 1024  # what the sockets' buffers hold, not the reply


def test_an_error_reply_is_read_only_as_far_as_its_message(scripted, client):
    flood = FloodReply(b'{"error": {"message": "overloaded"}}', 64 * 1024 * 1024,
                       filler=b" ", status=503)
    scripted.on("POST", "/v1/audio/transcriptions", flood)
    with pytest.raises(SttError, match=r"had an error \(503\)"):
        remote(scripted, client).transcribe(tone())
    assert flood.sent < 16 * 1024 * 1024


@pytest.mark.parametrize("reply", [
    # a byte every 50 ms: each within the read timeout, the whole 3 s
    StreamReply([b'{"text": "hi"', *[b" "] * 60, b"}"], delay_s=0.05,
                content_type="application/json"),
    # the headers, then silence (the read blocks: the socket is shut down under it)
    StreamReply([b'{"text": "hi"}'], then="stall", at=0, stall_s=3.0,
                content_type="application/json"),
], ids=["trickle", "stall"])
def test_a_reply_that_takes_longer_than_the_deadline_is_stopped(scripted, client, reply):
    scripted.on("POST", "/v1/audio/transcriptions", reply,
                JsonReply({"text": "next"}))
    transcriber = remote(scripted, client, deadline_s=0.5)
    started = time.monotonic()
    with pytest.raises(SttError) as caught:
        transcriber.transcribe(tone())
    assert time.monotonic() - started < 1.5
    assert str(caught.value) == (f"The speech-to-text server at {scripted.url}/v1 took "
                                 "longer than 0.5 s to answer and was stopped.")
    assert transcriber.transcribe(tone()).text == "next"  # the next request works
