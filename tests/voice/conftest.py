"""Fixtures for the voice tests: the real Whisper model, assembled once per session."""

from __future__ import annotations

import pytest

from tests.voice.sounds import MISSING


@pytest.fixture(scope="session")
def voice_data(tmp_path_factory) -> dict:
    """A data folder whose ``cache`` holds the assembled model (assembled once per session),
    with the progress reports of that assembly."""
    if MISSING:
        pytest.skip(MISSING)
    from companion_desktop.voice.whisper_files import ensure_model

    data_dir = tmp_path_factory.mktemp("voice-data")
    reports: list[tuple[float, str]] = []
    folder = ensure_model(data_dir / "cache", lambda f, t: reports.append((f, t)))
    return {"data_dir": data_dir, "cache": data_dir / "cache", "model": folder,
            "reports": reports}


@pytest.fixture(scope="session")
def whisper(voice_data):
    from companion_desktop.voice.whisper_files import open_local_whisper

    return open_local_whisper(voice_data["cache"])
