"""MCP client: one background asyncio loop holding a session per enabled server.

:class:`McpHub` is called from ordinary threads (the pipeline worker, the settings
page); every blocking method hands a coroutine to its loop thread and waits with a
timeout. Sessions are opened lazily on first use and reopened once when found
broken. Server processes (stdio) get a minimal environment plus their configured
variables; their stderr goes to a private temporary file whose last line explains
a failed start. No method logs an environment or header value.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import os
import tempfile
import threading
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from typing import IO, Any, Literal, Protocol, TypeVar

import anyio
import httpx
from mcp import ClientSession, McpError, StdioServerParameters, types
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client

from companion_desktop.llm import keys

log = logging.getLogger("companion_desktop.llm.mcp")

T = TypeVar("T")
#: Variables passed to stdio servers on top of the SDK's safe default set.
EXTRA_INHERITED_ENV = ("LANG", "LC_ALL", "LC_CTYPE", "TMPDIR")
#: Seconds a connection gets to shut down (the SDK waits 2 s, then terminates).
STOP_TIMEOUT = 6.0
#: Most pages of tools/list read from one server.
MAX_TOOL_PAGES = 20
#: HTTP timeouts (seconds): 30 to connect/write, 300 to read a held-open stream.
HTTP_TIMEOUT = httpx.Timeout(30.0, read=300.0)
#: A server's stderr file is emptied when it grows past this many bytes.
STDERR_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class McpServerConfig:
    """One server with its secrets resolved. ``transport`` "stdio" uses ``command``,
    ``args`` and ``env``; "http" (streamable HTTP) uses ``url`` and ``headers``."""

    name: str
    transport: Literal["stdio", "http"]
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    enabled: bool = True


@dataclass(frozen=True)
class McpTool:
    """A tool offered by ``server``; ``input_schema`` is its JSON Schema object."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class CallOutcome:
    """What a tool call gave back, as text for the model."""

    text: str
    is_error: bool = False


