"""McpHub against real MCP servers: the demo server over stdio and streamable HTTP."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import keyring
import keyring.backend
import keyring.core
import keyring.errors
import pytest
from keyring.backends import fail
from mcp import types

from companion_desktop.llm import keys
from companion_desktop.llm.mcp_client import (
    CallOutcome,
    McpHub,
    McpHubClosed,
    McpServerConfig,
    McpServerError,
    config_from_entry,
    outcome_from_result,
)
from companion_desktop.llm.programs import path_with
from companion_desktop.storage.settings import McpServerEntry
from tests.llm.test_keys import MemoryKeyring

DEMO = Path(__file__).resolve().parents[1] / "mcp_servers" / "demo_server.py"
DEMO_TOOLS = {"add", "echo", "slow", "big", "fail", "noise", "picture", "env", "pid"}


def demo(name: str = "demo", **fields: object) -> McpServerConfig:
    args = (str(DEMO),)
    return McpServerConfig(
        name, "stdio", command=sys.executable, args=args, **fields  # type: ignore[arg-type]
    )


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children_running(marker: str) -> list[int]:
    """Our live child processes whose command line holds ``marker``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and marker in cmdline:
            found.append(int(entry.name))
    return found


@pytest.fixture(scope="module")
def hub() -> Iterator[McpHub]:
    with McpHub([demo(env={"DEMO_VAR": "from-config"})], connect_timeout=10) as shared:
        yield shared


def test_lists_the_tools_of_each_server(hub: McpHub) -> None:
    listing = hub.list_tools()
    tools = listing["demo"]
    assert isinstance(tools, list)
    assert {t.name for t in tools} == DEMO_TOOLS
    add = next(t for t in tools if t.name == "add")
    assert add.server == "demo" and add.description == "Add two integers."
    assert set(add.input_schema["properties"]) == {"a", "b"}


def test_calls_return_text(hub: McpHub) -> None:
    assert hub.call_tool("demo", "add", {"a": 2, "b": 40}) == CallOutcome("42", False)
    text = "héllo 世界\nline two"
    assert hub.call_tool("demo", "echo", {"text": text}) == CallOutcome(text, False)
    assert hub.call_tool("demo", "big", {"n": 20000}).text == "x" * 20000


def test_tool_errors_and_bad_arguments_are_error_outcomes(hub: McpHub) -> None:
    failed = hub.call_tool("demo", "fail", {})
    assert failed.is_error and "failed on purpose" in failed.text
    wrong = hub.call_tool("demo", "add", {"a": "not a number"})
    assert wrong.is_error
    missing = hub.call_tool("demo", "no_such_tool", {})
    assert missing.is_error and "no_such_tool" in missing.text


def test_non_text_blocks_are_described(hub: McpHub) -> None:
    assert hub.call_tool("demo", "picture", {}) == CallOutcome("[image/png, 2 KB]", False)


def test_slow_tool_hits_the_timeout_and_the_hub_goes_on(hub: McpHub) -> None:
    start = time.monotonic()
    outcome = hub.call_tool("demo", "slow", {"seconds": 5}, timeout=0.5)
    assert time.monotonic() - start < 3
    assert outcome == CallOutcome("The tool took longer than 0.5 s and was stopped.", True)
    assert hub.call_tool("demo", "add", {"a": 1, "b": 1}).text == "2"


def test_server_stderr_stays_out_of_ours_and_is_bounded(hub: McpHub, capfd) -> None:
    assert hub.call_tool("demo", "noise", {"n": 1_500_000}).text == "made noise"
    assert hub.call_tool("demo", "add", {"a": 1, "b": 2}).text == "3"
    assert "noise" not in capfd.readouterr().err
    stderr_file = hub._conns["demo"]._stderr  # the private log behind the error messages
    assert stderr_file is not None and os.fstat(stderr_file.fileno()).st_size < 1024 * 1024


def test_calls_from_many_threads_at_once(hub: McpHub) -> None:
    with ThreadPoolExecutor(6) as pool:
        outcomes = list(pool.map(lambda n: hub.call_tool("demo", "add", {"a": n, "b": n}),
                                 range(12)))
    assert [o.text for o in outcomes] == [str(2 * n) for n in range(12)]


def test_unknown_server_is_an_error_outcome(hub: McpHub) -> None:
    outcome = hub.call_tool("elsewhere", "add", {})
    assert outcome.is_error and "'elsewhere'" in outcome.text


