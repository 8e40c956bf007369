"""One HTTP exchange that Stop and the stall limit can end at any moment.

Design: a short-lived worker thread sends the request and reads the body into a
queue; the caller's thread takes pieces from the queue, polling every 50 ms, so a
cancelled :class:`CancelToken` or a silence longer than the stall limit ends the
call in well under a second whatever the socket is doing (waiting for headers,
blocked mid-body). The worker is then woken by shutting the socket down (captured
through httpcore's ``trace`` extension or the response's ``network_stream``), and
closes the response itself, so no httpx object is ever used from two threads.
"""

from __future__ import annotations

import json
import logging
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx

from companion_desktop.llm.base import CancelledError, CancelToken, InvalidReplyError
from companion_desktop.llm.errors import (
    CallContext,
    error_for_redirect,
    error_for_status,
    error_for_transport,
    redact,
    stall_error,
)

log = logging.getLogger("companion_desktop.llm")

#: How often the caller's thread looks at the cancel token and the clock, in seconds.
POLL_S = 0.05
#: The most bytes read from an error response, and from a whole JSON reply.
ERROR_BODY_LIMIT = 64 * 1024
JSON_BODY_LIMIT = 32 * 1024 * 1024


class BodyStream:
    """An open response: ``status``, ``headers``, then iterate for body pieces (bytes).

    Raises CancelledError, StallError or the mapped transport/status LlmError.
    Always ``close()`` it (or use ``with``); closing early aborts the connection.
    """

    def __init__(
        self,
        client: httpx.Client,
        request: httpx.Request,
        ctx: CallContext,
        cancel: CancelToken | None = None,
    ) -> None:
        self._ctx = ctx
        self._cancel = cancel
        self._queue: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._stop = threading.Event()
        self._finished = False
        self._net: Any = None
        request.extensions = {**request.extensions, "trace": self._trace}
        worker = threading.Thread(
            target=self._run, args=(client, request), name="llm-http", daemon=True
        )
        worker.start()
        kind, value = self._next(ctx.connect_timeout + ctx.stall_timeout)
        if kind == "exc":
            self._finished = True
            raise error_for_transport(ctx, value)
        self.status: int = value[0]
        self.headers: httpx.Headers = value[1]
        if 300 <= self.status < 400:
            self.close()  # nothing more is read, nothing is sent anywhere else
            raise error_for_redirect(ctx, self.status, self.headers.get("location"))
        if self.status >= 300:
            body = self.read(ERROR_BODY_LIMIT)
            raise error_for_status(ctx, self.status, body, self.headers.get("retry-after"))

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def __iter__(self) -> Iterator[bytes]:
        while not self._finished:
            kind, value = self._next(self._ctx.stall_timeout)
            if kind == "data":
                yield value
            elif kind == "end":
                self._finished = True
            elif kind == "exc":
                self._finished = True
                raise error_for_transport(self._ctx, value)

    def read(self, limit: int = JSON_BODY_LIMIT) -> bytes:
        """The rest of the body (at most ``limit`` bytes; the rest is dropped)."""
        parts: list[bytes] = []
        size = 0
        for piece in self:
            if size < limit:
                parts.append(piece[: limit - size])
                size += len(parts[-1])
        return b"".join(parts)

    def finish(self, grace_s: float = 0.25) -> None:
        """After the terminal event: let the body end by itself for up to ``grace_s``
        seconds (so the connection can be reused), then close."""
        deadline = time.monotonic() + grace_s
        while not self._finished and time.monotonic() < deadline:
            try:
                wait = min(POLL_S, max(0.0, deadline - time.monotonic()))
                kind, _ = self._queue.get(timeout=wait)
            except queue.Empty:
                continue
            if kind in ("end", "exc"):
                self._finished = True
        self.close()

    def close(self) -> None:
        """Stop reading; aborts the connection when the body is not finished."""
        self._stop.set()
        if not self._finished:
            self._finished = True
            self._interrupt()

    def __enter__(self) -> BodyStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- caller's thread -------------------------------------------------------------
    def _next(self, limit_s: float) -> tuple[str, Any]:
        deadline = time.monotonic() + limit_s
        while True:
            if self._cancel is not None and self._cancel.cancelled:
                self.close()
                raise CancelledError("Stopped.")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                raise stall_error(self._ctx)
            try:
                return self._queue.get(timeout=min(POLL_S, remaining))
            except queue.Empty:
                continue

    def _interrupt(self) -> None:
        sock = None
        try:
            sock = self._net.get_extra_info("socket") if self._net is not None else None
        except Exception:  # noqa: BLE001 - best effort only
            sock = None
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    # -- worker thread ---------------------------------------------------------------
    def _trace(self, event: str, info: dict[str, Any]) -> None:
        if event in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            self._net = info.get("return_value") or self._net
            if self._stop.is_set():
                self._interrupt()

    def _run(self, client: httpx.Client, request: httpx.Request) -> None:
        try:
            # Never follow a redirect, whatever the client says: the key headers and
            # the whole conversation would go to wherever the server points.
            response = client.send(request, stream=True, follow_redirects=False)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            self._queue.put(("exc", exc))
            return
        try:
            self._net = response.extensions.get("network_stream") or self._net
            self._queue.put(("head", (response.status_code, response.headers)))
            for piece in response.iter_bytes():
                if self._stop.is_set():
                    return
                if piece:
                    self._queue.put(("data", piece))
            self._queue.put(("end", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            self._queue.put(("exc", exc))
        finally:
            try:
                response.close()
            except Exception:  # noqa: BLE001 - the connection is gone either way
                pass


def send(
    client: httpx.Client,
    method: str,
    url: str,
    ctx: CallContext,
    *,
    headers: dict[str, str] | None = None,
    json_body: Any = None,
    params: dict[str, Any] | None = None,
    cancel: CancelToken | None = None,
) -> BodyStream:
    """Send one request; the returned stream has its status checked already."""
    log.debug("%s %s", method, redact(url, ctx.api_key))
    request = client.build_request(method, url, headers=headers, json=json_body, params=params)
    return BodyStream(client, request, ctx, cancel)


def request_json(
    client: httpx.Client,
    method: str,
    url: str,
    ctx: CallContext,
    **kwargs: Any,
) -> Any:
    """Send one request and parse its whole JSON body (InvalidReplyError when it is not)."""
    with send(client, method, url, ctx, **kwargs) as body:
        raw = body.read()
    try:
        return json.loads(raw)
    except ValueError:
        raise InvalidReplyError(
            f"{ctx.provider_name} sent a reply that is not JSON ({len(raw)} bytes)."
        ) from None
