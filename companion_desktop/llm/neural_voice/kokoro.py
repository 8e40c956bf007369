"""Kokoro-82M on ONNX Runtime: token ids and a voice in, 24 kHz float audio out.

The model's inputs: ``tokens`` int64 [1, N+2] (0, ids..., 0; N at most 510), ``style``
float32 [1, 256] (the voice's row for N tokens: ``voice[min(N, rows) - 1]``) and
``speed`` float32 [1] (1.0 the voice's own pace; 0.5-2.0 used). Its output is float32
audio at :data:`SAMPLE_RATE` Hz, about -1..1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from companion_desktop.llm.neural_voice import audio
from companion_desktop.llm.neural_voice.kokoro_phonemes import MAX_TOKENS, split_tokens
from companion_desktop.llm.neural_voice.runtime import DEFAULT_THREADS, input_names, open_session
from companion_desktop.llm.wav import TtsError

SAMPLE_RATE = 24_000
STYLE_SIZE = 256
EXPECTED_INPUTS = {"tokens": "tensor(int64)", "style": "tensor(float)", "speed": "tensor(float)"}


class KokoroModel:
    """One loaded Kokoro model (not thread-safe: the backend calls it under its lock)."""

    def __init__(self, path: Path, threads: int = DEFAULT_THREADS) -> None:
        self.session: Any = open_session(path, threads)
        found = input_names(self.session)
        if any(found.get(name, ("",))[0] != kind for name, kind in EXPECTED_INPUTS.items()):
            raise TtsError(f"{Path(path).name} is not a Kokoro model (its inputs are "
                           f"{', '.join(found) or 'none'}).")

    def run(self, ids: list[int], voice: np.ndarray, speed: float = 1.0) -> np.ndarray:
        """Audio for at most :data:`MAX_TOKENS` token ``ids`` read by ``voice`` (rows, 256),
        trimmed of silence at the ends; empty for no ids."""
        if not ids:
            return np.zeros(0, np.float32)
        if len(ids) > MAX_TOKENS:
            raise ValueError(f"{len(ids)} tokens; at most {MAX_TOKENS} per call")
        style = np.asarray(voice[min(len(ids), len(voice)) - 1], np.float32)
        out = self.session.run(None, {
            "tokens": np.array([[0, *ids, 0]], dtype=np.int64),
            "style": style.reshape(1, STYLE_SIZE),
            "speed": np.array([min(2.0, max(0.5, float(speed)))], dtype=np.float32),
        })[0]
        return audio.trim(audio.clean(out), SAMPLE_RATE)

    def speak(self, ids: list[int], voice: np.ndarray, speed: float,
              space_id: int | None) -> list[np.ndarray]:
        """Audio for any number of ``ids``, one model call per run of at most
        :data:`MAX_TOKENS` (cut after a word where it can be)."""
        return [self.run(run, voice, speed) for run in split_tokens(ids, space_id)]
