"""Her own voice taken out of what the microphone hears (no headphones assumed).

:class:`EchoCanceller` keeps a reference of what she is playing (:meth:`~EchoCanceller.play`
is handed the same samples as the audio output), placed on the capture stream's timeline at
the moment it is handed over. For each captured frame it

1. finds the speaker-to-microphone delay (up to :data:`MAX_LAG_S`) by cross-correlating the
   recent capture with the reference (FFT), kept while it stays clear;
2. subtracts an adaptive estimate of the echo: a block NLMS filter of :data:`TAPS` taps
   placed around that delay (room reflections, the loudspeaker's colour), frozen while the
   user talks over her (double talk), so it never learns the user's voice away;
3. silences what is left when it is no louder than a share of the echo that was removed
   (residual echo; the whole echo's level for half a second while the filter settles),
   a frame no louder than the echo expected in it (her output ended before its reference
   did: what is left would be her voice, inverted), and everything while she plays but no
   delay has been found yet;
4. passes the capture through once :data:`ECHO_FREE_S` of her audible voice went by with
   no echo of it found (headphones, muted speakers), so the user can talk over her; the
   delay search goes on, and an echo found later is removed again.

What comes out is the user's voice alone: quiet while only she speaks, the user's words
when they talk over her (barge-in).
"""

from __future__ import annotations

import numpy as np

from companion_desktop.voice.audio import SAMPLE_RATE

#: The longest speaker-to-microphone delay looked for, in seconds (output latency included;
#: Bluetooth speakers and a busy sound server lag 0.2-0.4 s).
MAX_LAG_S = 0.5
MAX_LAG = int(MAX_LAG_S * SAMPLE_RATE)
#: Adaptive filter length and how many of its taps lie before the found delay.
TAPS, PRE = 256, 32
BLOCK = 32  # samples per NLMS update
STEP = 0.5  # NLMS step size (0..2)
#: Added to the reference power of a block: quieter reference (an RMS below 0.01) barely
#: moves the filter, so the microphone's noise in her pauses cannot blow it up.
REGULARISE = BLOCK * TAPS * 0.01 ** 2
#: Captured history used to find the delay, in samples (about 0.5 s).
CORR_SPAN = 8192
#: A delay is believed when the normalised correlation peak reaches this.
CORR_MIN = 0.35
#: Residual at or below this share of the removed echo's energy counts as leftover echo.
RESIDUAL_SHARE = 0.3
#: For this long after a delay is found the filter is settling: anything up to as loud as
#: the removed echo counts as echo.
SETTLE = SAMPLE_RATE // 2
#: A frame whose echo estimate is this quiet (RMS) is not treated as echo at all.
QUIET_RMS = 1e-4
#: Reference louder than this (RMS) would be heard if the speakers reached the microphone.
AUDIBLE_RMS = 0.003
#: After this much audible reference (seconds) whose echo had time to arrive and was not
#: found, the microphone is taken to hear none of her (headphones).
ECHO_FREE_S = 0.75


