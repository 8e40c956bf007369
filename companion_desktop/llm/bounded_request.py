"""One request to a speech server whose reply cannot exhaust the machine.

The body is read a piece at a time and stopped at a byte cap (a reply is never held
whole first), and the whole exchange (connecting, sending the recording, waiting, reading)
has one deadline. The client's timeouts bound each wait but not their sum: a server that
sends a byte every few seconds never trips a read timeout. So a timer shuts the
connection's socket down when the deadline passes (the socket is captured through
httpcore's ``trace`` extension, as :mod:`~companion_desktop.llm.transport` does), and the
client's timeouts are cut to the deadline for what happens before there is a socket.
Redirects are never followed. Every failure is a :class:`ServerFailed` whose message
names the server and never holds a key.
"""

from __future__ import annotations

import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx

#: The longest one request to a speech server may take in all, in seconds. Five minutes
#: is 2.5 times the longest read timeout the app gives these servers (120 s), so a reply
#: that is only slow still arrives: a long recording sent over a slow uplink and
#: recognised on a CPU server, or a long reply synthesised there. One that trickles in a
#: byte at a time is stopped here instead of running for as long as the server likes.
REQUEST_DEADLINE_S = 300.0
#: The most bytes of an error reply read (its message is all that is wanted of it).
ERROR_BYTES = 4000


class ServerFailed(Exception):
    """The request failed; ``str(error)`` is a message for the user."""


@dataclass(frozen=True)
class Reply:
    """A whole reply: ``body`` is at most the cap for a 2xx, :data:`ERROR_BYTES` else."""

    status: int
    headers: httpx.Headers
    body: bytes

    @property
    def content_type(self) -> str:
        """The media type, lower-case, without parameters ("" when unlabelled)."""
        return self.headers.get("content-type", "").split(";")[0].strip().lower()


class _Deadline:
    """Shuts the connection down once ``seconds`` have passed; :attr:`passed` says so."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.passed = False
        self._ends = time.monotonic() + seconds
        self._net: Any = None
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace hook (on the request's thread): keeps the new connection."""
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self.attach(info.get("return_value"))

    def attach(self, net: Any) -> None:
        """Watch ``net`` (an httpcore network stream; None: keep the one watched)."""
        self._net = net or self._net
        if self.passed:
            self._shut()

    def check(self) -> None:
        """TimeoutError when the deadline has passed (between pieces of a body)."""
        if self.passed or time.monotonic() >= self._ends:
            self.passed = True
            raise TimeoutError

    def _expire(self) -> None:
        self.passed = True
        self._shut()

    def _shut(self) -> None:
        try:
            sock = self._net.get_extra_info("socket") if self._net is not None else None
            if isinstance(sock, socket.socket):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # not TLS's: the stream ends
        except (OSError, AttributeError):
            pass  # closed already: nothing left to stop

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()


class _TooLarge(Exception):
    """A 2xx body passed its cap."""


def _cut(timeout: httpx.Timeout, limit: float) -> httpx.Timeout:
    """``timeout`` with no part longer than ``limit`` seconds (None: ``limit``)."""
    def cut(value: float | None) -> float:
        return limit if value is None else min(value, limit)

    return httpx.Timeout(connect=cut(timeout.connect), read=cut(timeout.read),
                         write=cut(timeout.write), pool=cut(timeout.pool))


def _size(count: int) -> str:
    return f"{count // (1024 * 1024)} MiB" if count >= 1024 * 1024 else f"{count} bytes"


def fetch(client: httpx.Client, method: str, url: str, *, server: str, address: str,
          max_bytes: int, deadline_s: float = REQUEST_DEADLINE_S, **request: Any) -> Reply:
    """``method url`` over ``client``; ``request`` is what ``client.build_request`` takes
    (headers, json, data, files). A 2xx body over ``max_bytes`` is refused; any other
    status keeps its first :data:`ERROR_BYTES`. ``server`` ("speech server") and
    ``address`` name it in messages. ServerFailed when it cannot be reached, a timeout
    passes, the body is too large, or it all takes longer than ``deadline_s`` seconds."""
    deadline = _Deadline(deadline_s)
    built = client.build_request(method, url, timeout=_cut(client.timeout, deadline_s),
                                 extensions={"trace": deadline.trace}, **request)
    try:
        with deadline:
            response = client.send(built, stream=True, follow_redirects=False)
            try:
                deadline.attach(response.extensions.get("network_stream"))
                ok = 200 <= response.status_code < 300
                body = _read(response, max_bytes if ok else ERROR_BYTES, deadline, ok)
            finally:
                response.close()
    except _TooLarge:
        raise ServerFailed(f"The {server} sent a reply larger than {_size(max_bytes)}, the most "
                           "the app accepts; the rest was not read.") from None
    except Exception as error:  # noqa: BLE001 - after a shutdown the read fails any way
        if deadline.passed:
            raise ServerFailed(f"The {server} at {address} took longer than {deadline_s:g} s "
                               "to answer and was stopped.") from None
        if isinstance(error, httpx.TimeoutException):
            raise ServerFailed(f"The {server} at {address} did not answer in time.") from None
        if isinstance(error, httpx.HTTPError):
            raise ServerFailed(f"Could not reach the {server} at {address} "
                               f"({type(error).__name__}). Is it running?") from None
        raise
    return Reply(response.status_code, response.headers, body)


def _read(response: httpx.Response, limit: int, deadline: _Deadline, strict: bool) -> bytes:
    """The body up to ``limit`` bytes: past it, _TooLarge when ``strict``, else cut there."""
    parts: list[bytes] = []
    size = 0
    for piece in response.iter_bytes():
        deadline.check()
        size += len(piece)
        if size > limit:
            if strict:
                raise _TooLarge
            parts.append(piece[: len(piece) - (size - limit)])
            break
        parts.append(piece)
    return b"".join(parts)
