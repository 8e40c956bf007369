"""MCP client: one background asyncio loop holding a session per enabled server.

:class:`McpHub` is called from ordinary threads (the pipeline worker, the settings
page); every blocking method hands a coroutine to its loop thread and waits with a
timeout. Sessions are opened lazily on first use and reopened once when found
broken. Server processes (stdio) get a minimal environment plus their configured
variables; their stderr goes to a private temporary file whose last line explains
a failed start. No method logs an environment or header value.

The per-server session lives in :mod:`~companion_desktop.llm.mcp_session`, the result
and error helpers in :mod:`~companion_desktop.llm.mcp_results`; their public names are
importable from here too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
import weakref
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar

import anyio

from companion_desktop.llm import keys
from companion_desktop.llm.mcp_results import (
    CallOutcome,
    McpServerError,
    McpTool,
    describe_size,
    outcome_from_result,
)
from companion_desktop.llm.mcp_session import (
    EXTRA_INHERITED_ENV,
    HTTP_TIMEOUT,
    MAX_TOOL_PAGES,
    STDERR_LIMIT,
    STOP_TIMEOUT,
    McpConnection,
    McpServerConfig,
)

__all__ = [
    "EXTRA_INHERITED_ENV",
    "HTTP_TIMEOUT",
    "MAX_TOOL_PAGES",
    "STDERR_LIMIT",
    "STOP_TIMEOUT",
    "CallOutcome",
    "McpHub",
    "McpCallStopped",
    "McpHubClosed",
    "McpServerConfig",
    "McpServerError",
    "McpTool",
    "SecretLookup",
    "ServerEntry",
    "config_from_entry",
    "describe_size",
    "outcome_from_result",
]

log = logging.getLogger("companion_desktop.llm.mcp")

T = TypeVar("T")

#: How often a waiting caller looks at its cancel token (seconds).
CANCEL_POLL_S = 0.05
#: The longest ``close`` waits for the servers to stop (seconds); the app quits within 3 s.
CLOSE_TIMEOUT = 2.0
STOPPED = "The tool call was stopped; it may have done part of its work."
#: Every open hub, for ``interrupt_all`` at quit.
_HUBS: weakref.WeakSet[McpHub] = weakref.WeakSet()


class _Cancel(Protocol):
    @property
    def cancelled(self) -> bool: ...


def interrupt_all() -> None:
    """Stop waiting on every hub's calls at once (the app is quitting): each blocked
    ``call_tool`` returns a "stopped" outcome and other blocked methods raise
    McpHubClosed within CANCEL_POLL_S; the hubs still need ``close``."""
    for hub in list(_HUBS):
        hub.interrupt()


class McpHubClosed(RuntimeError):
    """The hub was closed; no more calls are possible."""


class McpCallStopped(McpHubClosed):
    """The caller's cancel token was set, or the hub interrupted, while it waited."""


class ServerEntry(Protocol):
    """The stored settings of one server (storage's McpServerEntry has this shape)."""

    name: str
    transport: Literal["stdio", "http"]
    command: str
    args: list[str]
    env_names: list[str]
    url: str
    header_names: list[str]
    enabled: bool


SecretLookup = Callable[[str, str, str], "str | None"]


def config_from_entry(
    entry: ServerEntry, secret_lookup: SecretLookup | None = None
) -> McpServerConfig:
    """The config of ``entry`` with env/header values from ``secret_lookup(server, kind,
    name)`` (default: the keyring). Names without a stored value are left out."""
    lookup = secret_lookup or keys.get_mcp_secret

    def values(kind: str, names: Iterable[str]) -> dict[str, str]:
        found = {name: lookup(entry.name, kind, name) for name in names if name}
        return {name: value for name, value in found.items() if value is not None}

    return McpServerConfig(
        name=entry.name,
        transport=entry.transport,
        command=entry.command.strip(),
        args=tuple(entry.args),
        env=values("env", entry.env_names),
        url=entry.url.strip(),
        headers=values("header", entry.header_names),
        enabled=entry.enabled,
    )