class EchoCanceller:
    """Removes her playback from captured audio; feed capture in order through :meth:`clean`."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self._pos = 0  # capture samples cleaned so far (the shared timeline)
        self._ref = np.zeros(0, np.float32)  # reference samples from _ref_base on
        self._ref_base = 0
        self._cap = np.zeros(0, np.float32)  # recent capture, ending at _pos
        self._delay: int | None = None
        self._weights = np.zeros(TAPS, np.float64)
        self._last_estimate = -CORR_SPAN
        self._found_at = 0
        self._unheard = 0  # audible reference samples whose echo was due and not found

    # -- what she plays ---------------------------------------------------------------
    def play(self, samples: np.ndarray) -> None:
        """She starts (or goes on) playing ``samples`` (float32, 16 kHz) now, or right
        after what is still queued."""
        samples = np.asarray(samples, dtype=np.float32).reshape(-1)
        if samples.size == 0:
            return
        end = self._ref_base + self._ref.size
        if end < self._pos:  # nothing queued: it starts now, silence before it
            self._ref = np.concatenate([self._ref, np.zeros(self._pos - end, np.float32)])
        self._ref = np.concatenate([self._ref, samples])
        self._trim()

    def stop(self) -> None:
        """Her playback was stopped (barge-in): what was queued beyond now is dropped."""
        keep = max(0, self._pos - self._ref_base)
        self._ref = self._ref[:keep]

    @property
    def playing(self) -> bool:
        """True while her audio is playing or its echo may still arrive."""
        return self._ref_base + self._ref.size + MAX_LAG + TAPS > self._pos and self._has_ref()

    def _has_ref(self) -> bool:
        return self._ref.size > 0 and bool(np.any(self._ref[-min(self._ref.size, 1 << 20):]))

    # -- what the microphone heard ---------------------------------------------------
    def clean(self, captured: np.ndarray) -> np.ndarray:
        """``captured`` (the next samples of the capture stream) without her voice."""
        captured = np.asarray(captured, dtype=np.float32).reshape(-1)
        out = np.empty_like(captured)
        for start in range(0, captured.size, 512):
            out[start:start + 512] = self._clean_frame(captured[start:start + 512])
        return out

    def _reference(self, first: int, count: int) -> np.ndarray:
        """Reference samples at timeline positions ``first .. first+count`` (0 outside)."""
        out = np.zeros(count, np.float32)
        lo, hi = max(first, self._ref_base), min(first + count, self._ref_base + self._ref.size)
        if hi > lo:
            out[lo - first:hi - first] = self._ref[lo - self._ref_base:hi - self._ref_base]
        return out

    def _clean_frame(self, frame: np.ndarray) -> np.ndarray:
        n = frame.size
        history = self._reference(self._pos - MAX_LAG - TAPS, MAX_LAG + TAPS + n)
        self._cap = np.concatenate([self._cap, frame])[-CORR_SPAN:]
        self._pos += n
        if not np.any(history):
            self._trim()
            return frame.copy()
        if self._delay is None or self._pos - self._last_estimate >= 4 * 512:
            self._estimate_delay()
        if self._delay is None:
            self._trim()
            if self.echo_free:
                return frame.copy()  # headphones: none of her reaches the microphone
            self._count_unheard(history[:n])
            return np.zeros_like(frame)  # she is playing and her echo is not located yet
        residual, echo = self._filter(frame)
        self._trim()
        echo_energy = float(np.dot(echo, echo))
        share = RESIDUAL_SHARE if self._pos - self._found_at > SETTLE else 1.0
        if echo_energy / n > QUIET_RMS ** 2 and (
                float(np.dot(residual, residual)) <= share * echo_energy
                or float(np.dot(frame, frame)) <= echo_energy):  # no more than her echo
            return np.zeros_like(frame)
        return residual.astype(np.float32)

    @property
    def echo_free(self) -> bool:
        """True once her voice went unheard by the microphone (headphones): until an echo
        is found, the capture passes through as it is."""
        return self._delay is None and self._unheard >= ECHO_FREE_S * SAMPLE_RATE

    def _count_unheard(self, due: np.ndarray) -> None:
        """``due``: the reference a full :data:`MAX_LAG` (and filter) ago, whose echo has had
        time to arrive; counted when it was loud enough to be heard."""
        if float(np.sqrt(np.mean(due.astype(np.float64) ** 2))) >= AUDIBLE_RMS:
            self._unheard += due.size

    def _filter(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Block NLMS over the taps around the delay: (residual, echo estimate)."""
        n = frame.size
        first = self._pos - n - self._delay + PRE - TAPS + 1
        ref = self._reference(first, n + TAPS - 1).astype(np.float64)
        rows = np.lib.stride_tricks.sliding_window_view(ref, TAPS)[:, ::-1]  # row i: x[i]...
        residual = np.empty(n, np.float64)
        echo = np.empty(n, np.float64)
        for b in range(0, n, BLOCK):
            x = rows[b:b + BLOCK]
            d = frame[b:b + BLOCK].astype(np.float64)
            y = x @ self._weights
            e = d - y
            echo[b:b + BLOCK], residual[b:b + BLOCK] = y, e
            power = float(np.einsum("ij,ij->", x, x))
            if power > REGULARISE and not self._double_talk(d, y, e):
                self._weights += STEP * (x.T @ e) / (power + REGULARISE)
        return residual, echo

    def _double_talk(self, mic: np.ndarray, echo: np.ndarray, residual: np.ndarray) -> bool:
        """The user talks over her: far more is left than a settled filter leaves."""
        removed = float(np.dot(echo, echo))
        return removed > 1e-8 and float(np.dot(residual, residual)) > 2.0 * removed

    def _estimate_delay(self) -> None:
        """Cross-correlate the recent capture with the reference over lags 0..MAX_LAG."""
        self._last_estimate = self._pos
        cap = self._cap.astype(np.float64)
        m = cap.size
        if m < 1024:
            return
        ref = self._reference(self._pos - m - MAX_LAG, m + MAX_LAG).astype(np.float64)
        if not np.any(ref):
            return
        size = 1 << int(np.ceil(np.log2(m + ref.size)))
        spectrum = np.fft.rfft(ref, size) * np.conj(np.fft.rfft(cap, size))
        corr = np.fft.irfft(spectrum, size)[: MAX_LAG + 1]  # corr[k] = sum cap[i] ref[i + k]
        # capture[i] echoes ref[i + MAX_LAG - delay]: lag k = MAX_LAG - delay
        energy = np.concatenate([[0.0], np.cumsum(ref * ref)])
        windows = energy[m:m + MAX_LAG + 1] - energy[: MAX_LAG + 1]  # ref[k:k+m] energies
        score = corr / (np.sqrt(np.maximum(windows, 0.0) * float(np.dot(cap, cap))) + 1e-12)
        best = int(np.argmax(score))
        if score[best] < CORR_MIN:
            return
        delay = MAX_LAG - best
        if self._delay is None or abs(delay - self._delay) > PRE // 2:
            if self._delay is not None:
                self._weights[:] = 0.0
            self._delay, self._unheard = delay, 0
            self._found_at = self._pos
            gain = float(corr[best] / (windows[best] + 1e-12))
            self._weights[PRE] = gain if not np.any(self._weights) else self._weights[PRE]

    def _trim(self) -> None:
        """Drop reference older than the filter and delay search can use."""
        oldest = self._pos - CORR_SPAN - MAX_LAG - TAPS - 512
        drop = oldest - self._ref_base
        if drop > 0:
            self._ref = self._ref[drop:]
            self._ref_base = oldest
