"""The neural voice as the app's speech backend (``voices``, ``synthesize``, ``available``).

:class:`NeuralBackend` speaks with Kokoro's built-in voices, imported Kokoro voice files
and imported Piper voices, on the CPU. The model loads at the first synthesis (joined
into ``<data>/cache/kokoro/`` the first time, ``progress`` hearing how it goes); any
thread may call it, and every load and synthesis runs, one at a time, on the backend's
own thread at a lower priority (``worker``), so her drawing keeps its pace. Text is read a
sentence at a time: a sentence with kana or kanji in Japanese (Kokoro only, with the
optional Japanese reader), any other in ``language`` through espeak-ng's IPA; the
sentences are joined with a short pause and the silence at either end trimmed.
``VoiceOptions.rate`` is the speaking speed; ``pitch`` is ignored (these models have no
pitch control). Every failure is a :class:`TtsError` a user can act on.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from companion_desktop.engine.speech_sentences import cut_words, is_japanese, split_sentences
from companion_desktop.llm.neural_voice import audio, catalog, japanese, kokoro_files
from companion_desktop.llm.neural_voice.catalog import DEFAULT_VOICE, KOKORO, KOKORO_FILE, PIPER
from companion_desktop.llm.neural_voice.errors import VoiceFileError
from companion_desktop.llm.neural_voice.espeak_ipa import EspeakPhonemizer
from companion_desktop.llm.neural_voice.kokoro import SAMPLE_RATE, KokoroModel
from companion_desktop.llm.neural_voice.kokoro_phonemes import to_kokoro, token_ids
from companion_desktop.llm.neural_voice.piper import PiperVoice, parse_config
from companion_desktop.llm.neural_voice.runtime import DEFAULT_THREADS
from companion_desktop.llm.neural_voice.worker import SynthesisThread
from companion_desktop.llm.tts import VoiceOptions, cap_text
from companion_desktop.llm.wav import SpeechAudio, TtsError

#: Language codes -> the espeak-ng voice that reads them for Kokoro.
ESPEAK_FOR = {"en": "en-us", "en-us": "en-us", "en-gb": "en-gb"}
#: Characters of IPA given to a Piper voice at once (about two ids each).
PIPER_PIECE = 800


class NeuralBackend:
    """Neural voices for the data folder ``data_dir`` (imported voices and the model's
    cache live there). ``language`` reads sentences without kana or kanji (``en`` by
    default; another espeak-ng language code works roughly; ``ja`` reads them as English,
    never with Japanese phonemes); ``threads`` 1-8."""

    def __init__(self, data_dir: Path, language: str = "en", threads: int = DEFAULT_THREADS,
                 progress: kokoro_files.Progress | None = None,
                 espeak: str = "espeak-ng") -> None:
        self.data_dir = Path(data_dir)
        self.language = (language or "en").lower()
        self.threads = threads
        self.progress = progress
        self.phonemizer = EspeakPhonemizer(espeak)
        self._lock = threading.Lock()
        self._kokoro: KokoroModel | None = None
        self._vocab: dict[str, int] = {}
        self._styles: dict[str, np.ndarray] = {}
        self._japanese = japanese.JapaneseReader()
        self._piper: tuple[str, PiperVoice] | None = None
        self._thread: SynthesisThread | None = None  # every model call runs there

    def available(self) -> bool:
        """True when Kokoro is installed and espeak-ng found (what the default voice needs)."""
        return kokoro_files.missing() is None and self.phonemizer.available()

    def voices(self) -> list[catalog.NeuralVoice]:
        """The built-in voices, then the imported ones (see :mod:`.catalog` for the ids)."""
        return catalog.list_voices(self.data_dir)

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        """Speak ``text`` (capped like every backend's) with ``voice`` (an id from
        :meth:`voices`; None for :data:`~.catalog.DEFAULT_VOICE`). Empty text gives
        empty audio; 16-bit mono PCM at the voice's rate (Kokoro 24 kHz)."""
        return self._worker().call(lambda: self._synthesize(text, voice, options))

    def prepare(self, voice: str | None = None) -> None:
        """Load the model and ``voice`` now (joining the model first where needed), so the
        first reply is not kept waiting for them; returns when they are loaded. Runs on
        the synthesis thread like every model call, so a synthesis asked for meanwhile
        waits for this load instead of starting a second one."""
        self._worker().call(lambda: self._load(voice))

    def _load(self, voice: str | None) -> None:
        kind, name = catalog.parse_id(voice or DEFAULT_VOICE)
        with self._lock:
            if kind == PIPER:
                self._piper_voice(name)
                return
            self._style(kind, name)
            self._model()

    def _worker(self) -> SynthesisThread:
        with self._lock:
            if self._thread is None:
                self._thread = SynthesisThread()
            return self._thread

    def _synthesize(self, text: str, voice: str | None,
                    options: VoiceOptions | None) -> SpeechAudio:
        options = options or VoiceOptions()
        kind, name = catalog.parse_id(voice or DEFAULT_VOICE)
        text = cap_text(text)
        with self._lock:
            if kind == PIPER:
                return self._piper_speech(name, text, options.rate)
            if not text:
                return SpeechAudio(b"", SAMPLE_RATE)
            style = self._style(kind, name)
            model = self._model()
            pieces = [np.concatenate(model.speak(ids, style, options.rate, self._vocab.get(" ")))
                      for ids in self._sentence_ids(text)]
            return audio.speech(audio.join([p for p in pieces if p.size], SAMPLE_RATE),
                                SAMPLE_RATE)

    def close(self) -> None:
        """Let the loaded models go (the next synthesis loads them again)."""
        with self._lock:
            self._kokoro, self._piper = None, None

    # -- Kokoro -------------------------------------------------------------------------
    def _model(self) -> KokoroModel:
        if self._kokoro is None:
            path = kokoro_files.model_file(self.data_dir / "cache", self.progress)
            self._vocab = self._vocab or kokoro_files.load_vocab()
            try:
                self._kokoro = KokoroModel(path, self.threads)
            except TtsError:
                if kokoro_files.verify_fully(self.data_dir / "cache"):
                    raise
                kokoro_files.discard(self.data_dir / "cache")  # damaged: joined again once
                path = kokoro_files.model_file(self.data_dir / "cache", self.progress)
                self._kokoro = KokoroModel(path, self.threads)
        return self._kokoro

    def _style(self, kind: str, name: str) -> np.ndarray:
        key = f"{kind}:{name}"
        if key not in self._styles:
            if kind == KOKORO:
                voices = kokoro_files.load_voices()
                if name not in voices:
                    raise TtsError(f"There is no built-in voice \"{name}\" (there are "
                                   f"{', '.join(sorted(voices))}).")
                self._styles.update({f"{KOKORO}:{k}": v for k, v in voices.items()})
            else:
                self._styles[key] = self._imported_style(name)
        return self._styles[key]

    def _imported_style(self, name: str) -> np.ndarray:
        path = catalog.voices_dir(self.data_dir) / KOKORO / f"{name}.npy"
        if not path.is_file():
            raise TtsError(f"The voice {KOKORO_FILE}:{name} is not there any more; import it "
                           "again or pick another voice.")
        from companion_desktop.llm.neural_voice.voice_files import check_kokoro_voice

        return check_kokoro_voice(path)

    def _sentence_ids(self, text: str) -> list[list[int]]:
        """Token ids per sentence (Japanese or ``language``), empty ones left out."""
        if not self._vocab:
            self._vocab = kokoro_files.load_vocab()
        found = []
        for sentence in split_sentences(text):
            if is_japanese(sentence):
                phonemes = self._japanese(sentence)
            else:  # never Japanese phonemes for text without kana or kanji
                language = "en" if self.language.startswith("ja") else self.language
                espeak = ESPEAK_FOR.get(language, language)
                phonemes = to_kokoro(self.phonemizer.sentence_ipa(sentence, espeak), language)
            ids = token_ids(phonemes, self._vocab)
            if ids:
                found.append(ids)
        return found

    # -- Piper --------------------------------------------------------------------------
    def _piper_voice(self, name: str) -> PiperVoice:
        if self._piper is not None and self._piper[0] == name:
            return self._piper[1]
        model = catalog.voices_dir(self.data_dir) / PIPER / f"{name}.onnx"
        settings = model.with_name(model.name + ".json")
        try:
            config = parse_config(settings.read_bytes())
        except OSError:
            raise TtsError(f"The voice {PIPER}:{name} is not there any more; import it again "
                           "or pick another voice.") from None
        except VoiceFileError as exc:
            raise TtsError(f"The voice {PIPER}:{name} cannot be used: {exc}") from None
        self._piper = None  # one Piper voice loaded at a time
        self._piper = (name, PiperVoice(model, config, self.threads))
        return self._piper[1]

    def _piper_speech(self, name: str, text: str, rate: float) -> SpeechAudio:
        voice = self._piper_voice(name)
        sample_rate = voice.config.sample_rate
        pieces, skipped = [], 0
        for sentence in split_sentences(text):
            if is_japanese(sentence) and not voice.config.language.startswith("ja"):
                skipped += 1  # never read Japanese with another language's phonemes
                continue
            ipa = self.phonemizer.sentence_ipa(sentence, voice.config.espeak_voice)
            pieces += [voice.run(part, rate) for part in cut_words(ipa, PIPER_PIECE)]
        if skipped and not pieces:
            spoken = voice.config.language or "another language"
            raise TtsError(f"The voice {PIPER}:{name} reads {spoken}, not Japanese; pick a "
                           "Kokoro voice for Japanese text.")
        return audio.speech(audio.join(pieces, sample_rate), sample_rate)
