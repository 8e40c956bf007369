"""A small FastMCP server for the tests, runnable on its own.

    python tests/mcp_servers/demo_server.py                     # stdio
    python tests/mcp_servers/demo_server.py --http PORT [--token T]   # streamable HTTP

Tools: add(a, b), echo(text), slow(seconds) (sleeps), big(n) (n characters),
fail() (raises), noise(n) (n bytes to stderr), picture() (a small PNG-typed image),
env(name) (one variable of the server's environment, or "<unset>"), pid() (the
server's process id).
In HTTP mode it serves 127.0.0.1:PORT/mcp; with ``--token`` every request must carry
``Authorization: Bearer T`` or gets 401.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys

from mcp.server.fastmcp import FastMCP, Image

server = FastMCP("demo", log_level="WARNING")


@server.tool(description="Add two integers.")
def add(a: int, b: int) -> int:
    return a + b


@server.tool(description="Return the text unchanged.")
def echo(text: str) -> str:
    return text


@server.tool(description="Sleep for the given seconds (at most 60), then say so.")
async def slow(seconds: float) -> str:
    await asyncio.sleep(max(0.0, min(float(seconds), 60.0)))
    return f"slept {seconds} s"


@server.tool(description="Return n characters.")
def big(n: int) -> str:
    return "x" * max(0, min(int(n), 1_000_000))


@server.tool(description="Always fails.")
def fail() -> str:
    raise RuntimeError("the demo tool failed on purpose")


@server.tool(description="A small image (2,048 bytes labelled PNG).")
def picture() -> Image:
    return Image(data=b"\x89PNG" + b"\0" * 2044, format="png")


@server.tool(description="One environment variable of the server process.")
def env(name: str) -> str:
    return os.environ.get(name, "<unset>")


@server.tool(description="Write n bytes of noise to stderr.")
def noise(n: int) -> str:
    sys.stderr.write("noise " * (max(0, min(int(n), 10_000_000)) // 6) + "\n")
    sys.stderr.flush()
    return "made noise"


@server.tool(description="The server's process id.")
def pid() -> int:
    return os.getpid()


def _serve_http(port: int, token: str | None) -> None:
    import uvicorn
    from starlette.responses import PlainTextResponse

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] == "http" and token is not None:
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization", b"").decode() != f"Bearer {token}":
                await PlainTextResponse("unauthorized", status_code=401)(scope, receive, send)
                return
        await app(scope, receive, send)

    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning", lifespan="on")


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP")
    parser.add_argument("--token", help="bearer token required in HTTP mode")
    options = parser.parse_args(argv)
    if options.http:
        _serve_http(options.http, options.token)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
