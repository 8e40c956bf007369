"""Fixtures for the neural voice tests: the real Kokoro model (joined once per session),
the real Whisper model to hear it, and tiny Piper-format voices made here."""

from __future__ import annotations

import shutil

import pytest

from companion_desktop.llm.neural_voice import kokoro_files
from tests.voice.conftest import voice_data, whisper  # noqa: F401 - shared session fixtures

KOKORO_MISSING = kokoro_files.missing()
needs_kokoro = pytest.mark.skipif(KOKORO_MISSING is not None, reason=KOKORO_MISSING or "")
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")


@pytest.fixture(scope="session")
def neural_data(tmp_path_factory) -> dict:
    """A data folder whose cache holds the joined Kokoro model, with the progress reports
    of that first join."""
    if KOKORO_MISSING:
        pytest.skip(KOKORO_MISSING)
    data_dir = tmp_path_factory.mktemp("neural-data")
    reports: list[tuple[float, str]] = []
    path = kokoro_files.model_file(data_dir / "cache", lambda f, t: reports.append((f, t)))
    return {"data_dir": data_dir, "model": path, "reports": reports}


@pytest.fixture(scope="session")
def neural(neural_data):
    """One loaded backend for the session (the model loads at its first synthesis)."""
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    from companion_desktop.llm.neural_voice import NeuralBackend

    backend = NeuralBackend(neural_data["data_dir"])
    yield backend
    backend.close()
