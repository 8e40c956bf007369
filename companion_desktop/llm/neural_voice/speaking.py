"""Her neural voice as the app speaks with it: each part read by a voice of its language.

:class:`SpeakingVoice` is the TtsBackend Settings > Voice's "Natural voice" gives (see
``llm.tts.create_tts``). For each part it is asked to say, the language comes from the
text (``engine.text_language``; the settings' language when the text cannot tell), and:

- the chosen voice reads it when it can: a Kokoro voice reads English and Japanese (the
  latter with the Japanese reader installed), a Piper voice its own language;
- else the first voice the user brought for that language (a German Piper voice for a
  German sentence), so a voice is chosen per language where the user has one;
- else espeak-ng in that language (never English phonemes for German words); with no
  espeak-ng either, the chosen voice.

One :class:`~.backend.NeuralBackend` per data folder is shared (:func:`shared_backend`),
so the model loaded for one reply stays for the next and for "Try voice".
:func:`configure` says which data folder the app uses (its voices and model cache).
"""

from __future__ import annotations

import threading
from pathlib import Path

from companion_desktop.engine.text_language import text_language
from companion_desktop.llm.neural_voice import catalog, japanese
from companion_desktop.llm.neural_voice.backend import NeuralBackend
from companion_desktop.llm.neural_voice.catalog import DEFAULT_VOICE, NeuralVoice
from companion_desktop.llm.tts import EspeakBackend, VoiceOptions
from companion_desktop.llm.wav import SpeechAudio, TtsError

#: The languages Kokoro's built-in voices read (Japanese with the Japanese reader).
KOKORO_READS = ("en", "ja")
_lock = threading.Lock()
_home: Path | None = None
_backends: dict[Path, NeuralBackend] = {}


def configure(data_dir: Path) -> None:
    """The data folder whose voices and model cache the app's voice uses."""
    global _home
    with _lock:
        _home = Path(data_dir)


def home() -> Path | None:
    """The data folder :func:`configure` set (None before)."""
    with _lock:
        return _home


def shared_backend(data_dir: Path) -> NeuralBackend:
    """The one NeuralBackend for ``data_dir`` (made on first use; loads nothing yet)."""
    key = Path(data_dir).resolve()
    with _lock:
        if key not in _backends:
            _backends[key] = NeuralBackend(key)
        return _backends[key]


def _base(language: str) -> str:
    return language.lower().replace("_", "-").split("-", 1)[0]


class SpeakingVoice:
    """The TtsBackend of the natural voice (see the module). ``language``: the one text
    that cannot tell is read in (default English)."""

    def __init__(self, neural: NeuralBackend, espeak: EspeakBackend | None = None,
                 language: str = "en") -> None:
        self.neural = neural
        self.espeak = espeak or EspeakBackend()
        self.language = _base(language or "en")

    def available(self) -> bool:
        return self.neural.available() or self.espeak.available()

    def voices(self) -> list[NeuralVoice]:
        return self.neural.voices()

    def reader(self, language: str, voice: str | None) -> tuple[str, str | None]:
        """("neural", voice id) or ("espeak", espeak-ng voice) for text in ``language``
        when ``voice`` is chosen (None: the default)."""
        chosen = voice or DEFAULT_VOICE
        voices = {v.id: v for v in self.neural.voices()}
        if self._reads(voices.get(chosen), language):
            return "neural", chosen
        for candidate in voices.values():
            if candidate.kind != catalog.KOKORO and self._reads(candidate, language):
                return "neural", candidate.id
        if self.espeak.available():
            return "espeak", language
        return "neural", chosen

    def _reads(self, voice: NeuralVoice | None, language: str) -> bool:
        if voice is None:
            return False
        if voice.kind == catalog.PIPER:
            return _base(voice.language) == language
        if language == "ja":
            return japanese.problem() is None
        return language in KOKORO_READS

    def prepare(self, voice: str | None = None) -> None:
        """Load what reads text in the voice's usual language (see
        :meth:`NeuralBackend.prepare`); nothing to load where espeak-ng reads it."""
        kind, reader = self.reader(self.language, voice)
        if kind == "neural":
            self.neural.prepare(reader)

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        """``text`` in its own language (see the module); TtsError as each backend's."""
        language = text_language(text) or self.language
        kind, reader = self.reader(language, voice)
        if kind == "neural":
            return self.neural.synthesize(text, reader, options)
        try:
            return self.espeak.synthesize(text, reader, options)
        except TtsError:  # espeak-ng has no voice for this language: hers, as well as she can
            return self.neural.synthesize(text, voice, options)
