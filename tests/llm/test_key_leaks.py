"""A key never shows in a message, in any form a message can carry it: raw, escaped as
Python writes it, JSON-escaped or URL-encoded; a key that cannot be a key (a line break,
a control character) is refused before it is sent."""

from __future__ import annotations

import json
from urllib.parse import quote, quote_plus

import httpx
import pytest

from companion_desktop.llm.base import AuthError, ChatMessage, ProviderConfig
from companion_desktop.llm.errors import CallContext, error_for_transport, provider_detail, redact
from companion_desktop.llm.registry import create_provider
from tests.llm.provider_server import ProviderServer

KEYS = ["sk-live\nSECRET-0123456789", "sk-tab\tSECRET-0123456789", "sk-esc\x1bSECRET-0123",
        "sk-quote\"SECRET'0123\\456", "sk-é-SECRET-ü-0123456789", "sk-plain-SECRET-0123456789"]


@pytest.mark.parametrize("key", KEYS)
def test_every_escaped_form_is_redacted(key):
    forms = [key, repr(key), repr(key.encode("utf-8", "backslashreplace")), json.dumps(key),
             json.dumps(key, ensure_ascii=False), quote(key, safe=""), quote_plus(key), quote(key)]
    for form in forms:
        text = redact(f"before {form} after", key)
        assert "SECRET" not in text, (form, text)
        assert text.startswith("before ") and text.endswith(" after")
    assert "SECRET" not in provider_detail({"error": {"message": f"bad key {key!r}"}}, key)


@pytest.mark.parametrize("key", ["sk-live\nSECRET-0123456789", "sk-cr\rSECRET-0123456789"])
def test_a_could_not_reach_message_never_carries_the_key(key):
    """The real exception httpx raises for such a header (it quotes the value as bytes)."""
    with ProviderServer() as server:
        url = server.url
        with httpx.Client() as client:
            try:
                client.get(server.url + "/v1/models", headers={"Authorization": f"Bearer {key}"})
            except httpx.HTTPError as exc:
                raised = exc
            else:  # pragma: no cover - httpx always refuses such a header
                pytest.fail("httpx sent a header with a line break")
    ctx = CallContext("OpenAI", url + "/v1", api_key=key)
    message = str(error_for_transport(ctx, raised))
    assert message.startswith("Could not reach") and "SECRET" not in message


@pytest.mark.parametrize("kind", ["openai", "anthropic", "google"])
def test_a_key_with_a_line_break_is_refused_before_anything_is_sent(kind):
    with ProviderServer() as server:
        config = ProviderConfig(kind, server.url + "/v1", "m", api_key="sk-live\nSECRET-0123")
        with pytest.raises(AuthError) as caught:
            provider = create_provider(config)
            list(provider.stream_chat("s", [ChatMessage("user", "hi")]))
        assert server.requests == []
    assert "SECRET" not in str(caught.value) and "line break" in str(caught.value)


def test_a_non_ascii_key_is_a_clear_error_not_a_crash():
    config = ProviderConfig("openai", "http://127.0.0.1:9/v1", "m", api_key="sk-clé-0123456")
    with pytest.raises(AuthError, match="not plain ASCII"):
        create_provider(config)
