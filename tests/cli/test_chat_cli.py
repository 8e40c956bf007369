"""``companion-desktop chat`` end to end: a real process against real provider wire formats."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm.provider_server import JsonReply, ProviderServer, StreamReply
from tests.llm.wire_formats import (
    anthropic_error,
    anthropic_stream,
    gemini_stream,
    openai_completion,
    openai_error,
    openai_stream,
)

KEY = "sk-test-0123456789abcdef"
ENV = {**os.environ, "TZ": "UTC", "PYTHONIOENCODING": "utf-8", "COMPANION_API_KEY": KEY}
ENV.pop("COMPANION_DATA_DIR", None)
BLOCK = (
    '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 10}, "affection_delta": 4, '
    '"trust_delta": 2, "intimacy_delta": 1, "comfort_delta": 1, "new_memory": "They love hiking", '
    '"shared_reference": {"type": "jokes", "content": "the muddy boots"}}\n```'
)
NOW = "2026-03-10T12:00:00+00:00"


@pytest.fixture
def server():
    with ProviderServer() as s:
        yield s


def chat(data_dir: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir),
            "--now", NOW, "chat", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=60,
                          input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)


def openai_args(server: ProviderServer) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", server.url + "/v1",
            "--model", "test-model"]


def chunks(text: str, size: int = 9) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def state(data_dir: Path) -> dict:
    out = subprocess.run([sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir),
                          "--now", NOW, "state", "--json"], capture_output=True, text=True, env=ENV)
    return json.loads(out.stdout)


def test_openai_turn_json(server, tmp_path):
    reply = "I love hiking too! Where did you go?\n" + BLOCK
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks(reply))))
    proc = chat(tmp_path, *openai_args(server), "--message",
                "I went hiking today, it was wonderful!", "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout.strip())
    assert turn["reply"] == "I love hiking too! Where did you go?"
    for key in ("state", "applied", "stage", "mood", "events", "reminders"):
        assert key in turn
    assert turn["mood"]["primary"] == "happy"
    assert turn["applied"]["affection"] > 0 and turn["state"]["totalInteractions"] == 1
    sent = server.requests_to("/v1/chat/completions")[0]
    assert sent.json["stream"] is True and sent.json["model"] == "test-model"
    assert (sent.json["messages"][0]["role"] == "system"
            and "<instructions>" in sent.json["messages"][0]["content"])
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    rel = json.loads(subprocess.run(
        [sys.executable, "-m", "companion_desktop", "--data-dir", str(tmp_path), "--now", NOW,
         "relationship", "--json"], capture_output=True, text=True, env=ENV).stdout)
    assert (rel["total_interactions"] == 1
            and rel["shared_references"]["jokes"] == ["the muddy boots"])


def test_missing_block_takes_the_extraction_call(server, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("Oh no, I'm sorry to hear that."))),
              JsonReply(openai_completion(json.dumps(
                  {"mood_change": {"emotion": "sad", "intensity_delta": 5},
                   "affection_delta": 2}))))
    proc = chat(tmp_path, *openai_args(server), "--message", "My cat is sick.", "--json")
    assert proc.returncode == 0, proc.stderr
    turn = json.loads(proc.stdout)
    assert turn["usedExtraction"] is True and turn["mood"]["primary"] == "sad"
    extraction = server.requests_to("/v1/chat/completions")[1].json
    assert extraction["response_format"] == {"type": "json_object"} and not extraction.get("stream")


def test_messy_local_model_output_is_cleaned(server, tmp_path):
    raw = ("<think>The user is happy, I should be warm.</think>That's great news!\n" + BLOCK +
           "<|eot_id|>User: and then I said")
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks(raw))))
    turn = json.loads(chat(tmp_path, *openai_args(server), "--message", "I got the job!",
                           "--json").stdout)
    assert turn["reply"] == "That's great news!"


def test_stdin_lines_are_turns(server, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("Hello!\n" + BLOCK))))
    proc = chat(tmp_path, *openai_args(server), "--json", stdin="hi\n\nhow are you?\n")
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(lines) == 2 and lines[1]["state"]["totalInteractions"] == 2
    # the second request carries the first turn as history
    streamed = [r for r in server.requests_to("/v1/chat/completions") if r.json.get("stream")]
    history = streamed[1].json["messages"]  # (a fired event's scene request is not streamed)
    assert [m["content"] for m in history[1:]] == ["hi", "Hello!", "how are you?"]


def test_human_output_streams_the_reply(server, tmp_path):
    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(chunks("Hi there, friend!\n" + BLOCK))))
    proc = chat(tmp_path, *openai_args(server), "--message", "hello")
    assert proc.stdout.strip() == "Hi there, friend!"


def test_anthropic_turn(server, tmp_path):
    server.on("POST", "/v1/messages",
              StreamReply(anthropic_stream(chunks("Lovely to meet you!\n" + BLOCK))))
    proc = chat(tmp_path, "--provider", "anthropic", "--base-url", server.url + "/v1",
                "--model", "claude-test", "--message", "hi!", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["reply"] == "Lovely to meet you!"
    sent = server.requests_to("/v1/messages")[0]
    assert sent.headers["x-api-key"] == KEY and "<character>" in sent.json["system"]


def test_google_turn(server, tmp_path):
    path = "/v1beta/models/gemini-test:streamGenerateContent"
    server.on("POST", path, StreamReply(gemini_stream(chunks("Hello from Gemini!\n" + BLOCK))))
    proc = chat(tmp_path, "--provider", "google", "--base-url", server.url + "/v1beta",
                "--model", "gemini-test", "--message", "hi!", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["reply"] == "Hello from Gemini!"
    assert server.requests_to(path)[0].headers["x-goog-api-key"] == KEY


@pytest.mark.parametrize(
    "reply,needle",
    [
        (JsonReply(openai_error("invalid_api_key",
                                "Incorrect API key provided: sk-test-0123456789abcdef"), 401),
         "401"),
        (JsonReply(openai_error("model_not_found", "no such model"), 404), "not found"),
        (JsonReply(openai_error("rate_limit", "slow down"), 429, {"Retry-After": "7"}), "429"),
        (JsonReply(openai_error("server_error", "boom"), 503), "503"),
        (StreamReply(openai_stream(chunks("This reply will be cut off mid")),
                     then="disconnect", at=2), "cut off"),
    ],
    ids=["401", "404", "429", "503", "disconnect"],
)
def test_failed_turn_reports_error_and_changes_nothing(server, tmp_path, reply, needle):
    server.on("POST", "/v1/chat/completions", reply)
    before = state(tmp_path)
    proc = chat(tmp_path, *openai_args(server), "--message", "hello", "--json")
    assert proc.returncode == 1
    error = json.loads(proc.stdout)["error"]
    assert needle in error and KEY not in proc.stdout + proc.stderr
    assert state(tmp_path) == before


def test_anthropic_error_event(server, tmp_path):
    server.on("POST", "/v1/messages",
              JsonReply(anthropic_error("overloaded_error", "Overloaded"), 529))
    proc = chat(tmp_path, "--provider", "anthropic", "--base-url", server.url + "/v1",
                "--model", "claude-test", "--message", "hi", "--json")
    assert proc.returncode == 1 and "error" in json.loads(proc.stdout)


def test_no_provider_says_what_to_set_up(tmp_path):
    proc = chat(tmp_path, "--message", "hi")
    assert proc.returncode == 1 and "No language model is set up" in proc.stderr
    assert "Traceback" not in proc.stderr


#: What a hostile or broken model could send: an OSC 52 clipboard write, a screen clear,
#: a cursor move, a carriage return over the line, a C1 CSI, a bidi override, a bell.
HOSTILE = ("Hello \x1b]52;c;cm0gLXJmIH4=\x07friend\x1b[2J\x1b[H! \rOver\x9b31mwritten "
           "\u202eevil\u202c done\x07\tand\nmore")


def test_plain_output_never_prints_control_characters(server, tmp_path):
    reply = HOSTILE + "\n" + BLOCK
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream(chunks(reply, 5))))
    proc = chat(tmp_path, *openai_args(server), "--message", "hello")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert not [ch for ch in out if (ord(ch) < 0x20 and ch not in "\t\n") or 0x7F <= ord(ch) < 0xA0
                or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"]
    # the words stay, the sequences are inert text
    assert out.strip() == ("Hello ]52;c;cm0gLXJmIH4=friend[2J[H! Over31mwritten evil done"
                           "\tand\nmore")
    turn = json.loads(chat(tmp_path, *openai_args(server), "--message", "again", "--json").stdout)
    assert "\x1b" in turn["reply"]  # JSON mode keeps the text, escaped by JSON


def test_a_server_error_is_printed_without_control_characters(server, tmp_path):
    server.on("POST", "/v1/chat/completions",
              JsonReply(openai_error("boom\x1b]52;c;ZWNobyBoaQ==\x07\x1b[2J", "server_error"), 503))
    proc = chat(tmp_path, *openai_args(server), "--message", "hello")
    assert proc.returncode == 1 and "503" in proc.stderr and "ZWNobyBoaQ==" in proc.stderr
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr


def test_an_endless_reply_is_cut_at_the_cap_and_the_turn_completes(server, tmp_path):
    from companion_desktop.llm.base import MAX_REPLY_CHARS

    words = "la la la, " * 30  # 300 characters an event; 120 000 in all
    server.on("POST", "/v1/chat/completions", StreamReply(openai_stream([words] * 400)),
              StreamReply(openai_stream(["Short and sweet.\n" + BLOCK])))
    proc = chat(tmp_path, *openai_args(server), "--message", "sing", "--json")
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)["reply"]
    assert reply.startswith("la la la") and len(reply) <= MAX_REPLY_CHARS
    assert state(tmp_path)["totalInteractions"] == 1  # the turn was saved