class McpServerError(Exception):
    """A server could not be reached or used; ``message`` is fit to show the user."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(message)
        self.server = server
        self.message = message


class McpHubClosed(RuntimeError):
    """The hub was closed; no more calls are possible."""


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


def describe_size(size: int) -> str:
    """``size`` bytes as "512 bytes", "12 KB" or "3.4 MB"."""
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB"


def _blob_note(mime: str, base64_data: str) -> str:
    return f"[{mime or 'data'}, {describe_size(len(base64_data) * 3 // 4)}]"


def outcome_from_result(result: types.CallToolResult) -> CallOutcome:
    """Text blocks joined by newlines; images, audio and binary resources described as
    "[image/png, 12 KB]"; structured content as JSON when no text block came."""
    parts: list[str] = []
    has_text = False
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(block.text)
            has_text = True
        elif isinstance(block, types.ImageContent | types.AudioContent):
            parts.append(_blob_note(block.mimeType, block.data))
        elif isinstance(block, types.EmbeddedResource):
            res = block.resource
            if isinstance(res, types.TextResourceContents):
                parts.append(res.text)
                has_text = True
            else:
                parts.append(_blob_note(res.mimeType or "", res.blob))
        elif isinstance(block, types.ResourceLink):
            parts.append(f"[link: {block.uri}]")
    if result.structuredContent is not None and not has_text:
        parts.append(json.dumps(result.structuredContent, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(the tool returned nothing)"
    return CallOutcome(text, bool(result.isError))


def _root_cause(error: BaseException) -> BaseException:
    """The first meaningful exception inside (possibly nested) exception groups."""
    while isinstance(error, BaseExceptionGroup):
        inner = [e for e in error.exceptions if not isinstance(e, asyncio.CancelledError)]
        error = (inner or list(error.exceptions))[0]
    return error


def _safe_url(url: str) -> str:
    """``url`` without its query and user info (which may hold a token)."""
    try:
        return str(httpx.URL(url).copy_with(query=None, userinfo=b""))
    except Exception:  # noqa: BLE001 - a malformed URL is shown cut, not parsed
        return url.split("?", 1)[0][:200]


def _is_connection_gone(error: BaseException) -> bool:
    return isinstance(error, anyio.ClosedResourceError | anyio.BrokenResourceError)


class _Connection:
    """One live session, owned by a runner task on the hub's loop."""

    def __init__(self, config: McpServerConfig, timeout: float) -> None:
        self.config = config
        self.timeout = timeout
        self.session: ClientSession | None = None
        self.dead = False
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stderr: IO[bytes] | None = None

    async def start(self) -> None:
        """Open and initialize the session; McpServerError within about ``timeout`` s."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # retrieved
        self._task = asyncio.create_task(self._run(ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.timeout + 2.0)
        except TimeoutError:
            await self.stop()
            raise McpServerError(self.config.name, self._timeout_text()) from None

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            async with AsyncExitStack() as stack:
                read, write = await self._open_transport(stack)
                session = await stack.enter_async_context(ClientSession(read, write))
                try:
                    with anyio.fail_after(self.timeout):
                        await session.initialize()
                except Exception as error:
                    self._fail(ready, error)
                    raise
                self.session = session
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as error:  # noqa: BLE001 - reported to the waiting caller
            self._fail(ready, error)
            log.info("MCP server %r disconnected (%s)", self.config.name, type(error).__name__)
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self.session = None
            self.dead = True

    async def _open_transport(self, stack: AsyncExitStack) -> tuple[Any, Any]:
        config = self.config
        if config.transport == "http":
            if not config.url:
                raise McpServerError(config.name, f"The MCP server {config.name!r} has no URL.")
            client = httpx.AsyncClient(headers=dict(config.headers), timeout=HTTP_TIMEOUT)
            await stack.enter_async_context(client)
            streams = await stack.enter_async_context(
                streamable_http_client(config.url, http_client=client)
            )
            return streams[0], streams[1]
        if not config.command:
            raise McpServerError(config.name, f"The MCP server {config.name!r} has no command.")
        env = get_default_environment()
        env.update({k: v for k in EXTRA_INHERITED_ENV if (v := os.environ.get(k))})
        env.update(config.env)
        self._stderr = tempfile.TemporaryFile()
        params = StdioServerParameters(command=config.command, args=list(config.args), env=env)
        errlog: Any = self._stderr  # any real file works; stderr must not reach ours
        return await stack.enter_async_context(stdio_client(params, errlog=errlog))

    def _fail(self, ready: asyncio.Future[None], error: BaseException) -> None:
        self.dead = True
        if not ready.done():
            ready.set_exception(self._describe(error))

    def _timeout_text(self) -> str:
        return f"The MCP server {self.config.name!r} did not answer within {self.timeout:g} s."

    def _describe(self, error: BaseException) -> McpServerError:
        """A user-facing message for a failed start (never quoting secrets)."""
        root, name, config = _root_cause(error), self.config.name, self.config
        if isinstance(root, McpServerError):
            return root
        if isinstance(root, FileNotFoundError):
            text = f"The command {config.command!r} of MCP server {name!r} was not found."
        elif isinstance(root, PermissionError):
            text = f"The command {config.command!r} of MCP server {name!r} may not be run."
        elif isinstance(root, TimeoutError | asyncio.CancelledError):
            text = self._timeout_text()
        elif isinstance(root, httpx.HTTPStatusError):
            code = root.response.status_code
            hint = " Check its headers." if code in (401, 403) else ""
            text = f"The MCP server {name!r} answered HTTP {code}.{hint}"
        elif isinstance(root, httpx.HTTPError):
            text = f"Could not connect to the MCP server {name!r} at {_safe_url(config.url)}."
        elif isinstance(root, McpError | anyio.EndOfStream) or _is_connection_gone(root):
            text = f"The MCP server {name!r} closed the connection while starting."
        else:
            text = f"The MCP server {name!r} failed to start ({type(root).__name__})."
        tail = self.stderr_tail()
        return McpServerError(name, f"{text} It said: {tail}" if tail else text)

    def stderr_tail(self, limit: int = 300) -> str:
        """The last non-empty line the server wrote to stderr, cut to ``limit`` chars."""
        if self._stderr is None or self._stderr.closed:
            return ""
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            self._stderr.seek(max(0, size - 4000))
            lines = self._stderr.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        lines = [line.strip() for line in lines if line.strip()]
        return lines[-1][:limit] if lines else ""

    async def list_tools(self) -> list[McpTool]:
        session = self._live()
        tools: list[McpTool] = []
        cursor: str | None = None
        for _page in range(MAX_TOOL_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            with anyio.fail_after(self.timeout):
                page = await session.list_tools(params=params)
            tools += [
                McpTool(self.config.name, t.name, t.description or "", dict(t.inputSchema or {}))
                for t in page.tools
            ]
            cursor = page.nextCursor
            if not cursor:
                break
        return tools

    async def call(self, name: str, arguments: dict[str, Any], timeout: float) -> CallOutcome:
        """Run one tool. Raises anyio.ClosedResourceError when the session is gone
        before the request went out (then a retry is safe); else never raises."""
        session = self._live()
        self._trim_stderr()
        late = f"The tool took longer than {timeout:g} s and was stopped."
        try:
            result = await session.call_tool(
                name, arguments, read_timeout_seconds=timedelta(seconds=timeout)
            )
        except McpError as error:
            if error.error.code == httpx.codes.REQUEST_TIMEOUT:
                return CallOutcome(late, True)
            if error.error.code == types.CONNECTION_CLOSED:
                await self.stop()
                return CallOutcome("The MCP server closed the connection during the call.", True)
            return CallOutcome(f"The tool failed: {error.error.message}"[:2000], True)
        except Exception as error:  # noqa: BLE001 - reported to the model as an error result
            if _is_connection_gone(error):
                raise
            kind = type(error).__name__
            return CallOutcome(f"The tool's answer could not be read ({kind}).", True)
        return outcome_from_result(result)

    def _trim_stderr(self) -> None:
        """Empty the stderr file past STDERR_LIMIT (the server shares its offset)."""
        try:
            if self._stderr and os.fstat(self._stderr.fileno()).st_size > STDERR_LIMIT:
                self._stderr.truncate(0)
                self._stderr.seek(0)
        except (OSError, ValueError):
            pass

    def _live(self) -> ClientSession:
        if self.dead or self.session is None:
            raise anyio.ClosedResourceError
        return self.session

    async def stop(self) -> None:
        """End the session and its process (within about STOP_TIMEOUT s)."""
        self.dead = True
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), STOP_TIMEOUT)
            except TimeoutError:
                task.cancel()
            except BaseException:  # noqa: BLE001 - its failure was already reported
                pass
        if self._stderr is not None:
            self._stderr.close()


class McpHub:
    """Sessions to the enabled MCP servers of ``configs``, on one background thread.

    ``connect_timeout`` (seconds) bounds opening a session and each tools/list.
    """

    def __init__(self, configs: Iterable[McpServerConfig] = (), *, connect_timeout: float = 20.0):
        self.connect_timeout = max(0.5, float(connect_timeout))
        self._configs: dict[str, McpServerConfig] = {}
        self._conns: dict[str, _Connection] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._retired: list[_Connection] = []
        self._closed = False
        self._close_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="mcp-hub", daemon=True)
        self._thread.start()
        self.update(configs)

    @property
    def configs(self) -> list[McpServerConfig]:
        """The configured servers (enabled or not), in the order given."""
        return list(self._configs.values())

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        if self._closed:
            coro.close()
            raise McpHubClosed("The MCP hub is closed.")
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("McpHub's blocking methods cannot run on its own loop.")
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None

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
                    raise conn._describe(error) from None
        raise AssertionError("unreachable")

    async def _connected(self, name: str) -> _Connection:
        lock = self._locks.setdefault(name, asyncio.Lock())
        async with lock:
            config = self._configs.get(name)
            if config is None or not config.enabled:
                raise McpServerError(name, f"The MCP server {name!r} is not configured or is off.")
            conn = self._conns.get(name)
            if conn is None or conn.dead:
                if conn is not None:
                    self._retired.append(conn)  # finishes its own cleanup; closed later
                conn = _Connection(config, self.connect_timeout)
                self._conns[name] = conn
                await conn.start()
            return conn

    def call_tool(
        self, server: str, name: str, arguments: Mapping[str, Any], timeout: float = 15.0
    ) -> CallOutcome:
        """Run tool ``name`` of ``server`` for at most ``timeout`` s. Failures come back as
        an error outcome; raises only McpHubClosed."""
        timeout = max(0.1, float(timeout))
        try:
            return self._submit(
                self._call(server, name, dict(arguments), timeout),
                self.connect_timeout + timeout + STOP_TIMEOUT + 5.0,
            )
        except TimeoutError:
            return CallOutcome(f"The tool took longer than {timeout:g} s and was stopped.", True)

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

    def close(self) -> None:
        """Stop every session and server process (a few seconds at most); idempotent."""
        with self._close_lock:
            if self._closed:
                return
            try:
                self._submit(self._apply({}), STOP_TIMEOUT * 2)
            except (TimeoutError, McpHubClosed):
                log.warning("MCP servers did not stop in time")
            self._closed = True
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(5.0)
            if not self._thread.is_alive():
                self._loop.close()

    def __enter__(self) -> McpHub:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
