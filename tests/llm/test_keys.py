"""API keys in the keyring (a real in-memory backend), the environment override, and no leaks."""

from __future__ import annotations

import logging
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
