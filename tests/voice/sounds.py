"""Real audio for the voice tests: espeak-ng utterances, silence, room noise, capture pieces."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.voice.audio import SAMPLE_RATE, load_audio
from companion_desktop.voice.stt import missing_packages

MISSING = missing_packages()
needs_voice = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is not installed")


def speak(text: str, voice: str = "en-us", folder: Path | None = None) -> np.ndarray:
    """``text`` spoken by espeak-ng (22,050 Hz WAV), as float32 16 kHz samples."""
    out = Path(folder or "/tmp") / f"espeak-{abs(hash((text, voice)))}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(out), text], check=True, timeout=30)
    try:
        return load_audio(out)
    finally:
        out.unlink(missing_ok=True)


def silence(seconds: float) -> np.ndarray:
    return np.zeros(int(seconds * SAMPLE_RATE), np.float32)


def room(samples: np.ndarray, seed: int = 0, noise: float = 0.002) -> np.ndarray:
    """``samples`` with the faint noise of a quiet room."""
    rng = np.random.default_rng(seed)
    return (samples + rng.standard_normal(samples.size) * noise).astype(np.float32)


def chunks(samples: np.ndarray, seed: int = 0) -> Iterator[np.ndarray]:
    """``samples`` in the irregular pieces a capture device delivers (10-100 ms)."""
    rng = np.random.default_rng(seed)
    start = 0
    while start < samples.size:
        size = int(rng.choice([160, 320, 441, 800, 1024, 1600]))
        yield samples[start:start + size]
        start += size


def two_sentences(first: str, second: str, tail_s: float = 1.0) -> np.ndarray:
    """Half a second of a quiet room, ``first``, a 1.2 s pause, ``second``, then ``tail_s``
    of the room (0: the recording stops as the last word ends)."""
    said = np.concatenate([silence(0.5), speak(first), silence(1.2), speak(second),
                           silence(tail_s)])
    return room(said, seed=1)
