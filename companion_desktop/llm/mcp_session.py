"""One MCP server: its configuration and the live session to it.

A :class:`McpConnection` is owned by a runner task on the hub's asyncio loop; it opens
the transport (stdio or streamable HTTP), initializes the session, lists tools and
runs calls, and stops within about STOP_TIMEOUT seconds. Server processes (stdio) get
a minimal environment plus their configured variables; their stderr goes to a private
temporary file whose last line explains a failed start. Every message made from what
a server says (its stderr, its errors) is scrubbed of the configured env and header
values and of control characters; nothing here logs such a value.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from collections.abc import Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from typing import IO, Any, Literal

import anyio
import httpx
from mcp import ClientSession, McpError, StdioServerParameters, types
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.client.streamable_http import streamable_http_client

from companion_desktop.llm.mcp_results import (
    CallOutcome,
    McpServerError,
    McpTool,
    is_connection_gone,
    outcome_from_result,
    root_cause,
    safe_url,
    scrub,
)
from companion_desktop.llm.programs import find_program, path_with

log = logging.getLogger("companion_desktop.llm.mcp")

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
#: A word of a header value this long is a secret on its own too (the token of "Bearer t").
TOKEN_PART_CHARS = 8


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

    @property
    def secrets(self) -> list[str]:
        """What a message must never quote: every env and header value, and each word
        of a header value of TOKEN_PART_CHARS or more; longest first."""
        found = {*self.env.values(), *self.headers.values()}
        found |= {word for value in self.headers.values() for word in value.split()
                  if len(word) >= TOKEN_PART_CHARS}
        return sorted((s for s in found if s), key=len, reverse=True)


class McpConnection:
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
        command = find_program(config.command) or config.command  # Homebrew, installers
        env["PATH"] = path_with(command, env.get("PATH"))  # npx finds node beside it
        self._stderr = tempfile.TemporaryFile()
        params = StdioServerParameters(command=command, args=list(config.args), env=env)
        errlog: Any = self._stderr  # any real file works; stderr must not reach ours
        return await stack.enter_async_context(stdio_client(params, errlog=errlog))

    def _fail(self, ready: asyncio.Future[None], error: BaseException) -> None:
        self.dead = True
        if not ready.done():
            ready.set_exception(self.describe(error))

    def _timeout_text(self) -> str:
        return f"The MCP server {self.config.name!r} did not answer within {self.timeout:g} s."

    def describe(self, error: BaseException) -> McpServerError:
        """A user-facing message for a failed start (never quoting secrets)."""
        root, name, config = root_cause(error), self.config.name, self.config
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
            text = f"Could not connect to the MCP server {name!r} at {safe_url(config.url)}."
        elif isinstance(root, McpError | anyio.EndOfStream) or is_connection_gone(root):
            text = f"The MCP server {name!r} closed the connection while starting."
        else:
            text = f"The MCP server {name!r} failed to start ({type(root).__name__})."
        tail = self.stderr_tail()
        message = f"{text} It said: {tail}" if tail else text
        return McpServerError(name, scrub(message, config.secrets))

    def stderr_tail(self, limit: int = 300) -> str:
        """The last non-empty line the server wrote to stderr (among its last 4,000
        bytes; a line begun before them is not shown, as it may hold part of a secret),
        scrubbed (``scrub``) and then cut to ``limit`` chars."""
        if self._stderr is None or self._stderr.closed:
            return ""
        try:
            self._stderr.flush()
            size = self._stderr.seek(0, os.SEEK_END)
            start = self._stderr.seek(max(0, size - 4000))
            if start:
                self._stderr.seek(start - 1)  # whether a line starts right at ``start``
            lines = self._stderr.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return ""
        lines = lines[1:] if start else lines  # the line cut by the 4,000-byte window
        secrets = self.config.secrets
        lines = [line for raw in lines if (line := " ".join(scrub(raw, secrets).split()))]
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
            said = scrub(error.error.message, self.config.secrets, keep="\n")
            return CallOutcome(f"The tool failed: {said}"[:2000], True)
        except Exception as error:  # noqa: BLE001 - reported to the model as an error result
            if is_connection_gone(error):
                raise
            kind = type(error).__name__
            return CallOutcome(f"The tool's answer could not be read ({kind}).", True)
        outcome = outcome_from_result(result)
        if outcome.is_error:  # the server's own error text: no secrets, no control codes
            return CallOutcome(scrub(outcome.text, self.config.secrets, keep="\n"), True)
        return outcome

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
