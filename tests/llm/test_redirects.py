"""A redirect is never followed: a 3xx from the configured server would carry the key
headers (x-api-key, x-goog-api-key, Authorization) and the whole conversation to
another origin. Two real servers on 127.0.0.1: the first answers with a redirect to
the second, which must receive nothing; the message names where it pointed."""

from __future__ import annotations

import httpx
import pytest

from companion_desktop.llm.base import ChatMessage, ConnectionFailedError, ProviderConfig
from companion_desktop.llm.registry import create_provider, make_client
from companion_desktop.llm.tts import OpenAISpeechBackend, TtsError
from tests.llm.conftest import KEY, ROOTS
from tests.llm.provider_server import JsonReply, ProviderServer, RawReply, StreamReply
from tests.llm.wire_formats import openai_stream

SECRET_WORDS = "my secret diary entry"
CHAT_PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages",
              "google": "/v1beta/models/test-model:streamGenerateContent"}
LIST_PATHS = {"openai": "/v1/models", "anthropic": "/v1/models", "google": "/v1beta/models"}


@pytest.fixture
def servers():
    with ProviderServer() as first, ProviderServer() as elsewhere:
        for path in (*CHAT_PATHS.values(), *LIST_PATHS.values(), "/v1/audio/speech"):
            elsewhere.on("POST", path, StreamReply(openai_stream(["stolen"])))
            elsewhere.on("GET", path, JsonReply({"data": [{"id": "m"}]}))
        yield first, elsewhere


def redirect(first: ProviderServer, elsewhere: ProviderServer, method: str, path: str,
             status: int) -> str:
    target = elsewhere.url + path
    first.on(method, path, RawReply("", status=status, headers={"Location": target}))
    return target


def provider_for(kind: str, first: ProviderServer, client: httpx.Client | None = None):
    config = ProviderConfig(kind, first.url + ROOTS.get(kind, "/v1"), "test-model",
                            api_key=KEY, connect_timeout=2.0, stall_timeout=5.0)
    return create_provider(config, client or make_client(config))


@pytest.mark.parametrize("status", [307, 308, 301, 302])
@pytest.mark.parametrize("kind", ["openai", "anthropic", "google"])
def test_a_redirected_chat_sends_nothing_elsewhere(servers, kind, status):
    first, elsewhere = servers
    target = redirect(first, elsewhere, "POST", CHAT_PATHS[kind], status)
    with pytest.raises(ConnectionFailedError) as caught:
        list(provider_for(kind, first).stream_chat("sys", [ChatMessage("user", SECRET_WORDS)]))
    assert elsewhere.requests == []
    assert len(first.requests) == 1 and SECRET_WORDS in first.requests[0].body.decode()
    message = str(caught.value)
    assert target in message and f"({status})" in message and "not followed" in message
    assert KEY not in message


@pytest.mark.parametrize("kind", ["openai", "anthropic", "google"])
def test_a_redirected_model_list_sends_nothing_elsewhere(servers, kind):
    first, elsewhere = servers
    target = redirect(first, elsewhere, "GET", LIST_PATHS[kind], 307)
    with pytest.raises(ConnectionFailedError, match="tried to send the request to") as caught:
        provider_for(kind, first).list_models()
    assert elsewhere.requests == []
    assert target in str(caught.value) and KEY not in str(caught.value)


def test_even_a_client_that_follows_redirects_does_not(servers):
    first, elsewhere = servers
    target = redirect(first, elsewhere, "POST", CHAT_PATHS["anthropic"], 307)
    with httpx.Client(follow_redirects=True) as client:
        provider = provider_for("anthropic", first, client)
        with pytest.raises(ConnectionFailedError) as caught:
            list(provider.stream_chat("sys", [ChatMessage("user", SECRET_WORDS)]))
    assert elsewhere.requests == [] and target in str(caught.value)


def test_the_app_client_does_not_follow_redirects():
    config = ProviderConfig("openai", "http://127.0.0.1:9/v1", "m")
    with make_client(config) as client:
        assert client.follow_redirects is False


def test_a_relative_location_is_named_in_full_and_a_missing_one_said(servers):
    first, _ = servers
    first.on("POST", CHAT_PATHS["openai"],
             RawReply("", status=308, headers={"Location": "/v2/chat"}),
             RawReply("", status=307))
    with pytest.raises(ConnectionFailedError) as caught:
        list(provider_for("openai", first).stream_chat("s", [ChatMessage("user", "hi")]))
    assert f"{first.url}/v2/chat" in str(caught.value)
    with pytest.raises(ConnectionFailedError, match="elsewhere .no address given"):
        list(provider_for("openai", first).stream_chat("s", [ChatMessage("user", "hi")]))


def test_the_key_in_a_location_is_not_quoted(servers):
    first, elsewhere = servers
    first.on("POST", CHAT_PATHS["openai"], RawReply(
        "", status=307, headers={"Location": f"{elsewhere.url}/steal?key={KEY}"}))
    with pytest.raises(ConnectionFailedError) as caught:
        list(provider_for("openai", first).stream_chat("s", [ChatMessage("user", "hi")]))
    assert KEY not in str(caught.value) and f"{elsewhere.url}/steal?key=***" in str(caught.value)


@pytest.mark.parametrize("status", [307, 308, 301])
def test_a_redirected_speech_request_sends_nothing_elsewhere(servers, status):
    first, elsewhere = servers
    target = redirect(first, elsewhere, "POST", "/v1/audio/speech", status)
    with httpx.Client(follow_redirects=True) as client:
        backend = OpenAISpeechBackend(first.url + "/v1", "tts-1", KEY, client)
        with pytest.raises(TtsError) as caught:
            backend.synthesize(SECRET_WORDS)
    assert elsewhere.requests == []
    assert target in str(caught.value) and KEY not in str(caught.value)
