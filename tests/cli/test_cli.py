"""The command line, run as a user runs it: real processes over real data folders."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ENV = {**os.environ, "TZ": "UTC", "PYTHONIOENCODING": "utf-8"}
ENV.pop("COMPANION_DATA_DIR", None)


def cli(*args: str, data_dir: Path | None = None, env: dict | None = None, ok: bool = True):
    """Run ``python -m companion_desktop`` and return the finished process."""
    argv = [sys.executable, "-m", "companion_desktop"]
    if data_dir is not None:
        argv += ["--data-dir", str(data_dir)]
    proc = subprocess.run(
        [*argv, *args], capture_output=True, text=True, env=env or ENV, timeout=60,
        stdin=subprocess.DEVNULL
    )
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


def state(data_dir: Path, now: str) -> dict:
    return json.loads(cli("--now", now, "state", "--json", data_dir=data_dir).stdout)


def web_save(**character) -> dict:
    """A save file as the web app writes it (extra fields, .000Z dates, embeddings)."""
    base = {
        "name": "Utsuwa", "soulPrompt": "x", "systemPrompt": "You are Utsuwa.", "extensions": {},
        "mood": {"primary": "happy", "intensity": 60, "causes": ["a good chat"]},
        "energy": 40, "affection": 600, "trust": 60, "intimacy": 30, "comfort": 50, "respect": 20,
        "appMode": "dating_sim", "relationshipStage": "close_friend",
        "personality": {"warmth": 20, "romanticStyle": "slow_burn"},
        "lastInteraction": "2026-03-01T12:00:00.000Z", "firstMet": "2026-01-01T09:00:00.000Z",
        "daysKnown": 59, "totalInteractions": 120, "currentStreak": 4, "longestStreak": 9,
        "streakLastDate": "2026-03-01", "completedEvents": ["first_meeting"],
        "sessionCountSinceEvolution": 2, "evolutionThreshold": 10,
        "createdAt": "2026-01-01T09:00:00.000Z", "updatedAt": "2026-03-01T12:00:00.000Z",
    }
    base.update(character)
    return {
        "version": "2.0", "exportedAt": "2026-03-01T12:05:00.000Z", "appVersion": "0.9.1",
        "data": {
            "character": base,
            "facts": [
                {"content": "They grew up in Seattle and miss the rain", "category": "user",
                 "importance": 70, "confidence": 0.8, "referenceCount": 2,
                 "createdAt": "2026-02-01T10:00:00.000Z", "embedding": [0.1] * 384},
            ],
            "sessions": [{"keyTopics": ["rain"], "messageCount": 2,
                          "startedAt": "2026-02-01T09:59:00.000Z"}],
            "conversationTurns": [
                {"sessionId": 7, "role": "user", "content": "I miss the rain",
                 "createdAt": "2026-02-01T10:00:00.000Z"},
                {"sessionId": 7, "role": "assistant", "content": "Seattle rain?",
                 "createdAt": "2026-02-01T10:00:05.000Z"},
            ],
            "completedEvents": [{"eventId": "first_meeting", "eventType": "milestone",
                                 "completedAt": "2026-01-01T09:05:00.000Z"}],
        },
    }


def write(path: Path, data) -> Path:
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def db_rows(data_dir: Path) -> dict:
    conn = sqlite3.connect(data_dir / "companion.sqlite3")
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}
    finally:
        conn.close()


def test_version_and_help():
    assert "0.1.0" in cli("--version").stdout
    out = cli("--help").stdout
    for command in ("state", "relationship", "mode", "export", "import", "--data-dir", "--now"):
        assert command in out


def test_fresh_state_uses_spec_field_names(tmp_path):
    data = state(tmp_path, "2026-03-10T12:00:00+00:00")
    for key in ("relationshipStage", "appMode", "affection", "trust", "intimacy", "comfort",
                "respect", "energy", "totalInteractions", "currentStreak", "longestStreak",
                "daysKnown", "firstMet", "lastInteraction", "completedEvents"):
        assert key in data
    assert data["mood"] == {"primary": "neutral", "intensity": 50, "causes": []}
    assert (data["relationshipStage"], data["appMode"], data["energy"]) == (
        "stranger", "dating_sim", 100)
    assert data["firstMet"].startswith("2026-03-10T12:00")
    text = cli("--now", "2026-03-10T12:00:00+00:00", "state", data_dir=tmp_path).stdout
    assert "Stage: Stranger" in text and "Energy" in text


def test_data_dir_from_environment(tmp_path):
    env = {**ENV, "COMPANION_DATA_DIR": str(tmp_path / "env-dir")}
    cli("state", env=env)
    assert (tmp_path / "env-dir" / "companion.sqlite3").is_file()
    # --data-dir wins over the environment
    cli("--data-dir", str(tmp_path / "flag-dir"), "state", env=env)
    assert (tmp_path / "flag-dir" / "companion.sqlite3").is_file()


def test_opening_state_resolves_decay_once(tmp_path):
    save = write(tmp_path / "web.json", web_save())
    cli("import", str(save), "--replace", data_dir=tmp_path / "d")
    ten_days = "2026-03-11T12:00:00+00:00"
    first = state(tmp_path / "d", ten_days)
    assert first["energy"] == 100
    assert first["affection"] == 570  # 5% of 600 after ten days
    assert first["trust"] == 58  # one full week away
    assert first["mood"]["primary"] == "melancholy"
    assert first["mood"]["causes"][-1] == "missing you"
    again = state(tmp_path / "d", "2026-03-11T18:00:00+00:00")
    assert (again["affection"], again["trust"], again["mood"]) == (
        first["affection"], first["trust"], first["mood"])


def test_now_must_be_a_date(tmp_path):
    proc = cli("--now", "next tuesday", "state", data_dir=tmp_path, ok=False)
    assert proc.returncode == 1 and "ISO-8601" in proc.stderr and "Traceback" not in proc.stderr


def test_mode_switch_keeps_the_dating_sim_stage(tmp_path):
    cli("import", str(write(tmp_path / "w.json", web_save())), "--replace", data_dir=tmp_path / "d")
    now = "2026-03-01T13:00:00+00:00"
    out = cli("--now", now, "mode", "companion", data_dir=tmp_path / "d").stdout
    assert "Companion Mode" in out
    data = state(tmp_path / "d", now)
    assert (data["appMode"], data["relationshipStage"], data["savedDatingSimStage"]) == (
        "companion", "companion", "close_friend")
    cli("--now", now, "mode", "dating_sim", data_dir=tmp_path / "d")
    assert state(tmp_path / "d", now)["relationshipStage"] == "close_friend"
    proc = cli("mode", "harem", data_dir=tmp_path / "d", ok=False)
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_relationship_card_and_tracking_switch(tmp_path):
    text = cli("relationship", data_dir=tmp_path).stdout
    assert "Level: Stranger" in text and "Score: 0/100" in text and "Stage: Stranger" in text
    info = json.loads(cli("relationship", "--json", "--tracking", "off", data_dir=tmp_path).stdout)
    for key in ("level", "score", "total_interactions", "positive_interactions",
                "negative_interactions", "days_known"):
        assert key in info
    assert info["tracking_enabled"] is False and info["stage"] == "stranger"
    cli("mode", "companion", data_dir=tmp_path)
    info = json.loads(cli("relationship", "--json", data_dir=tmp_path).stdout)
    assert "stage" not in info and "stats" not in info and info["tracking_enabled"] is False


def test_export_import_round_trip(tmp_path):
    cli("import", str(write(tmp_path / "w.json", web_save())), "--replace", data_dir=tmp_path / "a")
    out = tmp_path / "save.json"
    said = cli("--now", "2026-03-01T12:30:00+00:00", "export", str(out),
               data_dir=tmp_path / "a").stdout
    assert said.startswith(f"Wrote {out} (") and "1 memory" in said and "Summary(" not in said
    save = json.loads(out.read_text())
    assert save["version"] == "2.0" and "relationship" in save["data"]
    assert "embedding" not in out.read_text()
    assert save["data"]["facts"][0]["content"] == "They grew up in Seattle and miss the rain"
    cli("import", str(out), "--replace", data_dir=tmp_path / "b")
    now = "2026-03-01T12:30:00+00:00"
    assert state(tmp_path / "a", now) == state(tmp_path / "b", now)


def test_merge_never_duplicates(tmp_path):
    save = write(tmp_path / "w.json", web_save())
    cli("import", str(save), "--merge", data_dir=tmp_path)
    first = db_rows(tmp_path)
    cli("import", str(save), "--merge", data_dir=tmp_path)
    second = db_rows(tmp_path)
    for table in ("facts", "conversation_turns", "sessions", "completed_events"):
        assert len(second[table]) == len(first[table]) >= 1, table


@pytest.mark.parametrize(
    "content,message",
    [
        ("{not json", "not valid JSON"),
        ({"version": "9.0", "exportedAt": "2026-01-01T00:00:00Z", "data": {}}, "version"),
        (web_save(affection="high"), "affection"),
        (web_save(affection=5000), "affection"),
        (web_save(energy=-1), "energy"),
        (web_save(mood={"primary": "ecstatic", "intensity": 50, "causes": []}), "ecstatic"),
    ],
    ids=["not-json", "unknown-version", "wrong-type", "affection-range", "energy-range", "emotion"],
)
def test_bad_import_is_refused_and_changes_nothing(tmp_path, content, message):
    cli("import", str(write(tmp_path / "good.json", web_save())), "--replace", data_dir=tmp_path)
    before = db_rows(tmp_path)
    proc = cli("import", str(write(tmp_path / "bad.json", content)), "--replace",
               data_dir=tmp_path, ok=False)
    assert proc.returncode == 1
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert db_rows(tmp_path) == before


def test_missing_import_file(tmp_path):
    proc = cli("import", str(tmp_path / "nope.json"), "--merge", data_dir=tmp_path, ok=False)
    assert proc.returncode == 1 and "no such file" in proc.stderr


def test_newer_database_is_refused_untouched(tmp_path):
    cli("state", data_dir=tmp_path)
    db = tmp_path / "companion.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("UPDATE alembic_version SET version_num = '9999_from_the_future'")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    for extra in ("-wal", "-shm"):
        Path(f"{db}{extra}").unlink(missing_ok=True)
    before = (db.read_bytes(), db.stat().st_mtime_ns)
    proc = cli("state", data_dir=tmp_path, ok=False)
    assert (proc.returncode == 1 and "newer version" in proc.stderr
            and "Traceback" not in proc.stderr)
    assert (db.read_bytes(), db.stat().st_mtime_ns) == before


def test_corrupt_database_gives_a_clear_message(tmp_path):
    (tmp_path / "companion.sqlite3").write_bytes(b"this is not a database" * 100)
    proc = cli("state", data_dir=tmp_path, ok=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "companion.sqlite3" in proc.stderr


def test_locked_database_gives_a_clear_message(tmp_path):
    cli("state", data_dir=tmp_path)
    holder = sqlite3.connect(tmp_path / "companion.sqlite3", timeout=0.1)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = cli("mode", "companion", data_dir=tmp_path, ok=False)
    finally:
        holder.rollback()
        holder.close()
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "in use" in proc.stderr or "locked" in proc.stderr
