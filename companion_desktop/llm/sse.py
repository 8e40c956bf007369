"""An incremental Server-Sent Events parser (the WHATWG event-stream format).

Bytes arrive in arbitrary pieces; :class:`SseParser` keeps the unfinished line and
event between calls to :meth:`SseParser.feed`. Lines end in LF, CRLF or a lone CR
(a CR at the end of one piece followed by LF at the start of the next is one line
ending). Lines starting with ``:`` are comments (keep-alives) and are dropped; a line
without a colon is a field with an empty value; unknown fields are ignored. An event
is dispatched at a blank line; an unfinished event at the end of the stream is
discarded, as the standard says. ``[DONE]`` (the OpenAI-compatible end marker) is an
ordinary ``data`` value: see :attr:`SseEvent.is_done`.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

DONE = "[DONE]"


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event. ``event`` defaults to ``"message"``; ``retry`` is in ms."""

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None

    @property
    def is_done(self) -> bool:
        """True for the ``data: [DONE]`` end marker of OpenAI-compatible streams."""
        return self.data.strip() == DONE


class SseParser:
    """Feed it bytes (or text); it returns the events completed so far."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._after_cr = False
        self._first_line = True
        self._data: list[str] = []
        self._event = ""
        self._retry: int | None = None
        self._has_fields = False
        self.last_id: str | None = None
        self.comments = 0

    def feed(self, chunk: bytes | str) -> list[SseEvent]:
        """Parse one more piece of the stream; return the events it completed."""
        text = chunk if isinstance(chunk, str) else self._decoder.decode(chunk)
        events: list[SseEvent] = []
        for line in self._split_lines(text):
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def close(self) -> list[SseEvent]:
        """End of stream: a final line without its ending is processed; a pending
        event without its blank line is discarded (per the standard)."""
        tail = self._decoder.decode(b"", final=True)
        events = self.feed(tail) if tail else []
        if self._buffer:
            line, self._buffer = self._buffer, ""
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    @property
    def pending(self) -> bool:
        """True when an event has fields but no terminating blank line yet."""
        return self._has_fields or bool(self._buffer)

    def _split_lines(self, text: str) -> Iterator[str]:
        start = 0
        if self._after_cr and text.startswith("\n"):
            start = 1
        self._after_cr = False
        buf = self._buffer + text[start:]
        pos = 0
        length = len(buf)
        while pos < length:
            cr = buf.find("\r", pos)
            lf = buf.find("\n", pos)
            if cr < 0 and lf < 0:
                break
            if cr >= 0 and (lf < 0 or cr < lf):
                yield buf[pos:cr]
                if cr + 1 < length:
                    pos = cr + 2 if buf[cr + 1] == "\n" else cr + 1
                else:
                    self._after_cr = True
                    pos = cr + 1
            else:
                yield buf[pos:lf]
                pos = lf + 1
        self._buffer = buf[pos:]

    def _line(self, line: str) -> SseEvent | None:
        if self._first_line:
            self._first_line = False
            line = line.removeprefix("\ufeff")
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self.comments += 1
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self.last_id = value
        elif name == "retry":
            if value.isdigit():
                self._retry = int(value)
        else:
            return None
        self._has_fields = True
        return None

    def _dispatch(self) -> SseEvent | None:
        data, event, retry = self._data, self._event, self._retry
        self._data, self._event, self._retry, self._has_fields = [], "", None, False
        if not data:
            return None
        text = "\n".join(data)
        return SseEvent(data=text, event=event or "message", id=self.last_id, retry=retry)


def iter_sse(chunks: Iterable[bytes | str]) -> Iterator[SseEvent]:
    """Events from an iterable of byte (or text) pieces, e.g. ``httpx.Response.iter_bytes()``."""
    parser = SseParser()
    for chunk in chunks:
        yield from parser.feed(chunk)
    yield from parser.close()


def iter_sse_lines(lines: Iterable[str]) -> Iterator[SseEvent]:
    """Events from ``httpx.Response.iter_lines()`` (each item one line, no ending)."""
    parser = SseParser()
    for line in lines:
        yield from parser.feed(line + "\n")
    yield from parser.close()
