"""A real HTTP server on 127.0.0.1 that speaks the providers' wire formats, scripted per test.

Usable from any test package (no pytest here)::

    from tests.llm.provider_server import ProviderServer, StreamReply
    from tests.llm.wire_formats import openai_stream

    with ProviderServer() as server:
        server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(["Hi", "!"])))
        ...  # point a provider at server.url + "/v1"
        assert server.requests[0].json["stream"] is True

Replies queued on a route are used in order; the last one keeps answering. Requests
without a script get a 404 in OpenAI's error shape. Every request is recorded
(method, path, query, headers, body) before it is answered. ``tests.llm.wire_formats``
builds the bodies and events each real API sends.
"""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from tests.llm.wire_formats import openai_error


@dataclass(frozen=True)
class Received:
    """One request as the server saw it; header names are lower-case."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    client_port: int = 0

    @property
    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class Reply:
    """How the server answers one request."""

    def send(self, handler: BaseHTTPRequestHandler, server: ProviderServer) -> None:
        raise NotImplementedError


@dataclass
class JsonReply(Reply):
    """A whole JSON body with ``status`` (errors use this with a provider's error shape)."""

    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)

    def send(self, handler: BaseHTTPRequestHandler, server: ProviderServer) -> None:
        RawReply(json.dumps(self.body), self.status, "application/json", self.headers).send(
            handler, server
        )


@dataclass
class RawReply(Reply):
    """Any body with a content type, sent with Content-Length."""

    body: bytes | str
    status: int = 200
    content_type: str = "text/plain"
    headers: dict[str, str] = field(default_factory=dict)

    def send(self, handler: BaseHTTPRequestHandler, server: ProviderServer) -> None:
        data = self.body.encode() if isinstance(self.body, str) else self.body
        handler.send_response(self.status)
        handler.send_header("Content-Type", self.content_type)
        handler.send_header("Content-Length", str(len(data)))
        for name, value in self.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
        handler.wfile.flush()


@dataclass
class StreamReply(Reply):
    """A chunked event stream. At chunk index ``at`` (default: after the last) it does
    ``then``: "end" (finish normally), "disconnect" (close the socket with no terminal
    chunk), or "stall" (stay silent ``stall_s`` seconds, then go on). ``delay_s`` is the
    pause between chunks, ``head_delay_s`` the silence before the status line."""

    chunks: list[str | bytes]
    then: Literal["end", "disconnect", "stall"] = "end"
    at: int | None = None
    stall_s: float = 10.0
    delay_s: float = 0.0
    head_delay_s: float = 0.0
    status: int = 200
    content_type: str = "text/event-stream"

    def send(self, handler: BaseHTTPRequestHandler, server: ProviderServer) -> None:
        if self.head_delay_s and server.stopping.wait(self.head_delay_s):
            return
        handler.send_response(self.status)
        handler.send_header("Content-Type", self.content_type)
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        handler.wfile.flush()
        at = len(self.chunks) if self.at is None else self.at
        for index in range(len(self.chunks) + 1):
            if index == at and self.then == "disconnect":
                handler.close_connection = True
                handler.connection.shutdown(socket.SHUT_RDWR)
                return
            if index == at and self.then == "stall" and server.stopping.wait(self.stall_s):
                return
            if index < len(self.chunks):
                chunk = self.chunks[index]
                data = chunk.encode() if isinstance(chunk, str) else chunk
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                handler.wfile.flush()
                if self.delay_s and server.stopping.wait(self.delay_s):
                    return
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle()

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
        return

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        owner = self.server.owner
        owner.record(Received(
            method=self.command,
            path=parts.path,
            query=parse_qs(parts.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            client_port=self.client_address[1],
        ))
        reply = owner.next_reply(self.command, parts.path)
        try:
            reply.send(self, owner)
        except OSError:
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    owner: ProviderServer


class ProviderServer:
    """The scripted server; ``url`` is ``http://127.0.0.1:<port>`` (no path)."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.stopping = threading.Event()
        self._routes: dict[tuple[str, str], list[Reply]] = {}
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> ProviderServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
            name="provider-server", daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def on(self, method: str, path: str, *replies: Reply) -> None:
        """Queue ``replies`` for ``method path`` (path without the query string)."""
        with self._lock:
            self._routes.setdefault((method.upper(), path), []).extend(replies)

    def record(self, received: Received) -> None:
        with self._lock:
            self.requests.append(received)

    def next_reply(self, method: str, path: str) -> Reply:
        with self._lock:
            queue = self._routes.get((method.upper(), path))
            if not queue:
                return JsonReply(openai_error(f"no script for {method} {path}"), status=404)
            return queue.pop(0) if len(queue) > 1 else queue[0]

    def requests_to(self, path: str) -> list[Received]:
        with self._lock:
            return [r for r in self.requests if r.path == path]