class McpHub:
    """Sessions to the enabled MCP servers of ``configs``, on one background thread.

    ``connect_timeout`` (seconds) bounds opening a session and each tools/list.
    """

    def __init__(self, configs: Iterable[McpServerConfig] = (), *, connect_timeout: float = 20.0):
        self.connect_timeout = max(0.5, float(connect_timeout))
        self._configs: dict[str, McpServerConfig] = {}
        self._conns: dict[str, McpConnection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._retired: list[McpConnection] = []
        self._closed = False
        self._interrupted = threading.Event()
        self._close_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-hub", daemon=True)
        self._thread.start()
        _HUBS.add(self)
        self.update(configs)

    @property
    def configs(self) -> list[McpServerConfig]:
        """The configured servers (enabled or not), in the order given."""
        return list(self._configs.values())

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float,
                cancel: _Cancel | None = None, closing: bool = False) -> T:
        """Run ``coro`` on the loop; TimeoutError after ``timeout`` s. It is cancelled
        (McpCallStopped) when ``cancel`` is set or the hub is interrupted (unless
        ``closing``: close itself must run to the end)."""
        if self._closed or (self._interrupted.is_set() and not closing):
            coro.close()
            raise McpHubClosed("The MCP hub is closed.")
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("McpHub's blocking methods cannot run on its own loop.")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        end = time.monotonic() + timeout
        while True:
            try:
                return future.result(max(0.0, min(CANCEL_POLL_S, end - time.monotonic())))
            except concurrent.futures.TimeoutError:
                stopped = (cancel is not None and cancel.cancelled) or (
                    self._interrupted.is_set() and not closing)
                if stopped or time.monotonic() >= end:
                    future.cancel()
                    raise (McpCallStopped if stopped else TimeoutError)() from None

    def interrupt(self) -> None:
        """Stop waiting: blocked and later calls end at once (see ``interrupt_all``)."""
        self._interrupted.set()

    def update(self, configs: Iterable[McpServerConfig]) -> None:
        """Use ``configs`` from now on: removed, disabled or changed servers are closed
        (changed ones reconnect on next use). Later duplicates of a name are ignored."""
        fresh: dict[str, McpServerConfig] = {}
        for config in configs:
            fresh.setdefault(config.name, config)
        self._submit(self._apply(fresh), STOP_TIMEOUT * 2)

    async def _apply(self, fresh: dict[str, McpServerConfig]) -> None:
        stale = [
            name for name, conn in self._conns.items()
            if fresh.get(name) != conn.config or not fresh[name].enabled
        ]
        self._configs = fresh
        retired, self._retired = self._retired, []
        stopping = [self._conns.pop(name) for name in stale] + retired
        await asyncio.gather(*(conn.stop() for conn in stopping))

    def list_tools(self, timeout: float = 20.0) -> dict[str, list[McpTool] | McpServerError]:
        """Tools per enabled server, or the error that server gave (never raises for one
        server). Servers not done within ``timeout`` s get a timeout error."""
        names = [c.name for c in self._configs.values() if c.enabled]
        return self._submit(self._list_all(names, timeout), timeout + 5.0)

    async def _list_all(
        self, names: Sequence[str], timeout: float
    ) -> dict[str, list[McpTool] | McpServerError]:
        async def one(name: str) -> list[McpTool] | McpServerError:
            try:
                return await asyncio.wait_for(self._list_one(name), timeout)
            except TimeoutError:
                late = f"The MCP server {name!r} did not answer within {timeout:g} s."
                return McpServerError(name, late)
            except McpServerError as error:
                return error

        results = await asyncio.gather(*(one(name) for name in names))
        return dict(zip(names, results, strict=True))

    async def _list_one(self, name: str) -> list[McpTool]:
        for attempt in range(2):
            conn = await self._connected(name)
            try:
                return await conn.list_tools()
            except Exception as error:  # noqa: BLE001 - reconnect once, then report
                await conn.stop()
                if attempt:
                    raise conn.describe(error) from None
        raise AssertionError("unreachable")

    async def _connected(self, name: str) -> McpConnection:
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            config = self._configs.get(name)
            if config is None or not config.enabled:
                raise McpServerError(name, f"The MCP server {name!r} is not configured or is off.")
            conn = self._conns.get(name)
            if conn is None or conn.dead:
                if conn is not None:
                    self._retired.append(conn)  # finishes its own cleanup; closed later
                conn = McpConnection(config, self.connect_timeout)
                self._conns[name] = conn
                await conn.start()
            return conn

    def call_tool(
        self, server: str, name: str, arguments: Mapping[str, Any], timeout: float = 15.0,
        cancel: _Cancel | None = None,
    ) -> CallOutcome:
        """Run tool ``name`` of ``server`` for at most ``timeout`` s, or until ``cancel``
        is set (the turn's Stop, or quitting): then the call is abandoned and a "stopped"
        error outcome comes back within CANCEL_POLL_S. Failures come back as an error
        outcome; raises only McpHubClosed (the hub was closed before the call)."""
        timeout = max(0.1, float(timeout))
        try:
            return self._submit(
                self._call(server, name, dict(arguments), timeout),
                self.connect_timeout + timeout + STOP_TIMEOUT + 5.0, cancel,
            )
        except TimeoutError:
            return CallOutcome(f"The tool took longer than {timeout:g} s and was stopped.", True)
        except McpCallStopped:
            return CallOutcome(STOPPED, True)

    async def _call(
        self, server: str, name: str, arguments: dict[str, Any], timeout: float
    ) -> CallOutcome:
        for attempt in range(2):
            try:
                conn = await self._connected(server)
            except McpServerError as error:
                return CallOutcome(error.message, True)
            try:
                return await conn.call(name, arguments, timeout)
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                await conn.stop()
                if attempt:
                    break
        return CallOutcome(f"The connection to MCP server {server!r} was lost.", True)

    def close(self, timeout: float | None = None) -> None:
        """Stop every session and server process, waiting at most ``timeout`` s (default:
        CLOSE_TIMEOUT after ``interrupt``, when the app quits, else long enough for the SDK
        to terminate a server that ignores the end of its input); a server still stopping
        then ends when our end of its pipes closes. Idempotent."""
        if timeout is None:
            timeout = CLOSE_TIMEOUT if self._interrupted.is_set() else STOP_TIMEOUT * 2
        self._interrupted.set()  # a call still waiting gives up now
        with self._close_lock:
            if self._closed:
                return
            try:
                self._submit(self._apply({}), timeout, closing=True)
            except (TimeoutError, McpHubClosed):
                log.warning("MCP servers did not stop in time")
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(1.0)
            if not self._thread.is_alive():
                self._loop.close()

    def __enter__(self) -> McpHub:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
