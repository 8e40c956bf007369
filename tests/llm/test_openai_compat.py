"""OpenAI-compatible providers against a real server speaking the chat-completions format."""

from __future__ import annotations

import pytest

from companion_desktop.llm.base import (
    BadRequestError,
    ChatMessage,
    InvalidReplyError,
    ServerError,
    StreamBrokenError,
)
from companion_desktop.llm.openai_compat import adjust_for_refusal
from tests.llm.conftest import KEY
from tests.llm.provider_server import JsonReply, RawReply, StreamReply
from tests.llm.wire_formats import (
    ollama_tags,
    openai_completion,
    openai_error,
    openai_models,
    openai_stream,
    sse,
)

CHAT = "/v1/chat/completions"
HISTORY = [
    ChatMessage("user", "Hello"),
    ChatMessage("assistant", "Hi there."),
    ChatMessage("user", "How are you?"),
]


def test_stream_joins_the_scripted_text_and_sends_the_right_request(
    provider_server, make_provider
) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["I'm ", "fine", ", thanks!"])))
    provider = make_provider("openai", temperature=0.5, max_tokens=200)

    assert "".join(provider.stream_chat("You are Mika.", HISTORY)) == "I'm fine, thanks!"

    (request,) = provider_server.requests
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "http-referer" not in request.headers
    body = request.json
    assert body["stream"] is True and body["model"] == "test-model"
    assert body["temperature"] == 0.5 and body["max_tokens"] == 200
    assert body["messages"] == [
        {"role": "system", "content": "You are Mika."},
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "How are you?"},
    ]


def test_reasoning_deltas_are_ignored(provider_server, make_provider) -> None:
    events = openai_stream(["Answer"], reasoning=["let me think", "..."])
    events.insert(2, sse({"choices": [{"index": 0, "delta": {"reasoning": "more"}}]}))
    provider_server.on("POST", CHAT, StreamReply(events))
    assert list(make_provider("deepseek").stream_chat("", HISTORY)) == ["Answer"]
    assert all(m["role"] != "system" for m in provider_server.requests[0].json["messages"])


def test_clean_end_with_finish_reason_but_no_done_is_accepted(
    provider_server, make_provider
) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["ok"], done=False)))
    assert "".join(make_provider("lmstudio").stream_chat("s", HISTORY)) == "ok"


def test_a_non_streamed_json_answer_to_a_streamed_request_is_read(
    provider_server, make_provider
) -> None:
    provider_server.on("POST", CHAT, JsonReply(openai_completion("Whole reply.")))
    assert list(make_provider("llamacpp").stream_chat("s", HISTORY)) == ["Whole reply."]


def test_keyless_local_server_gets_no_authorization_header(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["hi"])))
    provider = make_provider("ollama", api_key=None)
    assert "".join(provider.stream_chat("s", HISTORY)) == "hi"
    assert "authorization" not in provider_server.requests[0].headers


def test_openrouter_sends_app_attribution_headers(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["hi"])))
    "".join(make_provider("openrouter").stream_chat("s", HISTORY))
    headers = provider_server.requests[0].headers
    assert headers["x-title"] == "companion-desktop"
    assert "http-referer" not in headers  # no made-up site address is sent


def test_error_event_inside_the_stream(provider_server, make_provider) -> None:
    events = openai_stream(["partial"], finish=None, done=False)
    events.append(sse({"error": {"message": "Provider returned error", "code": 502}}))
    provider_server.on("POST", CHAT, StreamReply(events))
    with pytest.raises(ServerError, match="Provider returned error"):
        list(make_provider("openrouter").stream_chat("s", HISTORY))


def test_malformed_event_breaks_the_stream(provider_server, make_provider) -> None:
    events = openai_stream(["a", "b"])
    events.insert(2, "data: {not json\n\n")
    provider_server.on("POST", CHAT, StreamReply(events))
    with pytest.raises(StreamBrokenError, match="cut off"):
        list(make_provider("openai").stream_chat("s", HISTORY))


