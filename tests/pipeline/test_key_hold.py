"""No key goes to an address a restored backup brought until the user confirms it, for
the chat model, the transcription server and (in ``tests/ui``) the speech server."""

from __future__ import annotations

import keyring
import keyring.backends.fail
import pytest

from companion_desktop.pipeline.hearing import make_transcriber
from companion_desktop.pipeline.key_hold import confirm, held_url
from companion_desktop.pipeline.provider_setup import Overrides, ProviderNotReady, provider_config
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import HearingSettings, LlmSettings, save_settings
from companion_desktop.voice.stt import SttError

THEIRS = "http://127.0.0.1:9/v1"


@pytest.fixture(autouse=True)
def no_keyring(monkeypatch):
    for var in ("COMPANION_API_KEY", "COMPANION_STT_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    previous = keyring.core._keyring_backend
    keyring.set_keyring(keyring.backends.fail.Keyring())
    yield
    keyring.core._keyring_backend = previous


def held(**fields) -> LlmSettings:
    return LlmSettings(provider="openai-compatible", base_url=THEIRS, model="m",
                       unconfirmed_url=THEIRS, **fields)


def test_the_chat_model_gets_no_key_at_a_held_address(monkeypatch):
    assert provider_config(held()).api_key is None  # no key to send: it may go ahead
    monkeypatch.setenv("COMPANION_API_KEY", "sk-mine-123")
    with pytest.raises(ProviderNotReady, match=f"the chat model to {THEIRS}"):
        provider_config(held())
    mine = provider_config(held(), Overrides(base_url="http://127.0.0.1:8080/v1"))
    assert mine.api_key == "sk-mine-123"  # an address given now is the user's
    moved = held().model_copy(update={"base_url": "http://127.0.0.1:8080/v1"})
    assert provider_config(moved).api_key == "sk-mine-123"  # changed since: not held


def test_a_providers_own_address_is_never_held():
    preset = LlmSettings(provider="openai", base_url="https://api.openai.com/v1", model="m",
                         unconfirmed_url="https://api.openai.com/v1")
    assert held_url(preset) is None and held_url(held()) == THEIRS


def test_the_transcription_server_gets_no_key_at_a_held_address(monkeypatch, tmp_path):
    settings = HearingSettings(backend="server", base_url=THEIRS, unconfirmed_url=THEIRS)
    assert make_transcriber(settings, tmp_path).api_key is None
    monkeypatch.setenv("COMPANION_STT_API_KEY", "sk-hear-123")
    with pytest.raises(SttError, match="the transcription server"):
        make_transcriber(settings, tmp_path)
    confirmed = settings.model_copy(update={"unconfirmed_url": None})
    assert make_transcriber(confirmed, tmp_path).api_key == "sk-hear-123"


def test_confirming_clears_every_held_address(tmp_path):
    with Database.open(tmp_path) as db:
        with db.session() as session:
            save_settings(session, held())
            save_settings(session, HearingSettings(backend="server", base_url=THEIRS,
                                                   unconfirmed_url=THEIRS))
        with db.session() as session:
            assert confirm(session) == [("llm", THEIRS), ("hearing", THEIRS)]
        with db.session() as session:
            assert confirm(session) == []
