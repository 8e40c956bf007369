"""A real turn on her default mind (Qwen2.5-Coder 1.5B, joined from its 22 packages on
first use) through the chat command. The run command's install brings the model; where
it is not installed the test says so and skips. Slow: the first use joins 1.1 GB (once
a run, into a cache shared by the run) and a CPU reads the prompt for a minute."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion_desktop.cli import main as cli_main
from companion_desktop.llm.mind.host import HOST
from companion_desktop.llm.mind.models import DEFAULT, MIND_FOLDER, is_ready
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import DisplaySettings, save_settings
from tests.llm.mind.mind_parts import THREADS, need_default

pytestmark = pytest.mark.slow


def test_a_turn_on_the_default_model(default_cache: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    need_default()  # (the small model's tests may run or not: this needs only its own)
    data = tmp_path / "data"
    db = Database.open(data)
    with db.session() as session:
        save_settings(session, DisplaySettings(personalized_moments=False))
    db.close()
    (data / "cache").symlink_to(default_cache, target_is_directory=True)
    saved = HOST.cache_dir, HOST.threads
    HOST.stop()  # one model at a time: the small model's tests start theirs again
    HOST.threads = THREADS
    try:
        code = cli_main(["--data-dir", str(data), "--now", "2026-03-10T18:30:00+00:00",
                         "chat", "--provider", "builtin", "--model", DEFAULT.id, "--json",
                         "--message", "Hi! I just got home from a long walk in the park."])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert HOST.running is not None and HOST.running.model is DEFAULT
    finally:
        HOST.stop()  # its memory back before other tests go on
        HOST.cache_dir, HOST.threads = saved
    assert is_ready(DEFAULT, default_cache)
    assert (default_cache / MIND_FOLDER / DEFAULT.file_name).stat().st_size == DEFAULT.size
    turn = json.loads(out.out)
    reply = turn["reply"]
    letters = re.findall(r"[^\W\d_]", reply)
    assert len(reply.split()) >= 3 and letters
    assert sum(c.isascii() for c in letters) / len(letters) > 0.95, reply  # English
    assert turn["usedExtraction"] is False and turn["state"]["totalInteractions"] == 1
