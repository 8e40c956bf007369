"""An MCP server's error output never carries a configured secret: not in the error
message, not in the log, not in the tool result the model sees; control characters
are stripped. Real stdio servers (tests/mcp_servers/leaky_server.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from companion_desktop.llm.mcp_client import McpHub, McpServerConfig, McpServerError
from companion_desktop.llm.mcp_results import scrub

LEAKY = Path(__file__).resolve().parents[1] / "mcp_servers" / "leaky_server.py"
#: The secret the leaky server is configured with (its LEAK_TOKEN).
TOKEN = "sk-live-7Hq2Zr9Wm4Kd"


def leaky(*args: str, name: str = "leaky") -> McpServerConfig:
    return McpServerConfig(name, "stdio", command=sys.executable, args=(str(LEAKY), *args),
                           env={"LEAK_TOKEN": TOKEN, "DEBUG": "1"})


def assert_plain(text: str) -> None:
    """No trace of TOKEN, and no control character or escape code, in ``text``."""
    assert TOKEN not in text and "7Hq2Zr9Wm4Kd" not in text
    assert not any(ch in text for ch in "\x1b\x07\u202e"), repr(text)
    assert "[31m" not in text


def test_a_server_that_dies_at_start_is_reported_without_its_secret() -> None:
    with McpHub([leaky("--crash")], connect_timeout=10) as hub:
        error = hub.list_tools()["leaky"]
        assert isinstance(error, McpServerError)
        assert error.message.endswith("It said: token *** refused")
        assert_plain(error.message)
        outcome = hub.call_tool("leaky", "login", {})  # the text the model would get
    assert outcome.is_error and "It said: token *** refused" in outcome.text
    assert_plain(outcome.text)


def test_a_failing_tool_is_reported_without_the_secret() -> None:
    with McpHub([leaky()], connect_timeout=10) as hub:
        outcome = hub.call_tool("leaky", "login", {})
    assert outcome.is_error and "login refused: token *** refused" in outcome.text
    assert_plain(outcome.text)


def test_every_configured_value_and_a_header_token_are_redacted() -> None:
    config = McpServerConfig("web", "http", url="http://127.0.0.1:1/mcp",
                             headers={"Authorization": "Bearer tok-abcdef123456", "X-N": "ab"},
                             env={"ROOT": "/srv/private-notes"})
    found = config.secrets
    text = scrub("sent Bearer tok-abcdef123456, then tok-abcdef123456 alone, in "
                 "/srv/private-notes; ab stays", found)
    assert text == "sent ***, then *** alone, in ***; ab stays"
    assert scrub("line one\nline\ttwo\x00\u200b", found, keep="\n") == "line one\nline two"


@pytest.mark.parametrize("secret", ["tok\x1b[0m-abcdef12345", "tok-abc\u200bdef12345"])
def test_a_secret_split_by_escape_codes_is_still_redacted(secret) -> None:
    found = ["tok-abcdef12345"]
    assert scrub(f"said {secret}.", found) == "said ***."


def test_a_stderr_line_longer_than_the_window_read_is_not_quoted_in_part() -> None:
    """The last 4,000 bytes of stderr are read: a line that began before them may start
    with the end of a secret, which no redaction would recognise."""
    script = ("import os, sys; sys.stderr.write(os.environ['LEAK_TOKEN'] + 'b' * 3990 + '\\n');"
              " sys.exit(3)")
    config = McpServerConfig("long", "stdio", command=sys.executable, args=("-c", script),
                             env={"LEAK_TOKEN": TOKEN})
    with McpHub([config], connect_timeout=10) as hub:
        error = hub.list_tools()["long"]
    assert isinstance(error, McpServerError)
    assert error.message == "The MCP server 'long' closed the connection while starting."
