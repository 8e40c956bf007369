"""Her hearing in tests: espeak-ng speech as float32 16 kHz samples, a shared model cache,
and a chat window whose hearing listens to a ``FileSource`` instead of a microphone."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.storage.settings import HearingSettings, save_settings

SAY = "What is the weather like today"


def voice_missing() -> str | None:
    """Why the spoken tests cannot run here (None when they can)."""
    from companion_desktop.voice.stt import missing_packages

    if shutil.which("espeak-ng") is None:
        return "espeak-ng is not installed"
    return missing_packages()


needs_voice = pytest.mark.skipif(voice_missing() is not None,
                                 reason=f"voice input cannot run here: {voice_missing()}")


def spoken(text: str, folder: Path, voice: str = "en-us") -> np.ndarray:
    """``text`` said by espeak-ng, as the capture path carries it."""
    from companion_desktop.voice.audio import load_audio

    path = folder / f"said-{abs(hash((text, voice)))}.wav"
    if not path.exists():
        subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
    return load_audio(path)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(16000 * seconds), np.float32)


def save_hearing(service, **values) -> HearingSettings:  # noqa: ANN001
    settings = HearingSettings(**values)
    with service.db.session() as session:
        save_settings(session, settings)
    return settings


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory) -> Path:
    """One assembled Whisper model for the whole run."""
    return tmp_path_factory.mktemp("speech-model-cache")


def listen_to_file(hearing, cache: Path, speed: float = 3.0):  # noqa: ANN001
    """``hearing`` from now on hears a live ``FileSource`` (silence until fed); returns it."""
    from companion_desktop.ui.voice.mic import FileSource

    source = FileSource(speed=speed, live=True)
    hearing.cache_dir = cache
    hearing.source_factory = lambda settings: source
    return source
