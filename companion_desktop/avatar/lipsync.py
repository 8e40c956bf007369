"""Lip sync from audio: per-frame weights of the five VRM mouth visemes (numpy only).

:func:`mouth_track` analyses a whole clip once (before playback) into a
:class:`MouthTrack`; the player asks ``track.at(seconds_played)`` each frame.

- Openness 0..1 from the frame RMS envelope: a noise gate, normalized to the clip's
  loud level (95th percentile of voiced frames) through a soft knee, then attack/release
  smoothing so the jaw does not jitter.
- Vowel colour from band energies of the frame's spectrum (rough formant cues):
  F1 low (150-400 Hz dominant) -> close vowels; F1 high (700-1100 vs 400-700 Hz) -> open;
  F2 high (1700-4000 vs 700-1700 Hz) -> spread (front) vowels, otherwise rounded (back).
  close: front ih / back ou; mid: front ee / back oh; open: aa.
  The five weights are these shares times the openness, so they sum to at most 1.

Frame ``i`` describes the audio around ``i / fps`` seconds (a centred window), so the
weights at ``t`` follow the sound heard at ``t``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

VISEMES: tuple[str, ...] = ("aa", "ih", "ou", "ee", "oh")
#: Frames below this RMS (about -50 dBFS) are silence whatever the clip's level.
ABSOLUTE_GATE = 0.003
#: Frames below this share of the clip's loud level are silence (noise, breaths).
RELATIVE_GATE = 0.08
#: Soft knee: openness = tanh(KNEE x) / tanh(KNEE), x = level over the gate / loud level.
KNEE = 1.5
#: Smoothing time constants in seconds: the jaw opens fast and closes a little slower.
ATTACK_S, RELEASE_S = 0.025, 0.06
#: Smoothing of the vowel colour, in seconds.
COLOUR_S = 0.04
#: Frames analysed per FFT batch (bounds memory on long clips).
_BATCH = 512
_BANDS_HZ = (150.0, 400.0, 700.0, 1100.0, 1700.0, 4000.0)


@dataclass
class MouthTrack:
    """Viseme weights per frame: ``weights`` (n, 5) in 0..1, columns in :data:`VISEMES`
    order, frame ``i`` at ``i / fps`` seconds; ``duration`` in seconds."""

    fps: float
    weights: np.ndarray
    duration: float

    @property
    def openness(self) -> np.ndarray:
        """(n,) how open the mouth is per frame, 0..1 (the sum of the five weights)."""
        return self.weights.sum(axis=1) if len(self.weights) else np.zeros(0)

    def at(self, t: float) -> dict[str, float]:
        """The weights at ``t`` seconds (linear between frames; all 0 outside the clip)."""
        n = len(self.weights)
        if not n or not (0.0 <= t <= self.duration):
            return dict.fromkeys(VISEMES, 0.0)
        pos = min(float(t) * self.fps, n - 1.0)
        lo = int(pos)
        hi = min(lo + 1, n - 1)
        frac = pos - lo
        row = self.weights[lo] * (1.0 - frac) + self.weights[hi] * frac
        return {name: float(w) for name, w in zip(VISEMES, row, strict=True)}


def _samples(pcm: bytes | np.ndarray) -> np.ndarray:
    """Mono float samples in -1..1 from 16-bit PCM bytes or an array (int16 or float;
    2-D arrays are (samples, channels) and averaged)."""
    if isinstance(pcm, (bytes, bytearray, memoryview)):
        raw = bytes(pcm)
        return np.frombuffer(raw[: len(raw) // 2 * 2], "<i2").astype(np.float64) / 32768.0
    x = np.asarray(pcm)
    scale = 32768.0 if x.dtype == np.int16 else 1.0
    x = x.astype(np.float64) / scale
    if x.ndim == 2:
        x = x.mean(axis=1)
    return np.nan_to_num(x.reshape(-1), nan=0.0, posinf=0.0, neginf=0.0)


def _frames(x: np.ndarray, sample_rate: int, fps: float) -> tuple[np.ndarray, int]:
    """(n, win) frame start indices into the padded signal and the window length."""
    hop = sample_rate / fps
    win = int(round(min(2.0 * hop, max(hop, 0.04 * sample_rate))))
    n = int(len(x) / hop) + 1 if len(x) else 0
    starts = np.round(np.arange(n) * hop).astype(np.int64)  # frame centres (padded: +win/2)
    return starts, win


def _features(x: np.ndarray, starts: np.ndarray, win: int, sample_rate: int):
    """Per frame: RMS and the five band energies (150-400-700-1100-1700-4000 Hz)."""
    half = win // 2
    padded = np.concatenate([np.zeros(half), x, np.zeros(win)])
    nfft = 1 << int(np.ceil(np.log2(win)))
    freqs = np.fft.rfftfreq(nfft, 1.0 / sample_rate)
    edges = np.searchsorted(freqs, _BANDS_HZ)
    window = np.hanning(win)
    rms = np.empty(len(starts))
    bands = np.empty((len(starts), len(_BANDS_HZ) - 1))
    offsets = np.arange(win)
    for b in range(0, len(starts), _BATCH):
        chunk = padded[starts[b:b + _BATCH, None] + offsets]
        rms[b:b + _BATCH] = np.sqrt(np.mean(chunk * chunk, axis=1))
        power = np.abs(np.fft.rfft(chunk * window, nfft, axis=1)) ** 2
        cum = np.concatenate([np.zeros((len(chunk), 1)), np.cumsum(power, axis=1)], axis=1)
        bands[b:b + _BATCH] = np.diff(cum[:, edges], axis=1)
    return rms, bands + 1e-12


def _openness(rms: np.ndarray) -> np.ndarray:
    """0..1 per frame: gated, normalized to the loud level, soft knee (unsmoothed)."""
    voiced = rms[rms > ABSOLUTE_GATE]
    if not len(voiced):
        return np.zeros_like(rms)
    loud = float(np.percentile(voiced, 95))
    gate = max(ABSOLUTE_GATE, RELATIVE_GATE * loud)
    level = np.clip((rms - gate) / max(loud - gate, 1e-9), 0.0, None)
    return np.clip(np.tanh(KNEE * level) / np.tanh(KNEE), 0.0, 1.0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _colour(bands: np.ndarray) -> np.ndarray:
    """(n, 5) vowel shares per frame (rows sum to 1), in :data:`VISEMES` order."""
    db = 10.0 * np.log10(bands)
    low, f1_mid, f1_high, f2_low, f2_high = db.T
    f1_band = 10.0 * np.log10(bands[:, 1] + bands[:, 2])
    close = _sigmoid((low - f1_band) / 3.0)
    open_ = _sigmoid((f1_high - f1_mid - 1.0) / 3.0)
    front = _sigmoid((f2_high - f2_low - 8.0) / 4.0)
    mid = (1.0 - close) * (1.0 - open_)
    return np.stack([(1.0 - close) * open_, close * front, close * (1.0 - front),
                     mid * front, mid * (1.0 - front)], axis=1)


def _smooth(values: np.ndarray, fps: float, attack_s: float, release_s: float) -> np.ndarray:
    """One-pole smoothing along frames; rising values use ``attack_s``, falling ``release_s``."""
    up = 1.0 - np.exp(-1.0 / (fps * attack_s))
    down = 1.0 - np.exp(-1.0 / (fps * release_s))
    out = np.empty_like(values)
    state = np.zeros(values.shape[1:]) if values.ndim > 1 else 0.0
    for i, value in enumerate(values):
        rate = np.where(value > state, up, down)
        state = state + rate * (value - state)
        out[i] = state
    return out


def mouth_track(pcm: bytes | np.ndarray, sample_rate: int, fps: float = 60.0) -> MouthTrack:
    """Analyse a clip: 16-bit little-endian mono PCM bytes (or an int16/float array) at
    ``sample_rate`` Hz (1000-384000) into viseme weights at ``fps`` (10-240) frames/s."""
    if not 1000 <= int(sample_rate) <= 384_000:
        raise ValueError(f"sample rate {sample_rate} Hz is outside 1000-384000 Hz")
    fps = float(min(240.0, max(10.0, fps)))
    x = _samples(pcm)
    duration = len(x) / sample_rate
    starts, win = _frames(x, int(sample_rate), fps)
    if not len(starts):
        return MouthTrack(fps, np.zeros((0, len(VISEMES))), 0.0)
    rms, bands = _features(x, starts, win, int(sample_rate))
    open_ = _smooth(_openness(rms), fps, ATTACK_S, RELEASE_S)
    colour = _smooth(_colour(bands), fps, COLOUR_S, COLOUR_S)
    colour /= np.maximum(colour.sum(axis=1, keepdims=True), 1e-9)
    weights = np.clip(colour * open_[:, None], 0.0, 1.0)
    weights[open_ < 1e-3] = 0.0
    return MouthTrack(fps, weights, duration)
