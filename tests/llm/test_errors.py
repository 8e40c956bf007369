"""HTTP failures and unreachable servers become the right LlmError, never quoting the key."""

from __future__ import annotations

import logging
import socket
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from companion_desktop.llm.base import (
    AuthError,
    BadRequestError,
    ChatMessage,
    ConnectionFailedError,
    LlmError,
    ModelNotFoundError,
    ProviderConfig,
    RateLimitError,
    ServerError,
)
from companion_desktop.llm.errors import (
    CallContext,
    error_for_status,
    provider_detail,
    retry_after_seconds,
)
from companion_desktop.llm.registry import create_provider
from tests.llm.conftest import KEY
from tests.llm.provider_server import JsonReply
from tests.llm.wire_formats import anthropic_error, gemini_error, openai_error

ROUTES = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "google": "/v1beta/models/test-model:streamGenerateContent",
}
NAMES = {"openai": "OpenAI", "anthropic": "Anthropic", "google": "Google Gemini"}


def body_for(provider_id: str, status: int, message: str) -> dict:
    if provider_id == "anthropic":
        return anthropic_error("invalid_request_error", message)
    if provider_id == "google":
        return gemini_error(status, message, "INVALID_ARGUMENT")
    return openai_error(message)


CASES = [
    (401, AuthError, "The key was refused (401)"),
    (403, AuthError, "The key was refused (403)"),
    (404, ModelNotFoundError, "Model 'test-model' was not found at"),
    (429, RateLimitError, "Try again in 17 s"),
    (400, BadRequestError, "refused the request (400)"),
    (422, BadRequestError, "refused the request (422)"),
    (500, ServerError, "server error (500)"),
    (503, ServerError, "server error (503)"),
]


@pytest.mark.parametrize("provider_id", list(ROUTES))
@pytest.mark.parametrize("status,error_class,phrase", CASES)
def test_status_maps_to_error_class_with_a_clean_message(
    provider_server, make_provider, caplog, provider_id, status, error_class, phrase
) -> None:
    caplog.set_level(logging.DEBUG)
    headers = {"Retry-After": "17"} if status == 429 else {}
    body = body_for(provider_id, status, f"Problem with key {KEY} here")
    provider_server.on("POST", ROUTES[provider_id], JsonReply(body, status, headers))
    provider = make_provider(provider_id)

    with pytest.raises(error_class) as caught:
        list(provider.stream_chat("s", [ChatMessage("user", "hi")]))

    message = str(caught.value)
    assert phrase in message
    assert NAMES[provider_id] in message or status == 404
    assert KEY not in message and KEY not in caplog.text
    assert caught.value.status == status
    if status == 429:
        assert caught.value.retry_after == 17.0
    if status in (400, 422):
        assert "Problem with key *** here" in message
    assert not caught.value.retryable if status in (401, 403, 404, 400, 422) else True


JSON_ROUTES = {
    "openai": ("/v1/models", "/v1/chat/completions"),
    "anthropic": ("/v1/models", "/v1/messages"),
    "google": ("/v1beta/models", "/v1beta/models/test-model:generateContent"),
}


@pytest.mark.parametrize("provider_id", list(JSON_ROUTES))
def test_status_errors_from_json_calls_and_model_lists(
    provider_server, make_provider, provider_id
) -> None:
    models, complete = JSON_ROUTES[provider_id]
    provider_server.on("GET", models, JsonReply(body_for(provider_id, 401, "bad"), 401))
    provider_server.on("POST", complete, JsonReply(body_for(provider_id, 429, "slow"), 429))
    provider = make_provider(provider_id)
    with pytest.raises(AuthError):
        provider.list_models()
    with pytest.raises(AuthError):
        provider.test_connection()
    with pytest.raises(RateLimitError):
        provider.complete_json("json", [ChatMessage("user", "hi")])


def test_unscripted_model_list_404_does_not_name_a_model(make_provider) -> None:
    with pytest.raises(ModelNotFoundError, match=r"Nothing answered at .* \(404\)"):
        make_provider("openai-compatible").list_models()


def test_keyless_401_says_a_key_is_needed(provider_server, make_provider) -> None:
    provider_server.on("POST", ROUTES["openai"], JsonReply(openai_error("no key"), 401))
    with pytest.raises(AuthError, match="needs an API key"):
        list(make_provider("lmstudio", api_key=None).stream_chat("s", [ChatMessage("user", "x")]))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("provider_id", list(ROUTES))
def test_nothing_listening_is_a_connection_failure(provider_id) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    config = ProviderConfig(provider_id, url, "m", api_key=KEY, connect_timeout=1.0)
    provider = create_provider(config)
    with pytest.raises(ConnectionFailedError, match="Could not reach .*: is the server running"):
        list(provider.stream_chat("s", [ChatMessage("user", "x")]))
    with pytest.raises(ConnectionFailedError):
        provider.test_connection()


def test_retry_after_as_http_date_and_garbage() -> None:
    now = datetime(2025, 1, 1, 12, 0, tzinfo=timezone.utc)
    later = format_datetime(now + timedelta(seconds=90), usegmt=True)
    assert retry_after_seconds(later, now) == pytest.approx(90)
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None
    ctx = CallContext("OpenAI", "http://x/v1")
    error = error_for_status(ctx, 429, openai_error("Quota exceeded"))
    assert isinstance(error, RateLimitError) and error.retry_after is None
    assert "Try again later" in str(error) and "Quota exceeded" in str(error)


def test_provider_detail_shapes_and_truncation() -> None:
    assert provider_detail(b'{"error": "model not loaded"}') == "model not loaded"
    assert provider_detail([{"error": {"message": "list-wrapped"}}]) == "list-wrapped"
    assert provider_detail(b"plain text body") == "plain text body"
    long = provider_detail({"error": {"message": "x" * 1000}})
    assert len(long) == 300 and long.endswith("…")
    assert provider_detail(f"key={KEY}", KEY) == "key=***"


def test_every_error_is_an_llm_error_with_a_message() -> None:
    ctx = CallContext("vLLM", "http://127.0.0.1:8000/v1", model="m", api_key=KEY)
    for status in (301, 400, 401, 403, 404, 409, 418, 422, 429, 500, 502, 529):
        error = error_for_status(ctx, status, f"echo {KEY}")
        assert isinstance(error, LlmError) and str(error) and KEY not in str(error)
