"""Crash safety: the real ``chat`` and ``reminders --fire`` processes are killed with
SIGKILL at random (seeded) moments while a real 127.0.0.1 server streams slowly.
After every kill the file passes ``PRAGMA integrity_check``, every turn whose result
was printed is stored, and no half turn is: each user message has its reply and its
state change, or none of them; a reminder is answered at most once, and after
restarts exactly once."""

from __future__ import annotations

import json
import random
import threading
from datetime import datetime, timedelta

import pytest

from companion_desktop.pipeline.reminders import EVENT_PREFIX
from companion_desktop.storage import reminders as store
from companion_desktop.storage.db import Database
from companion_desktop.storage.paths import DB_FILENAME
from tests.cli.crash_harness import integrity, query, run_killed
from tests.cli.test_chat_cli import BLOCK, NOW, chunks, openai_args
from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import openai_stream

pytestmark = pytest.mark.slow

REPLY = "I hear you, and I'm glad you told me about it. Tell me more?\n" + BLOCK


@pytest.fixture
def server():
    with ProviderServer() as s:
        # about 0.4 s of streaming per turn, so kills land before, during and after it
        s.on("POST", "/v1/chat/completions",
             StreamReply(openai_stream(chunks(REPLY, 12)), delay_s=0.015))
        yield s


def stored_turns(data_dir) -> list[tuple[int, str, str, dict]]:
    rows = query(data_dir, "SELECT id, role, content, metadata FROM conversation_turns ORDER BY id")
    return [(i, role, content, json.loads(meta) if meta else {}) for i, role, content, meta in rows]


def check_no_half_turn(data_dir) -> list[str]:
    """Every user message is followed by its reply with its state change, and the state
    counted each one; returns the stored user messages in order."""
    turns = stored_turns(data_dir)
    users = [t for t in turns if t[1] == "user"]
    for index, (turn_id, _role, _content, _meta) in enumerate(turns):
        if _role != "user":
            continue
        assert index + 1 < len(turns), "a user message without her reply"
        reply = turns[index + 1]
        assert reply[1] == "assistant" and reply[0] == turn_id + 1 and "stateChanges" in reply[3]
    assert sum(1 for t in turns if t[1] == "assistant") == len(users)
    counted = query(data_dir, "SELECT total_interactions FROM character_state")
    assert (counted[0][0] if counted else 0) == len(users)  # each turn's state change landed
    return [t[2] for t in users]


def test_chat_killed_at_random_moments_never_leaves_a_half_turn(server, tmp_path):
    rng = random.Random(20261201)
    data_dir = tmp_path / "data"
    printed: list[str] = []
    sent = 0
    kills = 0
    for _round in range(6):
        messages = [f"message number {sent + i}, about my day" for i in range(3)]
        args = ["chat", *openai_args(server), "--json"]
        for message in messages:
            args += ["--message", message]
        seen, wait = len(server.requests), rng.randint(0, 3)  # kill after 0-3 model calls ...
        run = run_killed(data_dir, args, kill_after=rng.uniform(0.0, 1.2),  # ... and a moment
                         after=lambda seen=seen, wait=wait: len(server.requests) >= seen + wait)
        kills += run.killed
        assert all("reply" in line for line in run.lines), run.stderr
        printed += messages[: len(run.lines)]
        sent += len(messages)
        if data_dir.joinpath(DB_FILENAME).exists():
            assert integrity(data_dir) == "ok"
            stored = check_no_half_turn(data_dir)
            assert all(m in stored for m in printed)  # printed means stored
            assert len(stored) == len(set(stored))  # none stored twice
    assert kills >= 3  # most runs really were killed mid-way
    final = run_killed(data_dir,
                       ["chat", *openai_args(server), "--json", "--message", "still there?"],
                       kill_after=None)
    assert final.returncode == 0 and len(final.lines) == 1, final.stderr
    assert check_no_half_turn(data_dir)[-1] == "still there?"


def test_reminder_firing_killed_at_random_moments_answers_each_once(server, tmp_path):
    rng = random.Random(7)
    data_dir = tmp_path / "data"
    now = datetime.fromisoformat(NOW)
    texts = ["stretch", "drink water", "call mom", "feed the cat", "go to bed"]
    with Database.open(data_dir) as db, db.session() as session:
        for minutes, text in enumerate(texts):
            store.add_reminder(session, now - timedelta(minutes=10 - minutes), text,
                               now - timedelta(hours=1), None)
    fire = ["reminders", "--fire", "--json", *openai_args(server)]

    def answers() -> dict[str, int]:
        rows = query(data_dir, "SELECT content FROM conversation_turns WHERE role = 'system'")
        return {t: sum(1 for (c,) in rows if c == EVENT_PREFIX + t) for t in texts}

    def fired() -> dict[str, bool]:
        return {text: bool(done)
                for text, done in query(data_dir, "SELECT content, executed FROM reminders")}

    printed: set[str] = set()
    for _attempt in range(10):
        seen, wait = len(server.requests), rng.randint(0, 2)
        run = run_killed(data_dir, fire, kill_after=rng.uniform(0.0, 1.2),
                         after=lambda seen=seen, wait=wait: len(server.requests) >= seen + wait)
        printed |= {line["text"] for line in run.lines if line["status"] == "fired"}
        assert integrity(data_dir) == "ok"
        counts, done = answers(), fired()
        for text in texts:
            assert counts[text] <= 1  # never two replies
            assert done[text] == (counts[text] == 1)  # the reply and the mark, or neither
        assert printed <= {t for t in texts if done[t]}
        if all(done.values()):
            break
    run_killed(data_dir, fire, kill_after=None)  # a last run after the restarts
    assert answers() == dict.fromkeys(texts, 1) and all(fired().values())


def test_two_processes_firing_at_once_answer_each_reminder_once(tmp_path):
    data_dir = tmp_path / "data"
    now = datetime.fromisoformat(NOW)
    with Database.open(data_dir) as db, db.session() as session:
        for text in ("stretch", "drink water"):
            store.add_reminder(session, now - timedelta(minutes=5), text,
                               now - timedelta(hours=1), None)
    with ProviderServer() as server:
        server.on("POST", "/v1/chat/completions",
                  StreamReply(openai_stream(chunks(REPLY, 12)), delay_s=0.03, head_delay_s=0.3))
        fire = ["reminders", "--fire", "--json", *openai_args(server)]
        runs = [None, None]
        workers = [threading.Thread(
                       target=lambda i=i: runs.__setitem__(i, run_killed(data_dir, fire, None)))
                   for i in range(2)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
    statuses = [(line["text"], line["status"]) for run in runs for line in run.lines]
    assert sorted(t for t, s in statuses if s == "fired") == ["drink water", "stretch"], statuses
    assert all(s in ("fired", "elsewhere") for _t, s in statuses)
    rows = query(data_dir, "SELECT content FROM conversation_turns WHERE role = 'system'")
    assert sorted(c for (c,) in rows) == [EVENT_PREFIX + "drink water", EVENT_PREFIX + "stretch"]
    assert integrity(data_dir) == "ok"