def test_complete_json_uses_json_mode_and_tolerates_fences(provider_server, make_provider) -> None:
    fenced = 'Here it is:\n```json\n{"mood": "happy", "affection": 2}\n```'
    provider_server.on("POST", CHAT, JsonReply(openai_completion(fenced)))
    result = make_provider("openai").complete_json("Extract the state.", HISTORY)
    assert result == {"mood": "happy", "affection": 2}
    body = provider_server.requests[0].json
    assert body["response_format"] == {"type": "json_object"}
    assert body["stream"] is False
    assert "json" in body["messages"][0]["content"].lower()


def test_complete_json_retries_once_without_response_format(provider_server, make_provider) -> None:
    provider_server.on(
        "POST", CHAT,
        JsonReply(openai_error("'response_format' of type 'json_object' is not supported"), 400),
        JsonReply(openai_completion('{"ok": true}')),
    )
    assert make_provider("vllm").complete_json("Reply in JSON.", HISTORY) == {"ok": True}
    first, second = provider_server.requests
    assert "response_format" in first.json and "response_format" not in second.json


def test_max_tokens_refusal_is_answered_with_max_completion_tokens(
    provider_server, make_provider
) -> None:
    refusal = openai_error(
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )
    provider_server.on(
        "POST", CHAT, JsonReply(refusal, 400), StreamReply(openai_stream(["done"]))
    )
    assert "".join(make_provider("openai").stream_chat("s", HISTORY)) == "done"
    second = provider_server.requests[1].json
    assert second["max_completion_tokens"] == 1024 and "max_tokens" not in second


def test_a_bad_request_that_cannot_be_adjusted_is_raised(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, JsonReply(openai_error("messages: too long " * 40), 400))
    with pytest.raises(BadRequestError) as caught:
        list(make_provider("openai").stream_chat("s", HISTORY))
    assert "messages: too long" in str(caught.value)
    assert len(str(caught.value)) < 420
    assert len(provider_server.requests) == 1


def test_complete_json_with_prose_only_is_an_invalid_reply(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, JsonReply(openai_completion("Sorry, I can't.")))
    with pytest.raises(InvalidReplyError, match="JSON object"):
        make_provider("openai").complete_json("json please", HISTORY)


def test_list_models_and_test_connection(provider_server, make_provider) -> None:
    provider_server.on("GET", "/v1/models", JsonReply(openai_models(["gpt-a", "test-model"])))
    provider = make_provider("openai")
    assert provider.list_models() == ["gpt-a", "test-model"]
    line = provider.test_connection()
    assert "2 models" in line and "'test-model' among them" in line
    assert provider_server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_ollama_falls_back_to_api_tags(provider_server, make_provider) -> None:
    provider_server.on("GET", "/v1/models", JsonReply({"error": "404 page not found"}, 404))
    provider_server.on("GET", "/api/tags", JsonReply(ollama_tags(["llama3.2:3b", "gemma3:4b"])))
    provider = make_provider("ollama", api_key=None, model="gemma3:4b")
    assert provider.list_models() == ["llama3.2:3b", "gemma3:4b"]
    assert "among them" in provider.test_connection()


def test_non_json_model_list_is_an_invalid_reply(provider_server, make_provider) -> None:
    provider_server.on("GET", "/v1/models", RawReply("<html>hello</html>", 200, "text/html"))
    with pytest.raises(InvalidReplyError):
        make_provider("openai-compatible").list_models()


def test_which_refusals_are_answered_by_changing_the_request() -> None:
    payload = {"model": "m", "max_tokens": 10, "temperature": 0.8, "messages": []}
    assert adjust_for_refusal(payload, "max_tokens is too large: 10 > 5") is None
    assert adjust_for_refusal(
        payload, "Unsupported value: 'temperature' does not support 0.8 with this model."
    ) == {"model": "m", "max_tokens": 10, "messages": []}
    assert adjust_for_refusal({**payload, "response_format": {}}, "bad")["temperature"] == 0.8
    assert payload["max_tokens"] == 10  # the original is left alone
