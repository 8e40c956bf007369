"""A reply for :class:`~tests.llm.provider_server.ProviderServer` far larger than any cap:
``head`` then filler up to ``total`` bytes (with Content-Length), written as fast as the
socket takes it. ``sent`` counts what the client's side took before it hung up, which
shows whether a client stopped at its cap or read the whole body."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from tests.llm.provider_server import ProviderServer, Reply

PIECE = 64 * 1024


class FloodReply(Reply):
    def __init__(self, head: bytes, total: int, tail: bytes = b"", filler: bytes = b"a",
                 status: int = 200, content_type: str = "application/json") -> None:
        self.head, self.tail, self.total = head, tail, total
        self.filler, self.status, self.content_type = filler, status, content_type
        self.sent = 0

    def send(self, handler: BaseHTTPRequestHandler, server: ProviderServer) -> None:
        handler.send_response(self.status)
        handler.send_header("Content-Type", self.content_type)
        handler.send_header("Content-Length", str(self.total))
        handler.end_headers()
        middle = self.total - len(self.head) - len(self.tail)
        filler = self.filler * (PIECE // len(self.filler))
        try:
            self._write(handler, self.head)
            while middle > 0 and not server.stopping.is_set():
                self._write(handler, filler[:middle])
                middle -= min(middle, len(filler))
            self._write(handler, self.tail)
        except OSError:  # the client hung up
            handler.close_connection = True

    def _write(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        handler.wfile.write(data)
        handler.wfile.flush()
        self.sent += len(data)
