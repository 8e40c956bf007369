"""Her mind's process with the real runtime and the small model: started on first use,
reused, stopped when idle (an injected clock), started again after it died, and never
left behind by a cancelled or failed start."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from companion_desktop.llm.base import CancelledError, CancelToken
from companion_desktop.llm.mind import host as host_module
from companion_desktop.llm.mind.host import MindError, MindHost
from companion_desktop.llm.mind.models import MIND_FOLDER, SMALL
from tests.llm.mind.mind_parts import THREADS, mind_processes, single_piece_model

IDLE_S = 120.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="module")
def host(mind: MindHost, clock: Clock, tmp_path_factory: pytest.TempPathFactory,
         ) -> Iterator[MindHost]:
    """A host of its own (its clock is the test's); the shared one is stopped meanwhile,
    so one model runs at a time. Its idle check runs only when a test calls it."""
    mind.stop()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(host_module, "REAP_EVERY_S", 3600.0)
        started = MindHost(idle_s=IDLE_S, clock=clock)
        started.configure(tmp_path_factory.mktemp("host-cache"))
        started.threads = THREADS
        yield started
        started.stop()
    assert mind_processes() == []


def answers(url: str) -> bool:
    """The mind at ``url`` writes a few tokens."""
    reply = httpx.post(f"{url}/v1/chat/completions", timeout=60, json={
        "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4, "seed": 1})
    return reply.status_code == 200 and bool(reply.json()["choices"][0]["message"]["content"])


def test_use_starts_her_mind_and_reuses_it(host: MindHost) -> None:
    host.stop()
    heard: list[str] = []
    with host.use(SMALL, lambda fraction, text: heard.append(text)) as first:
        assert heard == ["Waking her mind…"]  # a single file: nothing to join
        assert first.url.startswith("http://127.0.0.1:") and first.context == SMALL.context
        assert first.model is SMALL and first.load_s > 0 and answers(first.url)
        assert mind_processes() == [first.process.pid]
    assert host.running is first
    with host.use(SMALL, lambda fraction, text: heard.append(text)) as second:
        assert second is first and heard == ["Waking her mind…"]
    assert mind_processes() == [first.process.pid]
    assert "llama" in (host.cache_dir / MIND_FOLDER / "mind.log").read_text()  # type: ignore[operator]


def test_idle_mind_is_stopped_after_idle_s_but_never_while_in_use(host: MindHost,
                                                                   clock: Clock) -> None:
    with host.use(SMALL) as running:
        clock.now += 10 * IDLE_S  # a long turn: still in use
        assert host.stop_if_idle() is False and host.running is running
    clock.now += IDLE_S - 1
    assert host.stop_if_idle() is False and host.running is running
    clock.now += 2
    assert host.stop_if_idle() is True
    assert host.running is None and running.process.poll() is not None
    assert mind_processes() == [] and host.stop_if_idle() is False


def test_a_mind_that_died_is_started_again(host: MindHost) -> None:
    with host.use(SMALL) as running:
        pass
    running.process.kill()
    running.process.wait(10)
    assert host.running is None
    with host.use(SMALL) as again:
        assert again.process.pid != running.process.pid and answers(again.url)
    assert mind_processes() == [again.process.pid]


def test_stop_while_waking_leaves_no_process(host: MindHost) -> None:
    host.stop()
    cancel = CancelToken()

    def progress(fraction: float, text: str) -> None:
        if text.startswith("Waking"):
            cancel.cancel()  # Stop pressed as she wakes

    began = time.monotonic()
    with pytest.raises(CancelledError):
        with host.use(SMALL, progress, cancel):
            pytest.fail("a cancelled start gave a mind")
    assert time.monotonic() - began < 1.0  # not the model's load time: it is killed
    assert host.running is None and mind_processes() == []
    with host.use(SMALL) as running:  # the next turn wakes her as usual
        assert answers(running.url)


def test_stop_while_she_writes_a_long_reply_ends_her_mind_at_once(host: MindHost) -> None:
    """A quit while a reply is generated: her mind's process ends within a second (its
    server's teardown would wait for the reply), and the reply's caller sees it end."""
    with host.use(SMALL) as running:
        pass
    outcome: list[object] = []

    def long_reply() -> None:
        try:
            with httpx.stream("POST", f"{running.url}/v1/chat/completions", timeout=60, json={
                    "messages": [{"role": "user", "content": "Tell a very long story."}],
                    "max_tokens": 2000, "seed": 1, "stream": True,
                    "ignore_eos": True}) as reply:
                for line in reply.iter_lines():
                    if line.startswith("data:") and not outcome:
                        outcome.append("writing")
        except httpx.HTTPError as error:
            outcome.append(error)

    writer = threading.Thread(target=long_reply, daemon=True)
    writer.start()
    deadline = time.monotonic() + 60
    while not outcome and time.monotonic() < deadline:
        time.sleep(0.02)
    assert outcome == ["writing"]  # the reply is under way
    began = time.monotonic()
    host.stop()
    assert time.monotonic() - began < 1.0
    assert running.process.poll() == 0  # it ended by itself, not killed
    writer.join(10)
    assert not writer.is_alive() and mind_processes() == []


def test_a_damaged_model_says_where_the_log_is(host: MindHost, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    junk = single_piece_model(site, "mindtest_junk", b"GGUF" + bytes(range(256)) * 64)
    monkeypatch.syspath_prepend(str(site))
    with pytest.raises(MindError) as caught:
        with host.use(junk):
            pytest.fail("a damaged model gave a mind")
    log = host.cache_dir / MIND_FOLDER / "mind.log"  # type: ignore[operator]
    assert str(caught.value).startswith("Her mind could not start (")
    assert f"The log is in {log}." in str(caught.value)
    assert "model" in log.read_text().lower()
    assert host.running is None and mind_processes() == []


def test_a_start_under_way_blocks_no_caller_and_stop_ends_it(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    """While her mind loads (a process that takes 30 s to say it is ready), what the GUI
    thread calls (configure, running, stop) returns at once; stop kills the loading
    process and the start ends as stopped, leaving nothing behind."""
    import subprocess
    import sys
    import threading

    slow = [sys.executable, "-c", "import time; time.sleep(30)"]  # --model ... are ignored
    monkeypatch.setattr(host_module, "serve_command", lambda: slow)
    spawned: list[subprocess.Popen[bytes]] = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - Popen's own
        spawned.append(real_popen(*args, **kwargs))
        return spawned[-1]

    monkeypatch.setattr(host_module.subprocess, "Popen", popen)
    host = MindHost()
    host.configure(tmp_path)
    outcome: list[BaseException] = []

    def start() -> None:
        try:
            host.ensure(SMALL)
        except BaseException as error:  # noqa: BLE001 - what the start ended with
            outcome.append(error)

    starter = threading.Thread(target=start)
    starter.start()
    deadline = time.monotonic() + 10
    while not spawned and time.monotonic() < deadline:
        time.sleep(0.02)
    assert spawned and host.starting
    began = time.monotonic()
    host.configure(tmp_path, idle_s=300)
    assert host.running is None and host.idle_s == 300
    host.stop()
    assert time.monotonic() - began < 0.5
    starter.join(5)
    assert not starter.is_alive() and isinstance(outcome[0], CancelledError)
    assert spawned[0].wait(5) is not None and not host.starting and host.running is None


def test_stop_while_the_model_is_joined_leaves_no_part_file(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A stop (quit) during the first use's joining ends it at the next piece; the
    half-joined file is removed and the next use joins it again."""
    from tests.llm.mind.mind_parts import write_package

    site = tmp_path / "site"
    pieces = [bytes([i]) * 4096 for i in range(3)]
    write_package(site, "mindtest_split", {f"p{i}.bin": data for i, data in enumerate(pieces)})
    monkeypatch.syspath_prepend(str(site))
    whole = b"".join(pieces)
    import hashlib

    from companion_desktop.llm.mind.models import MindModel

    split = MindModel(id="mindtest_split", name="Split test model", file_name="split.gguf",
                      size=len(whole), sha256=hashlib.sha256(whole).hexdigest(),
                      pieces=tuple(("mindtest_split", f"p{i}.bin") for i in range(3)),
                      dists=tuple(f"mindtest-split{i}==1.0" for i in range(3)),
                      licence="test")
    from companion_desktop.llm.mind import models as models_module

    monkeypatch.setattr(models_module, "CHUNK", 4096)
    host = MindHost()
    host.configure(tmp_path / "cache")
    heard: list[str] = []

    def progress(fraction: float, text: str) -> None:
        heard.append(text)
        if len(heard) == 1:
            host.stop()  # quit during the first piece

    with pytest.raises(CancelledError):
        host.ensure(split, progress)
    folder = tmp_path / "cache" / MIND_FOLDER
    assert heard == ["Preparing her mind (first use): 33%"]
    assert [p.name for p in folder.iterdir()] == []  # no part file, no record
