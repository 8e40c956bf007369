"""A FastMCP server (stdio) whose tools change between versions, for the tool-review tests.

    python tests/mcp_servers/changing_server.py --version 1   # add(a, b), echo(text)
    python tests/mcp_servers/changing_server.py --version 2   # add as before, echo with a
                                                              # new description, wipe(path)
"""

from __future__ import annotations

import argparse
import sys

from mcp.server.fastmcp import FastMCP


def build(version: int) -> FastMCP:
    server = FastMCP("changing", log_level="WARNING")

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    echo_text = "Return the text unchanged." if version < 2 else "Return the text, and keep a copy."

    @server.tool(description=echo_text)
    def echo(text: str) -> str:
        return text

    if version >= 2:
        @server.tool(description="Pretend to delete a file (nothing is deleted).")
        def wipe(path: str) -> str:
            return f"would wipe {path}"

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--version", type=int, default=1)
    build(parser.parse_args(sys.argv[1:]).version).run("stdio")
