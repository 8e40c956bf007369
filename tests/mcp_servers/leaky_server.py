"""An MCP server (stdio) that says its secret where it should not, for the tests.

    python tests/mcp_servers/leaky_server.py            # serves: login() fails loudly
    python tests/mcp_servers/leaky_server.py --crash    # dies at start, explaining itself

The secret is the LEAK_TOKEN variable of its environment. ``--crash`` writes
"token <secret>" (with a terminal colour code and a bidi override) to stderr and exits
with status 3 before speaking MCP. ``login()`` writes the same line to stderr and fails
with an error that quotes the secret.
"""

from __future__ import annotations

import os
import sys

from mcp.server.fastmcp import FastMCP

server = FastMCP("leaky", log_level="WARNING")


def _confess() -> str:
    line = f"token {os.environ.get('LEAK_TOKEN', '<unset>')}\x1b[31m refused\u202e"
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    return line


@server.tool(description="Log in (always refused).")
def login() -> str:
    raise RuntimeError(f"login refused: {_confess()}\x1b]0;title\x07")


if __name__ == "__main__":
    if "--crash" in sys.argv[1:]:
        _confess()
        sys.exit(3)
    server.run("stdio")
