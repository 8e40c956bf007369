"""``companion-desktop transcribe FILE``: what is said in an audio file, through the same
recogniser the app uses for the microphone.

The backend, language, server address and model come from Settings > Voice > Hearing
when the data folder has a database (it is not created here); the options override them.
The local model is assembled into the data folder's ``cache`` on first use (progress on
stderr). A file in which the microphone's voice detection hears no speech gives empty text
without asking the recogniser. Text and messages are printed without control characters
(a server's reply may hold escape codes). Exit 1 with one line for an unreadable file or a
recogniser that cannot run.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path

from companion_desktop.cli.common import (
    CliError,
    print_json,
    progress_line,
    saved_settings,
    terminal_text,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("transcribe", help="print what is said in an audio file (WAV, FLAC, MP3)")
    p.add_argument("file", type=Path)
    p.add_argument("--json", action="store_true",
                   help="print JSON: text, language, seconds (recognition time), backend")
    p.add_argument("--language", metavar="CODE", help="a language code like en; default: "
                   "the setting, else detected")
    p.add_argument("--backend", choices=("local", "server"), help="default: the setting")
    p.add_argument("--base-url", help="the transcription server's API root (with /v1)")
    p.add_argument("--model", help="the server's model name")


def _settings(data_dir: Path):
    from companion_desktop.storage.settings import HearingSettings

    return saved_settings(data_dir, HearingSettings)


def make_transcriber(backend: str, settings, data_dir: Path, args: argparse.Namespace):
    from companion_desktop.voice.stt import missing_packages

    if backend == "server":
        import httpx

        from companion_desktop.llm.transcription import RemoteTranscriber, transcription_key
        from companion_desktop.pipeline.key_hold import held_message, held_url

        url = args.base_url or settings.base_url or ""
        key, held = transcription_key(), None if args.base_url else held_url(settings)
        if key and held:  # a restored backup's address: no key until the user confirms it
            raise CliError(held_message("hearing", held))
        client = httpx.Client(timeout=httpx.Timeout(120.0, connect=10.0), follow_redirects=False)
        return RemoteTranscriber(url, args.model or settings.model, key, client)
    missing = missing_packages()
    if missing:
        raise CliError(missing)
    from companion_desktop.voice.whisper_files import open_local_whisper

    return open_local_whisper(data_dir / "cache", progress_line)


def _heard(audio, settings, backend: str, language: str | None, data_dir: Path,
           args: argparse.Namespace):
    """What the recogniser hears in ``audio``; empty text, without asking it, when the
    microphone's voice detection hears no speech (Whisper makes up words for silence:
    three quiet seconds came out as "you"). Without the voice activity model (a server
    backend without the voice packages) the recogniser alone decides."""
    from companion_desktop.pipeline.hearing import holds_speech
    from companion_desktop.voice.audio import SAMPLE_RATE
    from companion_desktop.voice.stt import Transcript, clean_language
    from companion_desktop.voice.vad import VadUnavailable

    try:
        speech = holds_speech(audio, settings)
    except VadUnavailable:
        speech = True
    if not speech:
        return Transcript("", clean_language(language) or "", 0.0, backend,
                          audio.size / SAMPLE_RATE)
    return make_transcriber(backend, settings, data_dir, args).transcribe(audio, language)


def run(args: argparse.Namespace, now: datetime | None = None) -> int:
    from companion_desktop.storage.paths import resolve_data_dir
    from companion_desktop.voice.audio import AudioFileError, load_audio, with_lead_in
    from companion_desktop.voice.stt import SttError

    data_dir = resolve_data_dir(args.data_dir)
    try:
        audio = with_lead_in(load_audio(args.file))  # a file may start on its first word
        settings = _settings(data_dir)
        backend = args.backend or settings.backend
        language = settings.language if args.language is None else args.language
        transcript = _heard(audio, settings, backend, language or None, data_dir, args)
    except (AudioFileError, SttError) as error:
        raise CliError(terminal_text(str(error))) from None  # a server's words among them
    if args.json:
        print_json({"text": transcript.text, "language": transcript.language,
                    "seconds": round(transcript.seconds, 3), "backend": transcript.backend,
                    "audioSeconds": round(transcript.audio_seconds, 3)})
    else:
        print(terminal_text(transcript.text))  # a server's reply: no escape codes
    return 0
