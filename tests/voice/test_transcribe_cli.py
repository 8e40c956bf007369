"""``companion-desktop transcribe``: the real command on real files."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.voice.audio import SAMPLE_RATE, wav_bytes
from tests.cli.command import companion
from tests.cli.test_terminal_output import EVIL, unsafe
from tests.llm.provider_server import JsonReply, ProviderServer
from tests.voice.sounds import needs_espeak, needs_voice, room, silence, speak

pytestmark = [needs_voice, needs_espeak]
TEXT = "Could you tell me a story about dragons and castles?"


def transcribe(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return companion(data_dir, "transcribe", *args)


def test_a_wav_file_prints_its_text_and_json(voice_data, tmp_path):
    path = tmp_path / "ask.wav"
    path.write_bytes(wav_bytes(np.concatenate([silence(0.3), speak(TEXT), silence(0.3)])))
    done = transcribe(voice_data["data_dir"], str(path))
    assert done.returncode == 0, done.stderr
    assert "dragons" in done.stdout.lower() and "castles" in done.stdout.lower()
    done = transcribe(voice_data["data_dir"], str(path), "--json", "--language", "en")
    reply = json.loads(done.stdout)
    assert set(reply) >= {"text", "language", "seconds", "backend"}
    assert reply["language"] == "en" and reply["backend"] == "local" and reply["seconds"] > 0
    assert "dragons" in reply["text"].lower()
    assert not (voice_data["data_dir"] / "companion.sqlite3").exists()  # no database made


def test_flac_and_mp3_go_through_the_decoder(voice_data, tmp_path):
    import av

    samples = (np.concatenate([speak(TEXT), silence(0.3)]) * 32767).astype(np.int16)
    for suffix, codec in ((".flac", "flac"), (".mp3", "libmp3lame")):
        path = tmp_path / f"ask{suffix}"
        with av.open(str(path), "w") as out:
            stream = out.add_stream(codec, rate=SAMPLE_RATE, layout="mono")
            stream.bit_rate = 64000  # lame's default at 16 kHz (24 kbit/s) garbles espeak
            frame = av.AudioFrame.from_ndarray(samples[None, :], format="s16", layout="mono")
            frame.sample_rate = SAMPLE_RATE
            for packet in stream.encode(frame):
                out.mux(packet)
            for packet in stream.encode(None):
                out.mux(packet)
        done = transcribe(voice_data["data_dir"], str(path), "--json")
        assert done.returncode == 0, done.stderr
        assert "dragons" in json.loads(done.stdout)["text"].lower()


def test_unreadable_files_are_a_clear_message_and_exit_1(voice_data, tmp_path):
    junk = tmp_path / "song.mp3"
    junk.write_bytes(random.Random(5).randbytes(5000))  # fixed noise, the same every run
    cases = {junk: "could not be decoded as audio", tmp_path / "gone.wav": "no such file",
             tmp_path: "is a folder"}
    for path, expected in cases.items():
        done = transcribe(voice_data["data_dir"], str(path))
        assert done.returncode == 1 and expected in done.stderr and "Traceback" not in done.stderr


def test_the_server_backend_without_an_address_says_where_to_set_it(tmp_path):
    path = tmp_path / "ask.wav"
    path.write_bytes(wav_bytes(speak("hello")))
    done = transcribe(tmp_path / "data", str(path), "--backend", "server")
    assert done.returncode == 1 and "address" in done.stderr


def test_a_file_that_starts_on_its_first_word_keeps_it(voice_data, tmp_path):
    """No quiet before the first word (a clip cut tight, unlike the microphone's pre-roll):
    before the lead-in, "Could you…" came out as "or you…"."""
    path = tmp_path / "tight.wav"
    path.write_bytes(wav_bytes(speak("Could you tell me what time it is?")))
    done = transcribe(voice_data["data_dir"], str(path), "--language", "en")
    assert done.returncode == 0, done.stderr
    assert done.stdout.lower().split()[0].strip(",.?!") == "could", done.stdout


def server_args(server: ProviderServer) -> list[str]:
    return ["--backend", "server", "--base-url", server.url + "/v1", "--model", "whisper-1"]


def test_a_servers_words_reach_the_terminal_without_control_characters(tmp_path):
    """Its text and its error messages could clear the screen or write the clipboard."""
    path = tmp_path / "hello.wav"
    path.write_bytes(wav_bytes(speak("Hello there, how are you?")))
    with ProviderServer() as server:
        server.on("POST", "/v1/audio/transcriptions",
                  JsonReply({"text": f"Hello{EVIL} there"}),
                  JsonReply({"error": {"message": f"model{EVIL} crashed"}}, status=500))
        heard = transcribe(tmp_path / "data", str(path), *server_args(server))
        failed = transcribe(tmp_path / "data", str(path), *server_args(server))
    assert heard.returncode == 0, heard.stderr
    assert heard.stdout.startswith("Hello") and unsafe(heard.stdout) == []
    assert failed.returncode == 1 and "crashed" in failed.stderr, failed.stderr
    assert unsafe(failed.stderr) == []
    gone = transcribe(tmp_path / "data", str(tmp_path / f"gone{EVIL}.wav"))
    assert gone.returncode == 1 and "no such file" in gone.stderr and unsafe(gone.stderr) == []


@pytest.mark.parametrize("kind", ["silence", "room"])
def test_a_file_without_speech_gives_empty_text(voice_data, tmp_path, kind):
    """Whisper makes words up for silence: three quiet seconds came out as "you"."""
    quiet = silence(3.0) if kind == "silence" else room(silence(3.0), noise=0.003)
    path = tmp_path / "quiet.wav"
    path.write_bytes(wav_bytes(quiet))
    done = transcribe(voice_data["data_dir"], str(path), "--json", "--language", "en")
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert reply["text"] == "" and reply["language"] == "en", reply
    assert reply["audioSeconds"] == pytest.approx(3.3)  # the file and its 0.3 s lead-in


def test_a_file_without_speech_is_not_sent_to_the_server(tmp_path):
    path = tmp_path / "quiet.wav"
    path.write_bytes(wav_bytes(silence(3.0)))
    with ProviderServer() as server:
        server.on("POST", "/v1/audio/transcriptions", JsonReply({"text": "you"}))
        done = transcribe(tmp_path / "data", str(path), *server_args(server), "--json")
        assert server.requests == []
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == ""
