"""Hearing: captured samples in, "the user began speaking" and whole utterances out.

The capture (Qt in the app, a file in tests and ``bench``) hands :meth:`Listener.feed` any
number of float32 16 kHz samples; they are cut into 512-sample frames, her own voice is taken
out (:class:`~companion_desktop.voice.echo.EchoCanceller`) and each frame is scored by the
voice activity model. Two modes:

- ``hands_free``: an utterance starts after ``min_speech_s`` of speech (a short pause allowed)
  and ends after ``silence_s`` of silence or at ``max_s``; it keeps 0.3 s from before the
  start, and reaches back up to 1 s further for a short first word with a pause after it
  ("Wait, stop...": "Wait" alone is too short to start an utterance).
- ``push_to_talk``: :meth:`Listener.press` starts it at once, :meth:`Listener.release` ends
  it; silence before the first and after the last speech is trimmed (0.3 s kept each side).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from companion_desktop.voice.audio import SAMPLE_RATE
from companion_desktop.voice.echo import EchoCanceller
from companion_desktop.voice.vad import FRAME, SpeechDetector

Mode = Literal["hands_free", "push_to_talk"]
EventKind = Literal["level", "speech_started", "utterance", "discarded"]
FRAME_S = FRAME / SAMPLE_RATE
#: Audio kept from before an utterance's start, and around speech when trimming.
PRE_ROLL_S = 0.3
#: How far back before its start an utterance reaches for earlier speech, and the longest
#: pause between two pieces of speech that are taken as one utterance there.
LOOKBACK_S, LOOKBACK_GAP_S = 1.0, 0.5
#: Frames between two "level" events (about 16 a second).
LEVEL_EVERY = 2
#: Frames quieter than this (RMS) are never speech, whatever the model says.
QUIET_RMS = 0.002


def _clamp(value: float, low: float, high: float, default: float) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return default
    return default if number != number else min(high, max(low, number))


@dataclass(frozen=True)
class HearingOptions:
    """How the listener decides; out-of-range numbers are clamped, an unknown mode is
    hands-free."""

    mode: Mode = "hands_free"
    sensitivity: float = 0.5  # 0..1: higher hears quieter, less clear speech
    silence_s: float = 0.7
    max_s: float = 30.0
    min_speech_s: float = 0.25

    def __post_init__(self) -> None:
        if self.mode not in ("hands_free", "push_to_talk"):
            object.__setattr__(self, "mode", "hands_free")
        object.__setattr__(self, "sensitivity", _clamp(self.sensitivity, 0.0, 1.0, 0.5))
        object.__setattr__(self, "silence_s", _clamp(self.silence_s, 0.2, 5.0, 0.7))
        object.__setattr__(self, "max_s", _clamp(self.max_s, 1.0, 120.0, 30.0))
        object.__setattr__(self, "min_speech_s", _clamp(self.min_speech_s, 0.05, 2.0, 0.25))

    @property
    def threshold(self) -> float:
        """The speech probability a frame needs: 0.8 at sensitivity 0, 0.5 at 0.5, 0.2 at 1."""
        return 0.8 - 0.6 * self.sensitivity


@dataclass(frozen=True)
class ListenEvent:
    """``level``: ``rms`` 0..1 of what the microphone hears; ``speech_started``: the user
    began speaking (stop her: barge-in); ``utterance``: ``audio`` is the whole utterance;
    ``discarded``: an utterance dropped, ``reason`` says why. ``position``: the stream's
    sample count when it happened."""

    kind: EventKind
    position: int = 0
    rms: float = 0.0
    audio: np.ndarray | None = field(default=None, compare=False)
    reason: str = ""

    @property
    def seconds(self) -> float:
        """Length of ``audio`` in seconds (0 without)."""
        return 0.0 if self.audio is None else self.audio.size / SAMPLE_RATE


class Listener:
    """Feed it capture; it says when the user speaks and hands over what they said."""

    def __init__(self, options: HearingOptions, detector: SpeechDetector,
                 echo: EchoCanceller | None = None) -> None:
        self.options = options
        self.detector = detector
        self.echo = echo
        self.reset()

    def reset(self) -> None:
        """Forget everything in progress (an utterance being heard is dropped)."""
        self._pending = np.zeros(0, np.float32)
        self._position = 0
        self._frames_seen = 0
        # the frames before a start, with their verdicts: the pre-roll, the look back and
        # the run itself
        self._pre: deque[tuple[np.ndarray, bool]] = deque(maxlen=max(1, round(
            (PRE_ROLL_S + LOOKBACK_S + self.options.min_speech_s) / FRAME_S) + 3))
        self._run = 0  # speech frames in the current run (hands-free start)
        self._gap = 0  # non-speech frames inside that run
        self._active = False  # an utterance is being heard
        self._held = False  # push-to-talk button down
        self._frames: list[np.ndarray] = []
        self._speech: list[bool] = []
        self._silence = 0
        self.detector.reset()

    @property
    def hearing(self) -> bool:
        """True while an utterance is being heard."""
        return self._active

    @property
    def position(self) -> int:
        """Samples of capture taken in so far (whole frames), the events' timeline."""
        return self._position

    # -- capture in ----------------------------------------------------------------
    def feed(self, samples: np.ndarray) -> list[ListenEvent]:
        data = np.asarray(samples, dtype=np.float32).reshape(-1)
        if self._pending.size:
            data = np.concatenate([self._pending, data])
        whole = data.size // FRAME * FRAME
        self._pending = data[whole:].copy()
        events: list[ListenEvent] = []
        for start in range(0, whole, FRAME):
            events.extend(self._frame(data[start:start + FRAME]))
        return events

    def _frame(self, raw: np.ndarray) -> list[ListenEvent]:
        events: list[ListenEvent] = []
        self._position += FRAME
        self._frames_seen += 1
        if self._frames_seen % LEVEL_EVERY == 0:
            rms = float(np.sqrt(np.mean(raw.astype(np.float64) ** 2)))
            events.append(ListenEvent("level", self._position, rms=min(1.0, rms)))
        frame = self.echo.clean(raw) if self.echo is not None else raw
        loud = float(np.sqrt(np.mean(frame.astype(np.float64) ** 2))) >= QUIET_RMS
        speech = self.detector.probability(frame) >= self.options.threshold and loud
        if self.options.mode == "push_to_talk":
            if self._held:
                self._frames.append(frame.copy())
                self._speech.append(speech)
                if len(self._frames) * FRAME_S >= self.options.max_s:
                    events.extend(self._finish_push())
            return events
        if self._active:
            return events + self._continue(frame, speech)
        return events + self._wait(frame, speech)

    def end(self) -> list[ListenEvent]:
        """The capture ended (the end of a file): the samples short of a frame are heard
        with silence after them, and an utterance under way is finished now (hands-free)
        or released (push-to-talk)."""
        events: list[ListenEvent] = []
        if self._pending.size:
            events.extend(self.feed(np.zeros(FRAME - self._pending.size, np.float32)))
        if self.options.mode == "push_to_talk":
            return events + self.release()
        if self._active:
            events.extend(self._finish(trim_end=True))
        return events

    # -- hands-free --------------------------------------------------------------------
    def _wait(self, frame: np.ndarray, speech: bool) -> list[ListenEvent]:
        if speech:
            self._run += 1
            self._gap = 0
        elif self._run:
            self._gap += 1
            if self._gap > 2:
                self._run = self._gap = 0
        if self._run and self._run * FRAME_S >= self.options.min_speech_s:
            before = list(self._pre)[self._reach_back():]
            self._frames = [f for f, _ in before] + [frame.copy()]
            self._speech = [s for _, s in before] + [True]
            self._active, self._silence, self._run, self._gap = True, 0, 0, 0
            self._pre.clear()
            return [ListenEvent("speech_started", self._position)]
        self._pre.append((frame.copy(), speech))
        return []

    def _reach_back(self) -> int:
        """Where in the frames before a start the utterance begins: :data:`PRE_ROLL_S`
        before its earliest speech, going back from the start's run over speech frames no
        more than :data:`LOOKBACK_GAP_S` apart, at most :data:`LOOKBACK_S` beyond the
        plain pre-roll."""
        verdicts = [s for _, s in self._pre]
        plain = max(0, len(verdicts) - 3
                    - round((PRE_ROLL_S + self.options.min_speech_s) / FRAME_S))
        gap = round(LOOKBACK_GAP_S / FRAME_S)
        earliest = len(verdicts)  # the start's own frame
        for i in range(len(verdicts) - 1, -1, -1):
            if earliest - i > gap + 1:
                break
            if verdicts[i]:
                earliest = i
        pad = round(PRE_ROLL_S / FRAME_S)
        return max(0, min(plain, earliest - pad))

    def _continue(self, frame: np.ndarray, speech: bool) -> list[ListenEvent]:
        self._frames.append(frame.copy())
        self._speech.append(speech)
        self._silence = 0 if speech else self._silence + 1
        if self._silence * FRAME_S >= self.options.silence_s:
            return self._finish(trim_end=True)
        if len(self._frames) * FRAME_S >= self.options.max_s:
            return self._finish(trim_end=False)
        return []

    def _finish(self, trim_end: bool) -> list[ListenEvent]:
        frames, speech = self._frames, self._speech
        self._frames, self._speech, self._active, self._silence = [], [], False, 0
        self._pre.clear()
        pad = round(PRE_ROLL_S / FRAME_S)
        if trim_end and any(speech):
            last = max(i for i, s in enumerate(speech) if s)
            frames = frames[: last + 1 + pad]
        return [self._result(frames, speech)]

    def _result(self, frames: list[np.ndarray], speech: list[bool]) -> ListenEvent:
        voiced = sum(speech) * FRAME_S
        if voiced < self.options.min_speech_s:
            reason = "no speech" if voiced == 0 else "too short"
            return ListenEvent("discarded", self._position, reason=reason)
        return ListenEvent("utterance", self._position, audio=np.concatenate(frames))

    # -- push-to-talk ------------------------------------------------------------------
    def press(self) -> list[ListenEvent]:
        """The talk button went down: hearing starts now (and she should stop talking)."""
        if self.options.mode != "push_to_talk" or self._held:
            return []
        self._held = self._active = True
        self._frames, self._speech = [], []
        return [ListenEvent("speech_started", self._position)]

    def release(self) -> list[ListenEvent]:
        """The talk button came up: what was said (trimmed), or why nothing was."""
        if not self._held:
            return []
        return self._finish_push()  # samples short of a frame (under 32 ms) are left out

    def _finish_push(self) -> list[ListenEvent]:
        frames, speech = self._frames, self._speech
        self._frames, self._speech, self._held, self._active = [], [], False, False
        if any(speech):
            pad = round(PRE_ROLL_S / FRAME_S)
            first = speech.index(True)
            last = len(speech) - 1 - speech[::-1].index(True)
            frames = frames[max(0, first - pad): last + 1 + pad]
            speech = speech[max(0, first - pad): last + 1 + pad]
        return [self._result(frames, speech)]
