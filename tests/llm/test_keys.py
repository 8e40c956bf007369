"""API keys in the keyring (a real in-memory backend), the environment override, and no leaks."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import keyring
import keyring.backend
import keyring.core
import keyring.errors
import pytest
from keyring.backends import fail

from companion_desktop.llm import keys
from companion_desktop.llm.base import ProviderConfig

SECRET = "sk-live-DO-NOT-LEAK-9f8e7d6c5b4a"


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A working keyring that keeps passwords in a dict."""

    # Negative: never chosen by keyring's own auto-detection in other tests; these
    # tests install it explicitly with keyring.set_keyring().
    priority = -1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise keyring.errors.PasswordDeleteError("not found")
        del self.store[(service, username)]


class BrokenKeyring(MemoryKeyring):
    """A keyring that fails every operation, quoting what it was given."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked(f"locked while reading {username}")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"cannot store {password}")


@pytest.fixture
def use_keyring(monkeypatch) -> Iterator[object]:
    """Install a backend for one test (restoring the previous one); no env key."""
    monkeypatch.delenv(keys.ENV_VAR, raising=False)
    previous = keyring.core._keyring_backend
    installed: list[object] = []

    def install(backend: keyring.backend.KeyringBackend) -> keyring.backend.KeyringBackend:
        keyring.set_keyring(backend)
        installed.append(backend)
        return backend

    yield install
    keyring.core._keyring_backend = previous


def test_store_read_and_delete(use_keyring, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    backend = use_keyring(MemoryKeyring())
    assert keys.get_key("openai") is None
    keys.set_key("openai", f"  {SECRET} ")
    assert backend.store == {("companion-desktop", "openai"): SECRET}
    assert keys.get_key("openai") == SECRET
    assert keys.get_key("anthropic") is None
    keys.delete_key("openai")
    keys.delete_key("openai")  # nothing stored is fine
    assert keys.get_key("openai") is None
    assert "stored an API key for openai" in caplog.text
    assert SECRET not in caplog.text


def test_a_blank_key_deletes(use_keyring) -> None:
    backend = use_keyring(MemoryKeyring())
    keys.set_key("xai", SECRET)
    keys.set_key("xai", "   ")
    assert backend.store == {}


def test_environment_key_wins(use_keyring, monkeypatch) -> None:
    use_keyring(MemoryKeyring())
    keys.set_key("openai", "stored-key-123")
    monkeypatch.setenv(keys.ENV_VAR, SECRET)
    assert keys.get_key("openai") == SECRET
    config = keys.with_stored_key(ProviderConfig("openai", "", "m"))
    assert config.api_key == SECRET
    given = ProviderConfig("openai", "", "m", api_key="given")
    assert keys.with_stored_key(given) is given


def test_no_keyring_backend(use_keyring, monkeypatch) -> None:
    use_keyring(fail.Keyring())
    assert not keys.keyring_available()
    assert keys.get_key("openai") is None
    with pytest.raises(keys.KeyStoreError) as caught:
        keys.set_key("openai", SECRET)
    assert str(caught.value) == "No system keyring is available; set COMPANION_API_KEY instead."
    with pytest.raises(keys.KeyStoreError):
        keys.delete_key("openai")
    monkeypatch.setenv(keys.ENV_VAR, SECRET)
    assert keys.get_key("openai") == SECRET


def test_a_failing_keyring_never_leaks_the_key(use_keyring, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    use_keyring(BrokenKeyring())
    assert keys.get_key("openai") is None
    with pytest.raises(keys.KeyStoreError) as caught:
        keys.set_key("openai", SECRET)
    assert "PasswordSetError" in str(caught.value)
    assert SECRET not in str(caught.value) and caught.value.__cause__ is None
    assert SECRET not in caplog.text
    assert "KeyringLocked" in caplog.text


# --- one environment variable per purpose -------------------------------------------------
@pytest.fixture
def speech_server():
    import io
    import wave

    from tests.llm.provider_server import ProviderServer, RawReply

    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(24_000)
        w.writeframes(b"\x00\x10" * 2400)
    with ProviderServer() as server:
        server.on("POST", "/v1/audio/speech", RawReply(out.getvalue(), content_type="audio/wav"))
        yield server


def speak_once(server) -> dict[str, str]:
    """One real speech request as the app makes it (the key from keys.get_key for the
    speech server's entry); the headers the server received."""
    import httpx

    from companion_desktop.llm.tts import create_tts
    from companion_desktop.storage.settings import VOICE_KEY_ID, VoiceSettings

    settings = VoiceSettings(enabled=True, backend="openai", base_url=server.url + "/v1",
                             model="tts-1")
    with httpx.Client(timeout=5.0) as client:
        create_tts(settings, keys.get_key(VOICE_KEY_ID), client).synthesize("Hello there.")
    return server.requests_to("/v1/audio/speech")[-1].headers


def test_the_chat_key_never_goes_to_the_speech_server(use_keyring, monkeypatch, speech_server):
    use_keyring(MemoryKeyring())
    monkeypatch.delenv(keys.TTS_ENV_VAR, raising=False)
    monkeypatch.setenv(keys.ENV_VAR, SECRET)
    assert keys.get_key("openai") == SECRET
    headers = speak_once(speech_server)
    assert "authorization" not in headers
    assert SECRET not in repr(headers)


def test_each_purpose_has_its_own_variable(use_keyring, monkeypatch, speech_server):
    backend = use_keyring(MemoryKeyring())
    monkeypatch.setenv(keys.ENV_VAR, "sk-chat-model-key-1234")
    monkeypatch.setenv(keys.TTS_ENV_VAR, "sk-speech-key-5678")
    assert keys.env_var("anthropic") == "COMPANION_API_KEY"
    assert keys.env_var(keys.TTS_KEY_ID) == "COMPANION_TTS_API_KEY"
    assert keys.env_var(keys.STT_KEY_ID) == "COMPANION_STT_API_KEY"
    monkeypatch.delenv(keys.STT_ENV_VAR, raising=False)
    assert keys.get_key(keys.STT_KEY_ID) is None  # the chat key is not the transcriber's
    assert keys.get_key("anthropic") == "sk-chat-model-key-1234"
    assert speak_once(speech_server)["authorization"] == "Bearer sk-speech-key-5678"
    monkeypatch.delenv(keys.TTS_ENV_VAR)
    keys.set_key(keys.TTS_KEY_ID, "sk-stored-speech-key")  # the keyring's, not the chat's
    assert backend.store == {(keys.SERVICE, "voice"): "sk-stored-speech-key"}
    assert speak_once(speech_server)["authorization"] == "Bearer sk-stored-speech-key"


def test_no_keyring_names_the_variable_of_the_purpose(use_keyring):
    use_keyring(fail.Keyring())
    with pytest.raises(keys.KeyStoreError, match="set COMPANION_TTS_API_KEY instead"):
        keys.set_key(keys.TTS_KEY_ID, "sk-speech")
    with pytest.raises(keys.KeyStoreError, match="set COMPANION_API_KEY instead"):
        keys.set_key("openai", "sk-chat")


# --- keys are checked before they are kept ---------------------------------------------
@pytest.mark.parametrize(("key", "words"), [
    ("sk-abc def-123", "a space or line break"),
    ("sk-abc\ndef-123", "a space or line break"),
    ("sk-abc\x1b]52;c;x\x07", "control character"),
    ("sk-abc\x00def", "control character"),
    ("sk-abc\u202edef", "control character"),
    ("sk-abcdéf-123", "not plain ASCII"),
    ("sk-" + "a" * 5000, "5003 characters long"),
])
def test_a_key_that_cannot_be_one_is_refused_and_nothing_is_stored(use_keyring, key, words):
    backend = use_keyring(MemoryKeyring())
    with pytest.raises(keys.InvalidKeyError) as caught:
        keys.set_key("openai", key)
    assert words in str(caught.value) and key not in str(caught.value)
    assert backend.store == {}
    keys.set_key("openai", f"\n  {SECRET}\n")  # surrounding whitespace is trimmed, fine
    assert backend.store == {(keys.SERVICE, "openai"): SECRET}


def test_a_secret_too_long_for_the_windows_store_is_refused_clearly(use_keyring,
                                                                    monkeypatch) -> None:
    """CredWrite keeps at most 2560 bytes (UTF-16: 1280 characters); keyring would fail
    with an unexplained win32 error. Only Windows has the limit, so the platform is set."""
    backend = use_keyring(MemoryKeyring())
    monkeypatch.setattr(sys, "platform", "win32")
    long_key = "sk-" + "a" * 1400
    with pytest.raises(keys.KeyStoreError,
                       match="too long for the Windows credential store") as info:
        keys.set_key("openai", long_key)
    assert long_key not in str(info.value) and keys.ENV_VAR in str(info.value)
    with pytest.raises(keys.KeyStoreError, match="too long"):
        keys.set_mcp_secret("srv", "env", "TOKEN", "t" * 1281)
    assert backend.store == {}
    keys.set_key("openai", "sk-" + "a" * 1277)  # exactly 2560 bytes fits
    keys.set_mcp_secret("srv", "env", "TOKEN", "t" * 1280)
    assert len(backend.store) == 2
    monkeypatch.setattr(sys, "platform", "linux")
    keys.set_key("openai", long_key)  # other keyrings take it
    assert keys.get_key("openai") == long_key
