"""The incremental SSE parser: fields, multi-line data, comments, line endings, splitting."""

from __future__ import annotations

from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from companion_desktop.llm.sse import SseEvent, SseParser, iter_sse, iter_sse_lines

STREAM = (
    b": keep-alive comment\n"
    b"event: message_start\n"
    b"id: 7\n"
    b"data: {\"a\": 1}\n"
    b"\n"
    b"data: line one\r\n"
    b"data: line two\r\n"
    b"\r\n"
    b"retry: 1500\r"
    b"data:no-space\r"
    b"\r"
    b"data: [DONE]\n\n"
)
EXPECTED = [
    SseEvent(data='{"a": 1}', event="message_start", id="7"),
    SseEvent(data="line one\nline two", id="7"),
    SseEvent(data="no-space", id="7", retry=1500),
    SseEvent(data="[DONE]", id="7"),
]


def test_fields_comments_and_every_line_ending() -> None:
    events = list(iter_sse([STREAM]))
    assert events == EXPECTED
    assert events[-1].is_done and not events[0].is_done


def test_split_crlf_across_pieces_is_one_line_ending() -> None:
    parser = SseParser()
    assert parser.feed(b"data: a\r") == []
    assert parser.feed(b"\n\r") == [SseEvent(data="a")]
    assert parser.feed(b"\ndata: b\n\n") == [SseEvent(data="b")]


def test_multibyte_utf8_split_between_pieces() -> None:
    raw = "data: héllo 🌸\n\n".encode()
    cut = raw.index("🌸".encode()) + 2
    assert list(iter_sse([raw[:cut], raw[cut:]])) == [SseEvent(data="héllo 🌸")]


def test_unfinished_event_at_end_is_discarded_and_pending_is_reported() -> None:
    parser = SseParser()
    assert parser.feed(b"data: complete\n\ndata: half") == [SseEvent(data="complete")]
    assert parser.pending
    assert parser.close() == []


def test_malformed_lines_are_ignored_fields() -> None:
    events = list(iter_sse([b"garbage without colon\nunknown: x\ndata: ok\n\n"]))
    assert events == [SseEvent(data="ok")]


def test_bom_and_empty_data_and_comment_counting() -> None:
    parser = SseParser()
    events = parser.feed("\ufeffdata: first\n\n: ping\n\nevent: empty\n\ndata\n\n".encode())
    assert events == [SseEvent(data="first"), SseEvent(data="")]
    assert parser.comments == 1


def test_iter_lines_variant() -> None:
    lines = STREAM.decode().replace("\r\n", "\n").replace("\r", "\n").split("\n")
    assert list(iter_sse_lines(lines)) == EXPECTED


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(STREAM)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_events(cuts: list[int]) -> None:
    points = sorted(set(cuts))
    pieces = [STREAM[a:b] for a, b in pairwise([0, *points, len(STREAM)])]
    assert list(iter_sse(pieces)) == EXPECTED
