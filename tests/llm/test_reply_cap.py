"""A reply that never ends is cut at MAX_REPLY_CHARS on our side: the stream stops, what
came up to the cap is kept, the connection is closed and the next request works."""

from __future__ import annotations

import time

from companion_desktop.llm.base import (
    MAX_REPLY_CHARS,
    ChatMessage,
    ToolCall,
    ToolSpec,
    capped_reply,
)
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import ScriptedCall, openai_stream, openai_tool_call_events

HELLO = [ChatMessage("user", "hello")]
PIECE = "la " * 100  # 300 characters an event


def endless(server, events: int, delay_s: float = 0.0) -> str:
    """Script a reply of ``events`` pieces; the text it streams."""
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream([PIECE] * events), delay_s=delay_s),
              StreamReply(openai_stream(["short answer"])))
    return PIECE * events


def test_the_cap_is_about_twelve_thousand_tokens():
    assert MAX_REPLY_CHARS == 48_000


def test_a_long_reply_is_cut_at_the_cap_and_kept(provider_server, make_provider):
    full = endless(provider_server, 400)  # 120 000 characters
    provider = make_provider("openai")
    kept = "".join(capped_reply(provider.stream_chat("sys", HELLO)))
    assert kept == full[:MAX_REPLY_CHARS]
    again = "".join(capped_reply(provider.stream_chat("sys", HELLO)))
    assert again == "short answer"  # the next turn works


def test_the_stream_is_closed_at_the_cap_not_read_to_its_end(provider_server, make_provider):
    endless(provider_server, 400, delay_s=0.05)  # 20 s to send it all
    provider = make_provider("openai")
    started = time.monotonic()
    kept = "".join(capped_reply(provider.stream_chat("sys", HELLO), limit=3000))
    assert len(kept) == 3000
    assert time.monotonic() - started < 5.0


def test_a_short_reply_and_tool_calls_pass_untouched(provider_server, make_provider):
    calls: list[ScriptedCall] = [("call_1", "lookup", {"q": "weather"})]
    provider_server.on("POST", "/v1/chat/completions",
                       StreamReply(openai_tool_call_events(calls, texts=["Let me look."])))
    provider = make_provider("openai")
    spec = ToolSpec("lookup", "Look something up.", {"type": "object", "properties": {}})
    items = list(capped_reply(provider.stream_round("sys", HELLO, [spec])))
    assert "".join(i for i in items if isinstance(i, str)) == "Let me look."
    assert [i.name for i in items if isinstance(i, ToolCall)] == ["lookup"]


def test_nothing_after_the_cap_is_taken():
    closed = []

    def pieces():
        try:
            yield "abc"
            yield "defgh"
            yield ToolCall("1", "late", {})
        finally:
            closed.append(True)

    assert list(capped_reply(pieces(), limit=5)) == ["abc", "de"]
    assert closed == [True]
