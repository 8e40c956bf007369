"""The Anthropic provider against a real server speaking the Messages API event stream."""

from __future__ import annotations

import pytest

from companion_desktop.llm.base import (
    AuthError,
    ChatMessage,
    RateLimitError,
    ServerError,
    StreamBrokenError,
)
from tests.llm.conftest import KEY
from tests.llm.provider_server import JsonReply, StreamReply
from tests.llm.wire_formats import (
    anthropic_error,
    anthropic_message,
    anthropic_models,
    anthropic_stream,
    sse,
)

MESSAGES = "/v1/messages"
HISTORY = [
    ChatMessage("assistant", "Welcome back!"),
    ChatMessage("user", "Hi"),
    ChatMessage("user", "I missed you."),
]


def test_stream_text_and_request_shape(provider_server, make_provider) -> None:
    provider_server.on(
        "POST", MESSAGES, StreamReply(anthropic_stream(["Hello", " again", "!"], thinking=["hmm"]))
    )
    provider = make_provider("anthropic", model="claude-test", temperature=1.4)

    assert "".join(provider.stream_chat("You are Mika.", HISTORY)) == "Hello again!"

    (request,) = provider_server.requests
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"].startswith("application/json")
    assert "authorization" not in request.headers
    body = request.json
    assert body["system"] == "You are Mika."
    assert body["stream"] is True and body["model"] == "claude-test"
    assert body["max_tokens"] == 1024 and body["temperature"] == 1.0
    assert body["messages"][0]["role"] == "user"
    assert body["messages"][1:] == [
        {"role": "assistant", "content": "Welcome back!"},
        {"role": "user", "content": "Hi\n\nI missed you."},
    ]
    assert all(m["role"] != "system" for m in body["messages"])


def test_no_system_field_when_the_system_prompt_is_empty(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["x"])))
    list(make_provider("anthropic").stream_chat("", [ChatMessage("user", "hey")]))
    assert "system" not in provider_server.requests[0].json


def test_missing_message_stop_is_a_broken_stream(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["part"], stop=False)))
    with pytest.raises(StreamBrokenError, match="message_stop"):
        list(make_provider("anthropic").stream_chat("s", HISTORY))


@pytest.mark.parametrize(
    "kind,expected",
    [
        ("overloaded_error", ServerError),
        ("rate_limit_error", RateLimitError),
        ("authentication_error", AuthError),
    ],
)
def test_error_event_mid_stream(provider_server, make_provider, kind, expected) -> None:
    events = anthropic_stream(["Hi"], stop=False)[:4]
    events.append(sse(anthropic_error(kind, f"{kind} happened"), "error"))
    provider_server.on("POST", MESSAGES, StreamReply(events))
    received: list[str] = []
    with pytest.raises(expected) as caught:
        for piece in make_provider("anthropic").stream_chat("s", HISTORY):
            received.append(piece)
    assert received == ["Hi"]
    assert KEY not in str(caught.value)


def test_complete_json_prefills_the_brace(provider_server, make_provider) -> None:
    provider_server.on(
        "POST", MESSAGES, JsonReply(anthropic_message('"mood": "content", "trust": 1}'))
    )
    history = [ChatMessage("user", "Hi"), ChatMessage("assistant", "Hello!")]
    result = make_provider("anthropic").complete_json("Extract the state.", history)
    assert result == {"mood": "content", "trust": 1}
    body = provider_server.requests[0].json
    assert "stream" not in body
    assert "JSON object" in body["system"]
    assert body["messages"][-1] == {"role": "assistant", "content": "{"}
    assert body["messages"][-2]["role"] == "user"


def test_complete_json_when_the_server_repeats_the_brace(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, JsonReply(anthropic_message('{"a": {"b": 2}}')))
    assert make_provider("anthropic").complete_json("s", [ChatMessage("user", "x")]) == {
        "a": {"b": 2}
    }


def test_list_models(provider_server, make_provider) -> None:
    provider_server.on("GET", "/v1/models", JsonReply(anthropic_models(["claude-a", "claude-b"])))
    provider = make_provider("anthropic", model="claude-b")
    assert provider.list_models() == ["claude-a", "claude-b"]
    assert "'claude-b' among them" in provider.test_connection()
    assert provider_server.requests[0].headers["x-api-key"] == KEY
