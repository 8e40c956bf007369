"""``companion-desktop chat --audio FILE``: a recording said to her headless, through the
path the microphone takes (the real listener, voice activity model and local Whisper on
espeak-ng speech), against a 127.0.0.1 provider speaking the real wire format."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.cli.test_chat_cli import BLOCK, chat, chunks, openai_args, server, state  # noqa: F401
from tests.cli.test_chat_image import local_vision_args, write_photo
from tests.llm.provider_server import StreamReply
from tests.llm.wire_formats import openai_stream
from tests.voice.sounds import MISSING, needs_espeak, needs_voice, room, silence, two_sentences

pytestmark = [needs_voice, needs_espeak]

ASK = "Please remind me to call my sister tomorrow morning."
TRIP = "We drove to the seaside and watched the boats all afternoon."


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """The speech model, assembled once for this module."""
    if MISSING:
        pytest.skip(MISSING)
    from companion_desktop.voice.whisper_files import ensure_model

    return ensure_model(tmp_path_factory.mktemp("model") / "cache")


@pytest.fixture
def data(tmp_path, model) -> Path:
    """A data folder whose cache already holds the model (linked, not assembled again)."""
    folder = tmp_path / "data" / "cache" / model.name
    folder.mkdir(parents=True)
    for item in model.iterdir():
        os.link(item, folder / item.name)
    return tmp_path / "data"


def recording(path: Path, samples: np.ndarray) -> Path:
    from companion_desktop.voice.audio import wav_bytes

    path.write_bytes(wav_bytes(samples))
    return path


def said(path: Path, text: str) -> Path:
    """``text`` said by espeak-ng (its own 22,050 Hz WAV), with a quiet room around it, as
    a 16 kHz recording."""
    from companion_desktop.voice.audio import load_audio

    raw = path.with_suffix(".espeak.wav")
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(raw), text], check=True, timeout=30)
    return recording(path, room(np.concatenate([silence(0.5), load_audio(raw), silence(1.0)])))


def words(text: str) -> set[str]:
    return {w.strip(".,!?").lower() for w in text.split()}


def user_turns(data_dir: Path) -> list[str]:
    conn = sqlite3.connect(data_dir / "companion.sqlite3")
    try:
        rows = conn.execute("SELECT content FROM conversation_turns WHERE role = 'user' "
                            "ORDER BY id").fetchall()
    finally:
        conn.close()
    return [content for (content,) in rows]


def test_a_spoken_turn_reaches_her_and_is_saved(server, data, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("I'll remind you!\n" + BLOCK))))
    proc = chat(data, *openai_args(server), "--audio", str(said(tmp_path / "a.wav", ASK)),
                "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    heard = turn["heard"]
    assert {"remind", "call", "sister", "tomorrow"} <= words(heard["text"])
    assert heard["backend"] == "local" and heard["language"] == "en"  # detected
    assert 3.0 < heard["audioSeconds"] < 5.0 and heard["seconds"] > 0
    assert turn["reply"] == "I'll remind you!" and turn["state"]["totalInteractions"] == 1
    sent = server.requests_to("/v1/chat/completions")[0].json["messages"][-1]
    assert sent == {"role": "user", "content": heard["text"]}  # the words she was sent
    assert user_turns(data) == [heard["text"]]


def test_a_recording_that_starts_on_its_first_word_keeps_it(server, data, tmp_path):
    """No quiet before the first word (a clip cut tight): the microphone's pre-roll would
    have heard quiet first, and so does a recording now."""
    from companion_desktop.voice.audio import load_audio

    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("It's noon!\n" + BLOCK))))
    raw = tmp_path / "tight.espeak.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(raw),
                    "Could you tell me what time it is?"], check=True, timeout=30)
    path = recording(tmp_path / "tight.wav", np.concatenate([load_audio(raw), silence(1.0)]))
    proc = chat(data, *openai_args(server), "--audio", str(path), "--json")
    assert proc.returncode == 0, proc.stderr
    heard = json.loads(proc.stdout.strip())["heard"]["text"]
    assert heard.lower().split()[0].strip(",.?!") == "could", heard


def test_each_utterance_is_a_turn_and_plain_mode_says_what_was_heard(server, data, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("Lovely!\n" + BLOCK))),
              StreamReply(openai_stream(chunks("How nice!\n" + BLOCK))))
    audio = recording(tmp_path / "two.wav", two_sentences(ASK, TRIP))
    proc = chat(data, *openai_args(server), "--audio", str(audio))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["Lovely!", "How", "nice!"]
    heard = [line[len("(heard) "):] for line in proc.stderr.splitlines()
             if line.startswith("(heard) ")]
    assert len(heard) == 2 and "sister" in words(heard[0]) and "seaside" in words(heard[1])
    streamed = [r.json for r in server.requests_to("/v1/chat/completions")
                if r.json.get("stream")]
    assert [m["content"] for m in streamed[1]["messages"][1:]] == [heard[0], "Lovely!", heard[1]]
    assert user_turns(data) == heard


def test_a_photo_goes_with_the_first_spoken_turn(server, data, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("What a lake!\n" + BLOCK))))
    photo = write_photo(tmp_path / "lake.jpg", (640, 480))
    proc = chat(data, *local_vision_args(server), "--image", str(photo),
                "--audio", str(said(tmp_path / "a.wav",
                                    "I took this photo of the lake in the mountains.")),
                "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert {"photo", "mountains"} <= words(turn["heard"]["text"]) and turn["keepsake"] is not None
    parts = server.requests_to("/v1/chat/completions")[0].json["messages"][-1]["content"]
    assert parts[0] == {"type": "text", "text": turn["heard"]["text"]}
    assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")


@pytest.mark.parametrize("kind", ["silence", "room"])
def test_a_recording_without_speech_sends_and_saves_nothing(server, data, tmp_path, kind):
    quiet = silence(3.0) if kind == "silence" else room(silence(3.0), noise=0.003)
    before = state(data)
    proc = chat(data, *openai_args(server), "--audio", str(recording(tmp_path / "q.wav", quiet)),
                "--json")
    assert proc.returncode == 1
    assert "No speech was heard in" in proc.stderr and proc.stdout == ""
    assert server.requests_to("/v1/chat/completions") == []
    assert state(data) == before and user_turns(data) == []


def test_an_unreadable_recording_is_a_clear_message(server, data, tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF not really a wave file")
    proc = chat(data, *openai_args(server), "--audio", str(bad))
    assert proc.returncode == 1 and "bad.wav" in proc.stderr
    assert server.requests == []


def test_audio_and_typed_messages_do_not_mix(server, data, tmp_path):
    proc = chat(data, *openai_args(server), "--audio", str(tmp_path / "x.wav"),
                "--message", "hello")
    assert proc.returncode == 2 and "not allowed with argument" in proc.stderr


def test_a_spoken_turn_with_her_own_mind(data, tmp_path):
    """Offline end to end: a sentence said to her is heard by the local Whisper and
    answered by her own mind (the small test model in a process of its own); the reminder
    it asks for is stored from the words heard even when the small model writes no tag."""
    from tests.llm.mind.mind_parts import need_small

    need_small()
    proc = chat(data, "--provider", "builtin", "--model", "smollm2-135m", "--audio",
                str(said(tmp_path / "a.wav", ASK)), "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert {"remind", "call", "sister", "tomorrow"} <= words(turn["heard"]["text"])
    assert turn["reply"].strip() and turn["state"]["totalInteractions"] == 1
    assert user_turns(data) == [turn["heard"]["text"]]
    assert len(turn["reminders"]) == 1 and "sister" in turn["reminders"][0]["text"]
