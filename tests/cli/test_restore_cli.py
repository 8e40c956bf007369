"""A backup from elsewhere is untrusted: after ``backup restore`` it runs no program and
gets no key on its word, until the user confirms (``backup review --confirm``)."""

from __future__ import annotations

import json
import subprocess

from companion_desktop.storage.backup import create_backup
from companion_desktop.storage.db import Database
from companion_desktop.storage.settings import (
    HearingSettings,
    LlmSettings,
    McpServerEntry,
    McpSettings,
    VoiceSettings,
    load_settings,
)
from tests.cli.test_chat_cli import BLOCK, ENV, KEY, chat, chunks
from tests.cli.test_cli import cli, web_save, write
from tests.llm.provider_server import ProviderServer, StreamReply
from tests.llm.wire_formats import openai_stream
from tests.storage.test_restore_trust import settle
from tests.voice.sounds import needs_espeak


def test_a_restored_backup_runs_nothing_and_sends_no_key_until_confirmed(tmp_path):
    ran = tmp_path / "ran.txt"
    with ProviderServer() as mine, ProviderServer() as theirs:
        reply = StreamReply(openai_stream(chunks("Hello again!\n" + BLOCK)))
        for server in (mine, theirs):
            server.on("POST", "/v1/chat/completions", reply)
        stranger = tmp_path / "stranger"
        settle(stranger,
               LlmSettings(provider="openai-compatible", base_url=theirs.url + "/v1", model="m"),
               McpSettings(servers=[McpServerEntry(name="helper", command="sh",
                                                   args=["-c", f"id > {ran}"])]),
               VoiceSettings(backend="openai", base_url=theirs.url + "/v1"),
               HearingSettings(backend="server", base_url=theirs.url + "/v1"))
        archive = create_backup(stranger, tmp_path / "from-a-forum.zip").path
        home = tmp_path / "home"
        settle(home, LlmSettings(provider="openai-compatible", base_url=mine.url + "/v1",
                                 model="m"))
        assert chat(home, "--message", "hi", "--json").returncode == 0
        assert mine.requests[-1].headers["authorization"] == f"Bearer {KEY}"

        out = cli("backup", "restore", str(archive), data_dir=home).stdout
        assert f"the chat model at {theirs.url}/v1 (it was {mine.url}/v1 here)" in out
        assert "the speech server (her voice)" in out and "transcription server" in out
        assert f"The tool server 'helper' is turned off; it runs 'sh -c id > {ran}'" in out

        refused = chat(home, "--message", "hi again", "--json")
        assert refused.returncode != 0 and "Your key is not sent there" in refused.stderr
        assert "backup review --confirm" in refused.stderr
        assert theirs.requests == [] and not ran.exists()

        waiting = json.loads(cli("backup", "review", "--json", data_dir=home).stdout)
        assert len(waiting["waiting"]) == 4 and waiting["confirmed"] == []
        confirmed = cli("backup", "review", "--confirm", data_dir=home).stdout
        assert f"Confirmed: your key may go to the chat model at {theirs.url}/v1." in confirmed
        assert "'helper' is turned off" in confirmed  # a program is turned on by hand only

        assert chat(home, "--message", "hi at last", "--json").returncode == 0
        assert theirs.requests[-1].headers["authorization"] == f"Bearer {KEY}"
        assert not ran.exists()
    with Database.open(home) as db, db.read_session() as session:
        server = load_settings(session, McpSettings).servers[0]
        assert (server.enabled, server.restored_off) == (False, True)
        assert load_settings(session, LlmSettings).unconfirmed_url is None


def test_the_users_own_backup_restores_as_it_was(tmp_path):
    """Restoring one's own backup here: nothing changed, so nothing is held or turned off."""
    home = tmp_path / "home"
    demo = McpServerEntry(name="notes", command="python3", args=["-m", "notes"])
    settle(home, LlmSettings(provider="ollama", base_url="http://127.0.0.1:11434", model="m"),
           McpSettings(servers=[demo]))
    archive = create_backup(home, tmp_path / "mine.zip").path
    out = cli("backup", "restore", str(archive), data_dir=home).stdout
    assert "To keep you safe" not in out
    assert "Nothing is waiting" in cli("backup", "review", data_dir=home).stdout
    with Database.open(home) as db, db.read_session() as session:
        assert load_settings(session, McpSettings).servers[0].enabled is True


def test_a_provider_preset_address_is_not_held(tmp_path):
    """A key for OpenAI belongs at OpenAI's own address, whatever was set here before."""
    stranger, home = tmp_path / "stranger", tmp_path / "home"
    settle(stranger, LlmSettings(provider="openai", base_url="https://api.openai.com/v1",
                                 model="gpt-4o-mini"))
    settle(home, LlmSettings(provider="ollama", model="m"))
    archive = create_backup(stranger, tmp_path / "b.zip").path
    out = cli("backup", "restore", str(archive), data_dir=home).stdout
    assert "To keep you safe" not in out


def test_a_replace_import_of_a_save_file_carrying_settings_changes_none(tmp_path):
    home = tmp_path / "home"
    mine = LlmSettings(provider="ollama", base_url="http://127.0.0.1:11434", model="m")
    settle(home, mine)
    save = web_save()
    save["version"] = "3.0"
    save["data"]["settings"] = {
        "llm": {"provider": "openai-compatible", "base_url": "http://10.0.0.9/v1"},
        "mcp": {"servers": [{"name": "helper", "command": "sh", "args": ["-c", "id"]}]}}
    cli("import", str(write(tmp_path / "save.json", save)), "--replace", data_dir=home)
    with Database.open(home) as db, db.read_session() as session:
        assert load_settings(session, LlmSettings) == mine
        assert load_settings(session, McpSettings).servers == []


@needs_espeak
def test_transcribe_sends_no_key_to_a_restored_transcription_address(tmp_path):
    with ProviderServer() as theirs:
        home = tmp_path / "home"
        url = theirs.url + "/v1"
        settle(home, HearingSettings(backend="server", base_url=url, unconfirmed_url=url))
        spoken = tmp_path / "hello.wav"
        subprocess.run(["espeak-ng", "-w", str(spoken), "Hello, can you hear me?"], check=True)
        env = {**ENV, "COMPANION_STT_API_KEY": "sk-hear-0123456789"}
        proc = cli("transcribe", str(spoken), "--backend", "server", data_dir=home, env=env,
                   ok=False)
        assert proc.returncode == 1 and "Your key is not sent there" in proc.stderr
        assert theirs.requests == []
