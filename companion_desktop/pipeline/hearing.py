"""What she hears, without Qt: the recogniser the hearing settings choose, and the
utterances in a recording as the microphone path would hear them.

The window (``ui.voice_in``) and the command line (``chat --audio``) share these, so a
spoken turn from a file takes the same road as one from the microphone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from companion_desktop.pipeline.key_hold import held_message, held_url
from companion_desktop.storage.settings import HearingSettings
from companion_desktop.voice.audio import with_lead_in
from companion_desktop.voice.listener import HearingOptions, ListenEvent
from companion_desktop.voice.stt import SttError, Transcriber, Transcript, missing_packages
from companion_desktop.voice.vad import FRAME, SpeechDetector

if TYPE_CHECKING:
    import httpx

Progress = Callable[[float, str], None]


def make_transcriber(settings: HearingSettings, cache_dir: Path, progress: Progress | None = None,
                     client: httpx.Client | None = None) -> Transcriber:
    """The recogniser ``settings`` choose, ready to use: the transcription server (its key
    from the keyring; ``client`` or a new one with a 60 s timeout), or local Whisper, whose
    model is assembled into ``cache_dir`` the first time (``progress(fraction, text)``) and
    loaded. Slow the first time: call it off a GUI thread. :class:`SttError` when it cannot
    run (no address, missing packages, a damaged model)."""
    if settings.backend == "server":
        if not (settings.base_url or "").startswith(("http://", "https://")):
            raise SttError("Set the speech-to-text server's address in Settings > Voice.")
        import httpx

        from companion_desktop.llm.transcription import RemoteTranscriber, transcription_key

        key, held = transcription_key(), held_url(settings)
        if key and held:  # a restored backup's address: no key until the user confirms it
            raise SttError(held_message("hearing", held))
        client = client or httpx.Client(timeout=httpx.Timeout(60.0, connect=5.0))
        return RemoteTranscriber(settings.base_url, settings.model, key, client)
    missing = missing_packages()
    if missing:
        raise SttError(missing)
    from companion_desktop.voice.whisper_files import open_local_whisper

    return open_local_whisper(cache_dir, progress)


def _events(samples: np.ndarray, options: HearingOptions,
            detector: SpeechDetector) -> Iterator[ListenEvent]:
    """What a listener (with the echo canceller, nothing playing) says as ``samples``
    (float32 16 kHz) are fed to it in frame-sized chunks, as the microphone feeds it, and
    then end; made as they are asked for."""
    from companion_desktop.voice.echo import EchoCanceller
    from companion_desktop.voice.listener import Listener

    listener = Listener(options, detector, echo=EchoCanceller())
    data = np.asarray(samples, dtype=np.float32).reshape(-1)
    yield from listener.press()
    for start in range(0, data.size, FRAME):
        yield from listener.feed(data[start:start + FRAME])
    yield from listener.end()


def heard_utterances(samples: np.ndarray, options: HearingOptions,
                     detector: SpeechDetector) -> list[np.ndarray]:
    """The utterances in ``samples`` (float32 16 kHz), each the audio a spoken turn is
    recognised from, as the microphone path hears them (:func:`_events`); an utterance
    still open at the end is finished there. Push-to-talk options hold the button for the
    whole recording."""
    return [event.audio for event in _events(samples, options, detector)
            if event.kind == "utterance"]


def holds_speech(samples: np.ndarray, settings: HearingSettings) -> bool:
    """Whether the microphone's voice detection, hands-free with the settings' sensitivity
    and pauses, hears someone start speaking in ``samples`` (float32 16 kHz); it stops
    listening there. ``VadUnavailable`` when the voice activity model cannot load."""
    events = _events(samples, hearing_options(settings, "hands_free"), SpeechDetector())
    return any(event.kind == "speech_started" for event in events)


def hearing_options(settings: HearingSettings, mode: str | None = None) -> HearingOptions:
    """How the listener decides, from the settings (``mode`` overrides theirs)."""
    return HearingOptions(mode=mode or settings.mode, sensitivity=settings.sensitivity,
                          silence_s=settings.silence_s, max_s=settings.max_s)


def recognise_recording(samples: np.ndarray, settings: HearingSettings, cache_dir: Path,
                        progress: Progress | None = None,
                        client: httpx.Client | None = None) -> list[Transcript]:
    """What was said in a recording, one transcript per utterance (a spoken turn each),
    heard hands-free with the settings' sensitivity and pauses and recognised by their
    recogniser; utterances recognised as nothing are left out. No recogniser is made when
    nothing sounded like speech. :class:`SttError`, ``VadUnavailable``."""
    # a recording may start on its first word; the microphone would have heard quiet first
    utterances = heard_utterances(with_lead_in(samples), hearing_options(settings, "hands_free"),
                                  SpeechDetector())
    if not utterances:
        return []
    transcriber = make_transcriber(settings, cache_dir, progress, client)
    heard = [transcriber.transcribe(audio, settings.language or None) for audio in utterances]
    return [transcript for transcript in heard if transcript.text.strip()]
