"""Float audio from a neural voice made ready for the app: trimmed, joined, 16-bit PCM."""

from __future__ import annotations

import numpy as np

from companion_desktop.llm.wav import SpeechAudio
from companion_desktop.voice.audio import float_to_pcm16

#: A sample quieter than this (of full scale 1.0) counts as silence at either end.
SILENCE = 0.01
#: Seconds of the quiet kept before the first and after the last loud sample.
EDGE_S = 0.03
#: Seconds of silence between two sentences.
SENTENCE_PAUSE_S = 0.3


def clean(samples: np.ndarray) -> np.ndarray:
    """``samples`` as finite float32 mono (NaN and infinities become silence)."""
    audio = np.asarray(samples, dtype=np.float32).reshape(-1)
    return np.nan_to_num(audio, nan=0.0, posinf=0.0, neginf=0.0)


def trim(samples: np.ndarray, rate: int) -> np.ndarray:
    """``samples`` without the silence at either end (:data:`EDGE_S` of it kept); empty
    when all of it is silence."""
    loud = np.flatnonzero(np.abs(samples) > SILENCE)
    if loud.size == 0:
        return samples[:0]
    edge = int(EDGE_S * rate)
    return samples[max(0, int(loud[0]) - edge): int(loud[-1]) + 1 + edge]


def join(pieces: list[np.ndarray], rate: int, pause_s: float = SENTENCE_PAUSE_S) -> np.ndarray:
    """The non-empty ``pieces`` one after another with ``pause_s`` of silence between."""
    gap = np.zeros(int(pause_s * rate), np.float32)
    out: list[np.ndarray] = []
    for piece in pieces:
        if piece.size:
            out += [gap, piece] if out else [piece]
    return np.concatenate(out) if out else np.zeros(0, np.float32)


def speech(samples: np.ndarray, rate: int) -> SpeechAudio:
    """16-bit mono PCM of float ``samples`` (clipped to -1..1) at ``rate`` Hz."""
    return SpeechAudio(float_to_pcm16(samples), rate)