def test_reconnects_after_the_server_died(hub: McpHub) -> None:
    first = int(hub.call_tool("demo", "pid", {}).text)
    os.kill(first, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while alive(first) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # the session notices the closed pipe
    assert hub.call_tool("demo", "add", {"a": 3, "b": 4}) == CallOutcome("7", False)
    second = int(hub.call_tool("demo", "pid", {}).text)
    assert second != first and alive(second)


def test_environment_is_minimal_plus_the_configured_variables(monkeypatch) -> None:
    monkeypatch.setenv("COMPANION_API_KEY", "sk-parent-only")
    with McpHub([demo(env={"DEMO_VAR": "v1"})], connect_timeout=10) as own:
        assert own.call_tool("demo", "env", {"name": "DEMO_VAR"}).text == "v1"
        assert own.call_tool("demo", "env", {"name": "COMPANION_API_KEY"}).text == "<unset>"
        # the parent's PATH, plus the command's own folder (npx finds node beside it)
        expected = path_with(sys.executable, os.environ["PATH"])
        assert own.call_tool("demo", "env", {"name": "PATH"}).text == expected


def test_missing_command_gives_a_clear_error_quickly() -> None:
    with McpHub([McpServerConfig("ghost", "stdio", command="/nonexistent/mcp-ghost")]) as own:
        start = time.monotonic()
        error = own.list_tools()["ghost"]
        assert isinstance(error, McpServerError)
        assert error.message == (
            "The command '/nonexistent/mcp-ghost' of MCP server 'ghost' was not found."
        )
        outcome = own.call_tool("ghost", "add", {})
        assert outcome == CallOutcome(error.message, True)
        assert time.monotonic() - start < 3


def test_server_that_exits_explains_itself() -> None:
    script = "import sys; sys.stderr.write('config missing: DEMO_HOME\\n'); sys.exit(3)"
    config = McpServerConfig("quits", "stdio", command=sys.executable, args=("-c", script))
    with McpHub([config], connect_timeout=10) as own:
        error = own.list_tools()["quits"]
    assert isinstance(error, McpServerError)
    assert "closed the connection while starting" in error.message
    assert error.message.endswith("It said: config missing: DEMO_HOME")


def test_server_that_never_answers_times_out_and_is_stopped() -> None:
    marker = "mute-mcp-server-marker"
    script = f"import time; time.sleep(30)  # {marker}"
    config = McpServerConfig("mute", "stdio", command=sys.executable, args=("-c", script))
    own = McpHub([config], connect_timeout=1)
    start = time.monotonic()
    error = own.list_tools(timeout=10)["mute"]
    assert time.monotonic() - start < 3.5
    assert isinstance(error, McpServerError)
    assert error.message == "The MCP server 'mute' did not answer within 1 s."
    own.close()
    assert children_running(marker) == []


def test_update_closes_removed_and_disabled_servers() -> None:
    with McpHub([demo("one"), demo("two")], connect_timeout=10) as own:
        assert set(own.list_tools()) == {"one", "two"}
        two = int(own.call_tool("two", "pid", {}).text)
        own.update([demo("one")])
        assert not alive(two)
        assert set(own.list_tools()) == {"one"}
        assert own.call_tool("two", "add", {"a": 1, "b": 1}).is_error
        one = int(own.call_tool("one", "pid", {}).text)
        own.update([demo("one", enabled=False)])
        assert not alive(one)
        assert own.list_tools() == {}
        assert [c.name for c in own.configs] == ["one"]


def test_close_stops_every_server_and_is_idempotent() -> None:
    own = McpHub([demo("a"), demo("b")], connect_timeout=10)
    pids = [int(own.call_tool(name, "pid", {}).text) for name in ("a", "b")]
    assert all(alive(pid) for pid in pids)
    start = time.monotonic()
    own.close()
    own.close()
    assert time.monotonic() - start < 6
    assert not any(alive(pid) for pid in pids)
    assert not set(pids) & set(children_running(str(DEMO)))
    with pytest.raises(McpHubClosed):
        own.call_tool("a", "add", {"a": 1, "b": 2})
    with pytest.raises(McpHubClosed):
        own.list_tools()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    """The demo server over streamable HTTP, requiring ``Authorization: Bearer tok-123``."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, str(DEMO), "--http", str(port), "--token", "tok-123"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail("the demo HTTP server did not start")
            time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    process.wait(5)


def test_streamable_http_with_headers(http_server: str) -> None:
    auth = {"Authorization": "Bearer tok-123"}
    good = McpServerConfig("web", "http", url=http_server, headers=auth)
    bad = McpServerConfig("web-nokey", "http", url=http_server)
    with McpHub([good, bad], connect_timeout=10) as own:
        listing = own.list_tools()
        tools = listing["web"]
        assert isinstance(tools, list) and {t.name for t in tools} == DEMO_TOOLS
        refused = listing["web-nokey"]
        assert isinstance(refused, McpServerError)
        assert refused.message == "The MCP server 'web-nokey' answered HTTP 401. Check its headers."
        assert "tok-123" not in refused.message
        assert own.call_tool("web", "add", {"a": 5, "b": 6}) == CallOutcome("11", False)


def test_unreachable_http_server() -> None:
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    with McpHub([McpServerConfig("gone", "http", url=url)], connect_timeout=5) as own:
        error = own.list_tools()["gone"]
    assert isinstance(error, McpServerError)
    assert error.message == f"Could not connect to the MCP server 'gone' at {url}."


def test_outcome_from_result_covers_every_block_kind() -> None:
    structured = types.CallToolResult(content=[], structuredContent={"temp": 21.5, "city": "Köln"})
    assert outcome_from_result(structured) == CallOutcome('{"temp": 21.5, "city": "Köln"}', False)
    blocks = types.CallToolResult(
        content=[
            types.TextContent(type="text", text="one"),
            types.EmbeddedResource(
                type="resource",
                resource=types.TextResourceContents(uri="file:///a.txt", text="two"),
            ),
            types.AudioContent(type="audio", data="A" * 400, mimeType="audio/wav"),
            types.ResourceLink(type="resource_link", uri="file:///b.pdf", name="b"),
        ],
        structuredContent={"ignored": True},
        isError=True,
    )
    assert outcome_from_result(blocks) == CallOutcome(
        "one\ntwo\n[audio/wav, 300 bytes]\n[link: file:///b.pdf]", True
    )
    empty = types.CallToolResult(content=[])
    assert outcome_from_result(empty).text == "(the tool returned nothing)"


@pytest.fixture
def memory_keyring() -> Iterator[MemoryKeyring]:
    previous = keyring.core._keyring_backend
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.core._keyring_backend = previous


def test_mcp_secrets_live_in_the_keyring(memory_keyring: MemoryKeyring) -> None:
    keys.set_mcp_secret("files", "env", "ROOT_TOKEN", "  s3cret \n")
    keys.set_mcp_secret("web", "header", "Authorization", "Bearer abc")
    assert memory_keyring.store == {
        ("companion-desktop", "mcp:files:env:ROOT_TOKEN"): "s3cret",
        ("companion-desktop", "mcp:web:header:Authorization"): "Bearer abc",
    }
    assert keys.get_mcp_secret("files", "env", "ROOT_TOKEN") == "s3cret"
    assert keys.get_mcp_secret("files", "header", "ROOT_TOKEN") is None
    keys.set_mcp_secret("files", "env", "ROOT_TOKEN", "   ")  # blank deletes
    keys.delete_mcp_secret("files", "env", "ROOT_TOKEN")  # nothing stored is fine
    assert keys.get_mcp_secret("files", "env", "ROOT_TOKEN") is None
    with pytest.raises(ValueError):
        keys.get_mcp_secret("files", "password", "X")


def test_mcp_secrets_without_a_keyring() -> None:
    previous = keyring.core._keyring_backend
    keyring.set_keyring(fail.Keyring())
    try:
        assert keys.get_mcp_secret("files", "env", "TOKEN") is None
        with pytest.raises(keys.KeyStoreError):
            keys.set_mcp_secret("files", "env", "TOKEN", "value")
    finally:
        keyring.core._keyring_backend = previous


def test_config_from_entry_reads_secret_values(memory_keyring: MemoryKeyring) -> None:
    entry = McpServerEntry(
        name="files", transport="stdio", command=" npx ", args=["-y", "server"],
        env_names=["TOKEN", "UNSET"], header_names=["X-Key"], enabled=False,
    )
    keys.set_mcp_secret("files", "env", "TOKEN", "t-1")
    keys.set_mcp_secret("files", "header", "X-Key", "k-1")
    config = config_from_entry(entry)
    assert config == McpServerConfig(
        "files", "stdio", command="npx", args=("-y", "server"), env={"TOKEN": "t-1"},
        headers={"X-Key": "k-1"}, enabled=False,
    )
    looked_up: list[tuple[str, str, str]] = []

    def lookup(server: str, kind: str, name: str) -> str | None:
        looked_up.append((server, kind, name))
        return "v"

    assert config_from_entry(entry, lookup).env == {"TOKEN": "v", "UNSET": "v"}
    assert looked_up == [
        ("files", "env", "TOKEN"), ("files", "env", "UNSET"), ("files", "header", "X-Key")
    ]
