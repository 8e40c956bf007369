"""``companion-desktop speak``: the real command in a subprocess, on the real model."""

from __future__ import annotations

import json
import subprocess
import wave
from pathlib import Path

from tests.cli.command import companion
from tests.llm.neural_voice.conftest import needs_espeak, needs_kokoro

pytestmark = [needs_kokoro, needs_espeak]


def speak(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return companion(data_dir, "speak", *args)


def test_speak_writes_a_wav_with_the_saved_voice_and_reports_json(neural_data, tmp_path):
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.settings import VoiceSettings, save_settings

    data_dir = neural_data["data_dir"]
    out = tmp_path / "hello.wav"
    done = speak(data_dir, "Hello, it is nice to see you.", "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["backend"] == "neural" and reply["voice"] == "kokoro:jf_gongitsune"
    assert reply["sampleRate"] == 24_000 and reply["synthesisSeconds"] > 0
    with wave.open(str(out)) as wav:
        assert (wav.getnchannels(), wav.getsampwidth(), wav.getframerate()) == (1, 2, 24_000)
        assert abs(wav.getnframes() / 24_000 - reply["audioSeconds"]) < 0.01
    assert not (data_dir / "companion.sqlite3").exists()  # no database made

    db = Database.open(data_dir)  # Settings > Voice: the male voice, a little faster
    with db.session() as session:
        save_settings(session, VoiceSettings(voice="kokoro:jm_kumo", rate=1.3))
    db.close()
    done = speak(data_dir, "Hello, it is nice to see you.", "--out", str(out), "--json")
    faster = json.loads(done.stdout)
    assert faster["voice"] == "kokoro:jm_kumo" and faster["audioSeconds"] < reply["audioSeconds"]
    done = speak(data_dir, "Hi.", "--out", str(out), "--voice", "en-us", "--json")
    assert json.loads(done.stdout)["backend"] == "espeak"


def test_speak_errors_are_one_line(neural_data, tmp_path):
    data_dir = neural_data["data_dir"]
    for args, message in (
        (["Hi.", "--out", str(tmp_path / "x.wav"), "--voice", "kokoro:nobody"], "no built-in"),
        (["Hi.", "--out", str(tmp_path / "x.wav"), "--voice", "piper:gone"], "not there"),
        (["Hi.", "--out", str(tmp_path / "no" / "such" / "x.wav")], "could not be written"),
    ):
        done = speak(data_dir, *args)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert not list(tmp_path.rglob("*.wav"))
