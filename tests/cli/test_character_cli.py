"""``companion-desktop character import|export`` end to end: real processes, a card made
by hand, a real turn against a model server on 127.0.0.1, the exported card read back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import openai_stream
from tests.storage.card_samples import card_png, chunk_json, read_chunks, v2_card, v3_card

ENV = {**os.environ, "TZ": "UTC", "PYTHONIOENCODING": "utf-8",
       "COMPANION_API_KEY": "sk-test-0123456789abcdef"}
ENV.pop("COMPANION_DATA_DIR", None)
NOW = "2026-03-10T12:00:00+00:00"
BLOCK = '```json\n{"mood_change": {"emotion": "happy", "intensity_delta": 5}}\n```'


def cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "companion_desktop", "--data-dir", str(data_dir),
            "--now", NOW, *args]
    return subprocess.run(argv, capture_output=True, text=True, env=ENV, timeout=120,
                          stdin=subprocess.DEVNULL)


def ok(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture
def server():
    with ProviderServer() as s:
        yield s


def test_a_card_makes_her_the_character_and_her_lorebook_works_in_a_real_turn(tmp_path, server):
    data = tmp_path / "data"
    ok(cli(data, "state"))  # she exists first, as Hana
    card = tmp_path / "mira.png"
    card.write_bytes(card_png(chara=v2_card()))
    done = json.loads(ok(cli(data, "character", "import", str(card), "--json")))
    assert done["name"] == "Mira" and done["lorebookEntries"] == 2 and done["newRelationship"]
    assert done["greeting"] == "Oh! User, you came. Mind the wet paint."
    assert Path(done["backup"]).is_file()  # the old relationship, backed up first

    server.on("POST", "/v1/chat/completions",
              StreamReply(openai_stream(["The lamp is lit.\n", BLOCK])))
    ok(cli(data, "chat", "--provider", "openai-compatible", "--base-url", server.url + "/v1",
           "--model", "m", "--message", "Tell me about the LIGHTHOUSE keeper."))
    sent = server.requests_to("/v1/chat/completions")[0].json["messages"]
    system = sent[0]["content"]
    assert "Name: Mira" in system and "Mira is a lighthouse painter" in system
    assert "Personality: calm, teasing, loyal" in system and "User visits her studio." in system
    assert "<character_lore>" in system
    assert "The lighthouse keeper is Mira's grandmother, Old Maren." in system  # triggered
    assert "kraken" not in system  # not triggered
    assert "Made for rainy days" not in system and "painter\"" not in system  # notes, tags
    assert "Notes from the character's author" in system and "Write as Mira." in system
    lore = system.index("<character_lore>")
    assert lore < system.index("Stay gentle.") < system.rindex("```json")  # before the format
    assert sent[1] == {"role": "assistant", "content": "Oh! User, you came. Mind the wet paint."}


def test_export_writes_v3_and_v2_chunks_and_reads_back_the_same(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    card = tmp_path / "mira.json"
    card.write_text(json.dumps(v3_card()), encoding="utf-8")
    ok(cli(first, "character", "import", str(card), "--greeting", "2"))
    out = tmp_path / "her.png"
    ok(cli(first, "character", "export", str(out)))
    data = out.read_bytes()
    kinds = [kind for kind, _ in read_chunks(data)]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    v3, v2 = chunk_json(data, b"ccv3"), chunk_json(data, b"chara")
    assert (v3["spec"], v3["spec_version"], v2["spec"]) == ("chara_card_v3", "3.0",
                                                          "chara_card_v2")
    assert v3["data"]["name"] == v2["data"]["name"] == "Mira"
    assert v3["data"]["mes_example"].startswith("<START>")
    assert [e["keys"] for e in v3["data"]["character_book"]["entries"]] == [["lighthouse"],
                                                                             ["kraken"]]
    ok(cli(second, "character", "import", str(out)))
    states = [json.loads(ok(cli(d, "state", "--json"))) for d in (first, second)]
    assert states[0]["name"] == states[1]["name"] == "Mira"
    assert states[0]["systemPrompt"] == states[1]["systemPrompt"]
    shown = [json.loads(ok(cli(d, "character", "show", "--json"))) for d in (first, second)]
    assert shown[0]["lorebook"] == shown[1]["lorebook"] and shown[0]["tags"] == shown[1]["tags"]


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\nnot chunks", "cut short"),
    (b"[" * 5000 + b"]" * 5000, "nested"),
    (b'{"name": "\xff\xfe"}', "not UTF-8"),
    (b"just some text", "cannot be read"),
])
def test_a_bad_card_is_one_line_and_changes_nothing(tmp_path, content, message):
    data = tmp_path / "data"
    before = ok(cli(data, "state", "--json"))
    bad = tmp_path / "bad.png"
    bad.write_bytes(content)
    proc = cli(data, "character", "import", str(bad))
    assert proc.returncode == 1 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert ok(cli(data, "state", "--json")) == before
    assert not (data / "backups").exists() or not any((data / "backups").iterdir())
