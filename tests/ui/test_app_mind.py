"""The real app (a subprocess) with her own mind chosen: a typed message wakes the mind
(the small test model, in a process of the app's own), she answers through it and the
turn is saved; quitting while her mind runs ends the app within 3 s and her mind with
it."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from companion_desktop.llm.mind.models import SMALL
from companion_desktop.storage.db import Database
from companion_desktop.storage.paths import DB_FILENAME
from companion_desktop.storage.settings import LlmSettings, save_settings
from tests.llm.mind.mind_parts import mind_processes, need_small
from tests.ui.app_process import AppProcess, integrity

pytestmark = [pytest.mark.skipif(not sys.platform.startswith("linux"), reason="xcb display"),
              pytest.mark.slow]


def her_turns(data: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(data / DB_FILENAME) as connection:
        rows = connection.execute(
            "SELECT role, content FROM conversation_turns ORDER BY id").fetchall()
    return [(str(role), str(content)) for role, content in rows]


def test_she_answers_with_her_own_mind_and_it_ends_with_her(tmp_path: Path) -> None:
    need_small()
    data = tmp_path / "data"
    with Database.open(data) as db, db.session() as session:
        save_settings(session, LlmSettings(provider="builtin", base_url="", model=SMALL.id))
    app = AppProcess(data, tmp_path / "run", send="Hi Hana! How are you today?")
    try:
        app.wait_shown()
        app.wait_for(lambda: mind_processes(app.proc.pid), 60, "her mind's process")
        mind = mind_processes(app.proc.pid)[0]
        app.wait_for(lambda: any(role == "assistant" for role, _ in her_turns(data)), 120,
                     "her reply")
        turns = her_turns(data)
        assert turns[0] == ("user", "Hi Hana! How are you today?")
        assert turns[1][0] == "assistant" and turns[1][1].strip()
        assert "```" not in turns[1][1]  # the block was parsed off, as with any provider
        assert mind_processes(app.proc.pid) == [mind]  # kept for the next message
        assert app.quit("sigterm") < 3.0
    finally:
        app.kill()
    assert not Path(f"/proc/{mind}").exists() or "Z" in Path(f"/proc/{mind}/stat").read_text()
    assert integrity(data) == "ok"
