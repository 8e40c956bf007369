"""``companion-desktop speak "TEXT" --out FILE.wav``: her voice, offline, into a WAV file.

The voice is ``--voice`` or the one saved in Settings > Voice (when the data folder has a
database; it is not created here) and the speed the saved rate. A neural voice id
(``kokoro:jf_alpha``, ``kokoro-file:NAME``, ``piper:NAME``; see
``llm.neural_voice``) is spoken by the neural backend, any other id by espeak-ng; with
no voice anywhere (or a speech server's voice saved) the default neural voice speaks.
The model is joined into the data folder's ``cache`` on first use (progress on stderr).
``--json`` prints backend, voice, audioSeconds, synthesisSeconds and sampleRate. Exit 1
with one line when the voice cannot speak or the file cannot be written.
"""

from __future__ import annotations

import argparse
import io
import os
import time
import wave
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import CliError, print_json, progress_line, saved_settings


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("speak", help="say a text with her offline voice into a WAV file")
    p.add_argument("text", help="what she says")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.wav",
                   help="the WAV file to write (16-bit mono)")
    p.add_argument("--voice", metavar="ID", help="a voice id (kokoro:jf_alpha, "
                   "kokoro-file:NAME, piper:NAME, or an espeak-ng voice such as en-us); "
                   "default: the saved one")
    p.add_argument("--language", metavar="CODE", default="en",
                   help="the language of text without kana or kanji (default en)")
    p.add_argument("--json", action="store_true", help="print JSON: backend, voice, "
                   "audioSeconds, synthesisSeconds, sampleRate")


def _backend(voice: str | None, saved_backend: str, data_dir: Path, language: str):
    """(backend name, backend, voice id) for ``voice`` (None: the saved or default one)."""
    from companion_desktop.llm.neural_voice import DEFAULT_VOICE, NeuralBackend, is_neural

    if voice and not is_neural(voice) and saved_backend != "openai":
        from companion_desktop.llm.tts import EspeakBackend

        return "espeak", EspeakBackend(), voice
    return "neural", NeuralBackend(data_dir, language, progress=progress_line), \
        voice if is_neural(voice) else DEFAULT_VOICE


def _write_wav(path: Path, pcm: bytes, rate: int) -> None:
    """``pcm`` (16-bit mono at ``rate`` Hz) as a WAV file at ``path``, whole or not at all."""
    data = io.BytesIO()
    with wave.open(data, "wb") as wav:
        wav.setparams((1, 2, rate, len(pcm) // 2, "NONE", "not compressed"))
        wav.writeframes(pcm)
    temp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        temp.write_bytes(data.getvalue())
        os.replace(temp, path)
    except OSError as exc:
        raise CliError(f"{path} could not be written ({exc.strerror or exc}).") from None
    finally:
        temp.unlink(missing_ok=True)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    from companion_desktop.cli.common import terminal_text  # a program's words in errors
    from companion_desktop.llm.tts import VoiceOptions
    from companion_desktop.llm.wav import TtsError
    from companion_desktop.storage.paths import resolve_data_dir
    from companion_desktop.storage.settings import VoiceSettings

    data_dir = resolve_data_dir(args.data_dir)
    settings = saved_settings(data_dir, VoiceSettings)
    if args.voice is not None and not args.voice.strip():
        raise CliError("--voice: give a voice id, e.g. kokoro:jf_alpha.")
    voice = args.voice or (settings.voice if settings.backend != "openai" else None)
    name, backend, voice = _backend(voice, "" if args.voice else settings.backend, data_dir,
                                    args.language)
    started = time.perf_counter()
    try:
        speech = backend.synthesize(args.text, voice, VoiceOptions(rate=settings.rate))
    except TtsError as error:
        raise CliError(terminal_text(str(error))) from None
    seconds = time.perf_counter() - started
    _write_wav(args.out, speech.pcm, speech.sample_rate)
    if args.json:
        print_json({"backend": name, "voice": voice, "audioSeconds": round(speech.duration, 3),
                    "synthesisSeconds": round(seconds, 3), "sampleRate": speech.sample_rate})
    return 0
