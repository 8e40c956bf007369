"""The Gemini provider against a real server speaking the generateContent SSE format."""

from __future__ import annotations

import pytest

from companion_desktop.llm.base import BadRequestError, ChatMessage, StreamBrokenError
from tests.llm.conftest import KEY
from tests.llm.provider_server import JsonReply, StreamReply
from tests.llm.wire_formats import gemini_chunk, gemini_models, gemini_response, gemini_stream, sse

STREAM = "/v1beta/models/gemini-test:streamGenerateContent"
HISTORY = [ChatMessage("user", "Hi"), ChatMessage("assistant", "Hello!"), ChatMessage("user", "?")]


def test_stream_text_skips_thoughts_and_sends_the_right_request(
    provider_server, make_provider
) -> None:
    provider_server.on(
        "POST", STREAM, StreamReply(gemini_stream(["Good ", "morning"], thoughts=["plan"]))
    )
    provider = make_provider("google", model="models/gemini-test", max_tokens=300)

    assert "".join(provider.stream_chat("You are Mika.", HISTORY)) == "Good morning"

    (request,) = provider_server.requests
    assert request.query == {"alt": ["sse"]}
    assert request.headers["x-goog-api-key"] == KEY
    assert "key" not in request.query
    body = request.json
    assert body["systemInstruction"] == {"parts": [{"text": "You are Mika."}]}
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"text": "Hello!"}]},
        {"role": "user", "parts": [{"text": "?"}]},
    ]
    assert body["generationConfig"] == {"temperature": 0.8, "maxOutputTokens": 300}


def test_missing_finish_reason_is_a_broken_stream(provider_server, make_provider) -> None:
    provider_server.on("POST", STREAM, StreamReply(gemini_stream(["half"], finish=None)))
    with pytest.raises(StreamBrokenError):
        list(make_provider("google", model="gemini-test").stream_chat("s", HISTORY))


def test_blocked_prompt(provider_server, make_provider) -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}}
    provider_server.on("POST", STREAM, StreamReply([sse(blocked, newline="\r\n")]))
    with pytest.raises(BadRequestError, match="blocked the message"):
        list(make_provider("google", model="gemini-test").stream_chat("s", HISTORY))


def test_reply_withheld_for_safety(provider_server, make_provider) -> None:
    events = gemini_stream(["Sure, "], finish=None)
    events.append(sse(gemini_chunk([{"text": ""}], "SAFETY"), newline="\r\n"))
    provider_server.on("POST", STREAM, StreamReply(events))
    with pytest.raises(BadRequestError, match="SAFETY"):
        list(make_provider("google", model="gemini-test").stream_chat("s", HISTORY))


def test_complete_json_uses_response_mime_type(provider_server, make_provider) -> None:
    provider_server.on(
        "POST", "/v1beta/models/gemini-test:generateContent",
        JsonReply(gemini_response('{"mood": "playful"}')),
    )
    result = make_provider("google", model="gemini-test").complete_json("state", HISTORY)
    assert result == {"mood": "playful"}
    body = provider_server.requests[0].json
    assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert "JSON" in body["systemInstruction"]["parts"][0]["text"]


def test_list_models_keeps_generate_content_models(provider_server, make_provider) -> None:
    provider_server.on("GET", "/v1beta/models", JsonReply(gemini_models({
        "gemini-test": ["generateContent", "countTokens"],
        "text-embedding-x": ["embedContent"],
        "gemini-other": ["generateContent"],
    })))
    provider = make_provider("google", model="gemini-test")
    assert provider.list_models() == ["gemini-test", "gemini-other"]
    assert "2 models" in provider.test_connection()
    assert provider_server.requests[0].headers["x-goog-api-key"] == KEY
