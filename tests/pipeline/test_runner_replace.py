"""A replace import while the runner is running: the next turn is saved in a new session on
the new data, working memory holds the new data only, and closing never raises.

The replace runs the real command line: in this process (``cli.main``) and in another
process (``python -m companion_desktop``), on a real SQLite file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from companion_desktop import cli
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.runner import TurnRunner
from companion_desktop.storage import repository as repo
from companion_desktop.storage.backup import list_backups
from companion_desktop.storage.db import Database
from tests.conftest import T0
from tests.pipeline.test_runner import BLOCK, Scripted, no_moments

OLD_WORDS = "my old secret is the blue teapot"
IMPORTED = "I miss the rain in the old town"


def save_file(path: Path) -> Path:
    """A save file with two past sessions (ids 1 and 2, as a fresh database numbers them)."""
    data = {
        "version": "2.0",
        "data": {
            "sessions": [
                {"id": 1, "startedAt": "2026-02-01T09:00:00Z", "messageCount": 2},
                {"id": 2, "startedAt": "2026-02-02T09:00:00Z", "messageCount": 2},
            ],
            "conversationTurns": [
                {"sessionId": 1, "role": "user", "content": IMPORTED,
                 "createdAt": "2026-02-01T09:00:10Z"},
                {"sessionId": 2, "role": "assistant", "content": "Rain is lovely.",
                 "createdAt": "2026-02-02T09:00:15Z"},
            ],
            "facts": [{"content": "User lived in the old town.", "category": "user",
                       "createdAt": "2026-02-01T09:00:00Z"}],
        },
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def data_dir(tmp_path):
    return tmp_path / "data"


@pytest.fixture
def service(data_dir):
    db = Database.open(data_dir)
    no_moments(CompanionService(db))
    yield CompanionService(db)
    db.close()


def replace_in_process(data_dir: Path, file: Path) -> None:
    assert cli.main(["--data-dir", str(data_dir), "import", str(file), "--replace"]) == 0


def replace_in_other_process(data_dir: Path, file: Path) -> None:
    env = {**os.environ, "TZ": "UTC"}
    env.pop("COMPANION_DATA_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir), "import",
         str(file), "--replace"], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr


def all_turns(service):
    with service.db.read_session() as session:
        return repo.recent_turns(session, 1000)


@pytest.mark.parametrize("replace", [replace_in_process, replace_in_other_process])
def test_the_turn_after_a_replace_is_saved_in_a_new_session(service, data_dir, tmp_path, replace):
    provider = Scripted("Tell me more!\n" + BLOCK, "Of course.\n" + BLOCK)
    clock = {"now": T0}
    runner = TurnRunner(service, provider, lambda: clock["now"])
    runner.run(OLD_WORDS)
    replace(data_dir, save_file(tmp_path / "save.json"))
    clock["now"] = T0 + timedelta(minutes=5)
    result = runner.run("Do you remember anything?")  # before the fix: a foreign key error
    assert result.reply == "Of course."
    turns = all_turns(service)
    assert OLD_WORDS not in [t.content for t in turns]
    mine = [t for t in turns if t.content in ("Do you remember anything?", "Of course.")]
    assert len(mine) == 2
    with service.db.read_session() as session:
        sessions = {s.id: s for s in repo.list_sessions(session)}
    today = sessions[mine[0].session_id]
    assert mine[0].session_id == mine[1].session_id == runner.session_id
    assert today.started_at == T0 + timedelta(minutes=5)  # not an imported old session
    assert len(sessions) == 3
    # the model saw the new data's history, not the deleted messages
    history = [m.content for m in provider.calls[1][1]]
    assert IMPORTED in history and OLD_WORDS not in " ".join(history)
    assert OLD_WORDS not in [content for _role, content in runner.working.last(20)]
    runner.close()
    with service.db.read_session() as session:
        assert repo.list_sessions(session)[-1].ended_at is not None


def test_close_after_a_replace_does_not_raise(service, data_dir, tmp_path):
    runner = TurnRunner(service, Scripted("Hi!\n" + BLOCK), lambda: T0)
    runner.run("hello")
    replace_in_process(data_dir, save_file(tmp_path / "save.json"))
    runner.close()  # before the fix: KeyError from end_session, or it ended an imported session
    with service.db.read_session() as session:
        ended = [s.ended_at for s in repo.list_sessions(session)]
    assert ended == [None, None]  # the imported sessions were not touched


def test_a_replace_landing_during_the_turn_saves_it_in_the_new_session(service, data_dir, tmp_path):
    """The replace commits while the reply streams: the save sees it and moves over."""
    file = save_file(tmp_path / "save.json")

    class ReplaceWhileStreaming(Scripted):
        def stream_chat(self, system, messages, cancel=None):
            replace_in_process(data_dir, file)
            yield from super().stream_chat(system, messages, cancel)

    runner = TurnRunner(service, ReplaceWhileStreaming("Sure.\n" + BLOCK), lambda: T0)
    old_session = runner.session_id
    runner.run("are you there?")
    turns = [t for t in all_turns(service) if t.content in ("are you there?", "Sure.")]
    assert len(turns) == 2 and turns[0].session_id == runner.session_id != old_session


def test_every_replace_is_backed_up_first(service, data_dir, tmp_path):
    runner = TurnRunner(service, Scripted("Hi!\n" + BLOCK), lambda: T0)
    runner.run(OLD_WORDS)
    replace_in_process(data_dir, save_file(tmp_path / "save.json"))
    made = list_backups(data_dir)
    assert [b.reason for b in made] == ["before replace import"]
    import sqlite3
    import zipfile

    with zipfile.ZipFile(made[0].path) as archive:
        (tmp_path / "x").mkdir()
        archive.extract("companion.sqlite3", tmp_path / "x")
    conn = sqlite3.connect(tmp_path / "x" / "companion.sqlite3")
    try:
        contents = [row[0] for row in conn.execute("SELECT content FROM conversation_turns")]
    finally:
        conn.close()
    assert OLD_WORDS in contents
