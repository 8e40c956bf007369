"""Images shown with a user message, on the three wire formats, against a real server on
127.0.0.1: the exact JSON each API documents, decoded back to the same bytes."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from companion_desktop.llm.base import BadRequestError, ChatMessage, ImagePart
from companion_desktop.llm.content import merge_turns, to_openai_content
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import anthropic_stream, gemini_stream, openai_stream

CHAT = "/v1/chat/completions"
MESSAGES = "/v1/messages"
GEMINI = "/v1beta/models/test-model:streamGenerateContent"


def png(colour: tuple[int, int, int] = (250, 120, 30), size: tuple[int, int] = (4, 3)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


PNG = png()
B64 = base64.b64encode(PNG).decode("ascii")
SHOWN = ChatMessage("user", "Look at this sunset!", images=(ImagePart("image/png", PNG),))
HISTORY = [ChatMessage("user", "Hi"), ChatMessage("assistant", "Hello!"), SHOWN]


def decoded_png(data: str) -> tuple[int, int]:
    image = Image.open(io.BytesIO(base64.b64decode(data)))
    return image.size


def test_openai_image_goes_as_a_data_url_part(provider_server, make_provider) -> None:
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["Lovely!"])))
    assert "".join(make_provider("openai").stream_chat("sys", HISTORY)) == "Lovely!"

    messages = provider_server.requests[0].json["messages"]
    assert messages == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": [
            {"type": "text", "text": "Look at this sunset!"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}},
        ]},
    ]
    url = messages[-1]["content"][1]["image_url"]["url"]
    assert decoded_png(url.split(",", 1)[1]) == (4, 3)


def test_anthropic_image_block_comes_before_the_text(provider_server, make_provider) -> None:
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["Lovely!"])))
    assert "".join(make_provider("anthropic").stream_chat("sys", HISTORY)) == "Lovely!"

    messages = provider_server.requests[0].json["messages"]
    assert messages == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": B64}},
            {"type": "text", "text": "Look at this sunset!"},
        ]},
    ]
    assert decoded_png(messages[-1]["content"][0]["source"]["data"]) == (4, 3)


def test_gemini_inline_data_part_comes_before_the_text(provider_server, make_provider) -> None:
    provider_server.on("POST", GEMINI, StreamReply(gemini_stream(["Lovely!"])))
    assert "".join(make_provider("google").stream_chat("sys", HISTORY)) == "Lovely!"

    contents = provider_server.requests[0].json["contents"]
    assert contents == [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"text": "Hello!"}]},
        {"role": "user", "parts": [
            {"inlineData": {"mimeType": "image/png", "data": B64}},
            {"text": "Look at this sunset!"},
        ]},
    ]
    assert decoded_png(contents[-1]["parts"][0]["inlineData"]["data"]) == (4, 3)


def test_joined_user_messages_keep_both_images(provider_server, make_provider) -> None:
    second = png((10, 200, 90), (2, 2))
    history = [
        ChatMessage("user", "", images=(ImagePart("image/jpg", PNG),)),
        ChatMessage("user", "And this one.", images=(ImagePart("image/png", second),)),
    ]
    provider_server.on("POST", MESSAGES, StreamReply(anthropic_stream(["Both!"])))
    list(make_provider("anthropic").stream_chat("", history))
    (message,) = provider_server.requests[0].json["messages"]
    assert [block["type"] for block in message["content"]] == ["image", "image", "text"]
    first, other, text = message["content"]
    assert first["source"]["media_type"] == "image/jpeg"  # image/jpg is spelled as the API wants
    assert decoded_png(other["source"]["data"]) == (2, 2)
    assert text == {"type": "text", "text": "And this one."}


def test_an_image_without_words_sends_only_the_image(provider_server, make_provider) -> None:
    only = ChatMessage("user", " ", images=(ImagePart("image/png", PNG),))
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["Oh!"])))
    list(make_provider("ollama", api_key=None).stream_chat("", [only]))
    assert provider_server.requests[0].json["messages"] == [{"role": "user", "content": [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}]}]


def test_an_image_type_no_api_takes_is_refused_before_sending(
    provider_server, make_provider
) -> None:
    heic = ChatMessage("user", "hi", images=(ImagePart("image/heic", b"\0\0\0\x18ftypheic"),))
    provider_server.on("POST", CHAT, StreamReply(openai_stream(["x"])))
    with pytest.raises(BadRequestError, match="only JPEG, PNG, GIF and WebP") as caught:
        list(make_provider("openai").stream_chat("", [heic]))
    assert caught.value.retryable is False
    assert provider_server.requests == []


def test_text_only_messages_stay_plain_strings() -> None:
    assert to_openai_content(ChatMessage("user", "just words")) == "just words"
    turns = merge_turns([ChatMessage("user", "a"), ChatMessage("user", "  "),
                         ChatMessage("user", "b")])
    assert turns == [ChatMessage("user", "a\n\nb")]
    assistant = ChatMessage("assistant", "hi", images=(ImagePart("image/png", PNG),))
    assert to_openai_content(assistant) == "hi"  # only user messages carry images
