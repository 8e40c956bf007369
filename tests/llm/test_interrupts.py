"""Stop, the stall limit and broken connections end a call promptly with the right error."""

from __future__ import annotations

import threading
import time

import pytest

from companion_desktop.llm.base import (
    CancelledError,
    CancelToken,
    ChatMessage,
    StallError,
    StreamBrokenError,
)
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import anthropic_stream, gemini_stream, openai_stream

HISTORY = [ChatMessage("user", "Tell me a story.")]
TEXTS = ["Once", " upon", " a", " time", "..."]
STREAMS = {
    "openai": ("/v1/chat/completions", openai_stream(TEXTS)),
    "anthropic": ("/v1/messages", anthropic_stream(TEXTS)),
    "google": ("/v1beta/models/test-model:streamGenerateContent", gemini_stream(TEXTS)),
}
#: Index of the event carrying the second text piece in each stream (stall/cut there).
SECOND_TEXT = {"openai": 2, "anthropic": 4, "google": 1}


def http_workers() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "llm-http" and t.is_alive())


def wait_for_no_workers(limit_s: float = 1.0) -> bool:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if http_workers() == 0:
            return True
        time.sleep(0.02)
    return False


def cancel_after(token: CancelToken, seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, token.cancel)
    timer.start()
    return timer


@pytest.mark.parametrize("provider_id", list(STREAMS))
def test_stall_limit_raises_stall_error(provider_server, make_provider, provider_id) -> None:
    path, events = STREAMS[provider_id]
    at = SECOND_TEXT[provider_id] + 1
    provider_server.on("POST", path, StreamReply(events, then="stall", at=at, stall_s=10))
    provider = make_provider(provider_id, stall_timeout=0.5)
    received: list[str] = []
    start = time.monotonic()
    with pytest.raises(StallError, match=r"No reply for 0.5 s; the turn was stopped\."):
        for piece in provider.stream_chat("s", HISTORY):
            received.append(piece)
    assert 0.4 < time.monotonic() - start < 1.5
    assert received == TEXTS[:2]
    assert wait_for_no_workers()


def test_silence_before_the_headers_is_a_stall(provider_server, make_provider) -> None:
    path, events = STREAMS["openai"]
    provider_server.on("POST", path, StreamReply(events, head_delay_s=10))
    provider = make_provider("openai", stall_timeout=0.5, connect_timeout=0.3)
    start = time.monotonic()
    with pytest.raises(StallError):
        list(provider.stream_chat("s", HISTORY))
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("provider_id", list(STREAMS))
def test_stop_while_the_server_is_silent_ends_within_a_second(
    provider_server, make_provider, provider_id
) -> None:
    path, events = STREAMS[provider_id]
    at = SECOND_TEXT[provider_id] + 1
    provider_server.on("POST", path, StreamReply(events, then="stall", at=at, stall_s=10))
    provider = make_provider(provider_id, stall_timeout=30)
    token = CancelToken()
    received: list[str] = []
    start = time.monotonic()
    cancel_after(token, 0.3)
    with pytest.raises(CancelledError):
        for piece in provider.stream_chat("s", HISTORY, token):
            received.append(piece)
    assert time.monotonic() - start < 1.0
    assert received == TEXTS[:2]
    assert wait_for_no_workers(), "the reading thread was not woken by Stop"


def test_stop_before_the_headers_arrive(provider_server, make_provider) -> None:
    path, events = STREAMS["anthropic"]
    provider_server.on("POST", path, StreamReply(events, head_delay_s=10))
    token = CancelToken()
    cancel_after(token, 0.2)
    start = time.monotonic()
    with pytest.raises(CancelledError):
        list(make_provider("anthropic", stall_timeout=30).stream_chat("s", HISTORY, token))
    assert time.monotonic() - start < 1.0
    assert wait_for_no_workers()


def test_stop_during_complete_json(provider_server, make_provider) -> None:
    provider_server.on("POST", "/v1/chat/completions", StreamReply([], head_delay_s=10))
    token = CancelToken()
    cancel_after(token, 0.2)
    start = time.monotonic()
    with pytest.raises(CancelledError):
        make_provider("openai", stall_timeout=30).complete_json("json", HISTORY, token)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("provider_id", list(STREAMS))
def test_stop_between_chunks(provider_server, make_provider, provider_id) -> None:
    path, events = STREAMS[provider_id]
    provider_server.on("POST", path, StreamReply(events, delay_s=0.05))
    token = CancelToken()
    received: list[str] = []
    with pytest.raises(CancelledError):
        for piece in make_provider(provider_id).stream_chat("s", HISTORY, token):
            received.append(piece)
            if len(received) == 2:
                token.cancel()
    assert received == TEXTS[:2]
    assert wait_for_no_workers()


def test_a_token_cancelled_before_the_call(provider_server, make_provider) -> None:
    path, events = STREAMS["openai"]
    provider_server.on("POST", path, StreamReply(events))
    token = CancelToken()
    token.cancel()
    with pytest.raises(CancelledError):
        list(make_provider("openai").stream_chat("s", HISTORY, token))


@pytest.mark.parametrize("provider_id", list(STREAMS))
def test_disconnect_mid_stream_is_a_broken_stream(
    provider_server, make_provider, provider_id
) -> None:
    path, events = STREAMS[provider_id]
    at = SECOND_TEXT[provider_id] + 1
    provider_server.on("POST", path, StreamReply(events, then="disconnect", at=at))
    received: list[str] = []
    with pytest.raises(StreamBrokenError, match="The reply was cut off"):
        for piece in make_provider(provider_id).stream_chat("s", HISTORY):
            received.append(piece)
    assert received == TEXTS[:2]


def test_openai_stream_cut_after_the_finish_reason_is_still_whole(
    provider_server, make_provider
) -> None:
    path, events = STREAMS["openai"]
    provider_server.on("POST", path, StreamReply(events, then="disconnect", at=len(events) - 1))
    assert "".join(make_provider("openai").stream_chat("s", HISTORY)) == "".join(TEXTS)


def test_leaving_the_loop_early_closes_the_connection(provider_server, make_provider) -> None:
    path, events = STREAMS["openai"]
    provider_server.on("POST", path, StreamReply(events, then="stall", at=4, stall_s=10))
    stream = make_provider("openai", stall_timeout=30).stream_chat("s", HISTORY)
    assert next(stream) == "Once"
    stream.close()
    assert wait_for_no_workers()


def test_a_finished_stream_leaves_the_connection_reusable(provider_server, make_provider) -> None:
    path, events = STREAMS["openai"]
    provider_server.on("POST", path, StreamReply(events))
    provider = make_provider("openai")
    for _ in range(2):
        assert "".join(provider.stream_chat("s", HISTORY)) == "".join(TEXTS)
    first, second = provider_server.requests
    assert first.client_port == second.client_port
