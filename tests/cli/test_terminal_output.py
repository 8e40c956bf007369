"""What the model wrote reaches the terminal without control characters in every command
that prints it as text: her reply (``chat``, ``reminders --fire``) and what she stored from
it (a memory in ``facts``, a reminder in ``reminders``). JSON output keeps the text as it is,
escaped by JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_chat_cli import ENV, NOW, chunks, openai_args
from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import openai_stream

#: Clipboard write, screen clear, carriage return, a C1 CSI and a bidi override.
EVIL = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\r\x9b31m\u202e"
UNSAFE = {*map(chr, range(0x20)), *map(chr, range(0x7F, 0xA0)), "\u202a", "\u202b", "\u202c",
          "\u202d", "\u202e", "\u2066", "\u2067", "\u2068", "\u2069"} - {"\t", "\n"}


LATER = "2026-03-10T12:05:00+00:00"  # the reminder is due


def block(memory: str) -> str:
    mood = {"emotion": "happy", "intensity_delta": 5, "cause": f"the tea{EVIL}"}
    return ('```json\n' + json.dumps({"mood_change": mood,
                                       "affection_delta": 1, "new_memory": memory}) + '\n```')


def run(data_dir: Path, *args: str, now: str = NOW) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir), "--now", now,
            *args]
    return subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=60,
                          stdin=subprocess.DEVNULL)


def unsafe(text: str) -> list[str]:
    return sorted({ch for ch in text if ch in UNSAFE})


def test_stored_model_text_is_printed_without_control_characters(tmp_path):
    data = tmp_path / "data"
    reply = (f"Sure{EVIL}!\n[reminder:1min]stretch{EVIL} now[/reminder]\n"
             + block(f"They like tea{EVIL} a lot"))
    with ProviderServer() as server:
        server.on("POST", "/v1/chat/completions",
                  StreamReply(openai_stream(chunks(reply))),
                  StreamReply(openai_stream(chunks(f"Time to stretch{EVIL} now!\n" + block("")))))
        said = run(data, "chat", *openai_args(server), "--message", "remind me to stretch")
        assert said.returncode == 0, said.stderr
        listed = run(data, "reminders")
        assert "stretch" in listed.stdout and unsafe(listed.stdout) == []
        assert "\x1b]52" in json.loads(run(data, "reminders", "--json").stdout)[0]["text"]  # kept
        memories = run(data, "facts")
        assert "They like tea" in memories.stdout and unsafe(memories.stdout) == []
        her = run(data, "state")
        assert "because: the tea" in her.stdout and unsafe(her.stdout) == []
        fired = run(data, "reminders", "--fire", *openai_args(server), now=LATER)
    assert fired.returncode == 0, fired.stderr
    assert "Time to stretch" in fired.stdout and unsafe(fired.stdout) == []


def test_an_error_line_naming_a_file_reaches_the_terminal_without_control_characters(tmp_path):
    missing = tmp_path / f"old{EVIL}backup.zip"
    proc = run(tmp_path / "data", "backup", "restore", str(missing))
    assert proc.returncode == 1 and "backup.zip" in proc.stderr
    assert unsafe(proc.stderr) == []
