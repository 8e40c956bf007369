"""Her voice: speech synthesized off the GUI thread, played back to back, with lip-sync.

:class:`VoiceOut` takes the parts of a reply (``engine.speech.SpokenPart``), synthesizes
them in order on the UI's background pool (the first plays as soon as it is ready
while the next one synthesizes) and plays them on the default audio output through a
``QAudioSink``. The playback position comes from the sink's ``processedUSecs()``, so
the mouth follows what is heard. Without an audio output (CI, Xvfb) a clip plays
"silently" on a monotonic clock: timing, the mouth and the signals work the same.

``started`` fires when the first clip of a reply begins, ``finished`` when the last one
ends or speech is stopped (only after a ``started``). ``failed(message)`` fires at most
once per reply when synthesis fails; it ends that reply's speech at once and takes the
place of ``finished`` (the reply's text stays on screen either way).

:class:`BoundVoice` applies the user's voice and speed (``VoiceSettings``) to a backend;
a ``backend_factory`` returns one (or a bare backend, which speaks in its default voice).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QTimer, Signal
from PySide6.QtMultimedia import QAudioSink, QMediaDevices, QtAudio

from companion_desktop.avatar.lipsync import MouthTrack, mouth_track
from companion_desktop.engine.speech import SpokenPart
from companion_desktop.llm.tts import SpeechAudio, TtsError, Voice, VoiceOptions, create_tts
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.voice.audio_out import fit_to_device

log = logging.getLogger(__name__)

#: How often playback is checked for the end of a clip (milliseconds).
TICK_MS = 15
#: Lip-sync frames per second of audio.
MOUTH_FPS = 60.0

TtsBackend = Any  # EspeakBackend | OpenAISpeechBackend (duck-typed: synthesize, voices)
BackendFactory = Callable[[], "TtsBackend | None"]


@dataclass(frozen=True)
class BoundVoice:
    """``backend`` speaking with ``voice`` (None: its default) at ``rate`` (0.5-2.0) times
    its own speed; a part's own rate multiplies that (the product is clamped to 0.5-2.0)."""

    backend: TtsBackend
    voice: str | None = None
    rate: float = 1.0

    @classmethod
    def from_settings(cls, settings: Any, api_key: str | None,
                      client: Any = None) -> BoundVoice:
        """The backend ``settings`` (a ``VoiceSettings``) choose, with its voice and rate."""
        return cls(create_tts(settings, api_key, client), settings.voice or None,
                   float(settings.rate))

    def voices(self) -> list[Voice]:
        return list(self.backend.voices())

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        options = options or VoiceOptions()
        return self.backend.synthesize(
            text, voice or self.voice, VoiceOptions(options.rate * self.rate, options.pitch))


@dataclass(frozen=True)
class Clip:
    """One synthesized part: its audio and the mouth weights over its duration."""

    audio: SpeechAudio
    track: MouthTrack
    text: str = ""  # what she says in it (her hearing knows her own words)


def render_part(backend: TtsBackend, part: SpokenPart) -> Clip:
    """Synthesize ``part`` with ``backend`` and compute its mouth track (a pool thread)."""
    options = VoiceOptions(rate=part.rate, pitch=part.pitch)
    audio = backend.synthesize(part.text, None, options)
    return Clip(audio, mouth_track(audio.pcm, audio.sample_rate, fps=MOUTH_FPS), part.text)


def attempt(backend: TtsBackend, part: SpokenPart) -> Clip | Exception:
    """:func:`render_part`, with a failure returned instead of raised (and without its
    traceback, whose frames would keep the pool's job objects alive)."""
    try:
        return render_part(backend, part)
    except Exception as error:  # noqa: BLE001 - reported on the GUI thread
        return error.with_traceback(None)


def has_audio_output() -> bool:
    """True when the system offers an audio output device."""
    return bool(QMediaDevices.audioOutputs())


class Playback(QObject):
    """Plays one clip: on the default output when there is one, else on ``clock``.

    ``position()`` is the seconds heard so far (0..duration); ``done()`` is True once the
    whole clip was played.
    """

    def __init__(self, clip: Clip, clock: Callable[[], float], audible: bool,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clip = clip
        self.clock = clock
        self.duration = len(clip.audio.pcm) / 2 / max(1, clip.audio.sample_rate)
        self.sink: QAudioSink | None = None
        self.buffer: QBuffer | None = None
        self.t0 = clock()
        if audible:
            self._open_sink()

    def _open_sink(self) -> None:
        device = QMediaDevices.defaultAudioOutput()
        fitted = None if device.isNull() else fit_to_device(self.clip.audio.pcm,
                                                             self.clip.audio.sample_rate, device)
        if fitted is None:
            log.info("no audio output for %d Hz speech; speaking silently",
                     self.clip.audio.sample_rate)
            return
        data, fmt = fitted
        self.buffer = QBuffer(self)
        self.buffer.setData(QByteArray(data))
        self.buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        self.sink = QAudioSink(device, fmt, self)
        self.sink.start(self.buffer)
        if self.sink.error() != QtAudio.Error.NoError:
            log.info("audio output refused the clip (%s); speaking silently", self.sink.error())
            self._drop_sink()
        self.t0 = self.clock()

    def _drop_sink(self) -> None:
        if self.sink is not None:
            self.sink.stop()
            self.sink.deleteLater()
            self.sink = None

    def position(self) -> float:
        """Seconds of the clip heard so far, 0..duration."""
        if self.sink is not None:
            heard = self.sink.processedUSecs() / 1e6
        else:
            heard = self.clock() - self.t0
        return min(self.duration, max(0.0, heard))

    def done(self) -> bool:
        if self.sink is None:
            return self.clock() - self.t0 >= self.duration
        state = self.sink.state()
        drained = self.buffer is not None and self.buffer.atEnd()
        if state == QtAudio.State.StoppedState and self.sink.error() != QtAudio.Error.NoError:
            log.info("audio output failed mid-clip (%s); speaking silently", self.sink.error())
            self._drop_sink()
            return self.done()
        return (state == QtAudio.State.IdleState and drained) or state == QtAudio.State.StoppedState

    def stop(self) -> None:
        self._drop_sink()
        self.deleteLater()


class VoiceOut(QObject):
    """Speaks replies; ``backend_factory()`` gives the TTS backend, or None when voice is off.

    The backend is created on first use and cached until :meth:`reload`. ``clock`` is a
    monotonic time in seconds (used when there is no audio output). ``audible`` None
    looks for an audio output at each clip; False always plays silently.
    """

    started = Signal()
    finished = Signal()
    failed = Signal(str)
    #: The SpeechAudio now playing and its words (her hearing removes it, and drops an
    #: utterance made of those words).
    clip_started = Signal(object, str)

    def __init__(self, backend_factory: BackendFactory, parent: QObject | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 audible: bool | None = None) -> None:
        super().__init__(parent)
        self._factory = backend_factory
        self._clock = clock
        self._audible = audible
        self._backend: TtsBackend | None = None
        self._generation = 0
        self._pending: deque[SpokenPart] = deque()
        self._ready: deque[Clip] = deque()
        self._synthesizing = False
        self._playback: Playback | None = None
        self._speaking = False
        self._reported = False
        self._timer = QTimer(self, interval=TICK_MS, timeout=self._tick)

    @property
    def speaking(self) -> bool:
        """True from ``started`` until ``finished``."""
        return self._speaking

    @property
    def busy(self) -> bool:
        """True while a reply is being synthesized or played."""
        return self._synthesizing or self._playback is not None or bool(self._ready)

    def reload(self) -> None:
        """The voice settings changed: the next reply creates a fresh backend."""
        self._backend = None

    def say(self, parts: Sequence[SpokenPart]) -> None:
        """Speak ``parts`` in order (stopping any speech in progress)."""
        self.stop()
        self._reported = False
        wanted = [part for part in parts if part.text.strip()]
        if not wanted:
            return
        backend = self._get_backend()
        if backend is None:
            return
        self._pending = deque(wanted)
        self._synth_next(backend)

    def stop(self) -> None:
        """Stop speaking now and drop the parts not yet synthesized."""
        self._generation += 1
        self._pending.clear()
        self._ready.clear()
        self._synthesizing = False
        if self._playback is not None:
            self._playback.stop()
            self._playback = None
        self._finish()

    def mouth(self) -> dict[str, float] | None:
        """Viseme weights (aa, ih, ou, ee, oh; 0..1) at the heard position; None when silent."""
        playback = self._playback
        if playback is None:
            return None
        return playback.clip.track.at(playback.position())

    # ------------------------------------------------------------ synthesis
    def _get_backend(self) -> TtsBackend | None:
        if self._backend is None:
            try:
                self._backend = self._factory()
            except Exception as error:  # noqa: BLE001 - shown to the user, never raised
                self._report(error)
                return None
        return self._backend

    def _synth_next(self, backend: TtsBackend) -> None:
        if not self._pending:
            self._synthesizing = False
            self._advance()
            return
        part = self._pending.popleft()
        generation = self._generation
        self._synthesizing = True
        run_in_background(
            self, lambda: attempt(backend, part),
            lambda clip: self._synthesized(generation, backend, clip),
            lambda error: self._synth_failed(generation, error),
        )

    def _synthesized(self, generation: int, backend: TtsBackend,
                     clip: Clip | Exception) -> None:
        if isinstance(clip, Exception):
            self._synth_failed(generation, clip)
            return
        if generation != self._generation:
            return
        self._ready.append(clip)
        self._synth_next(backend)
        self._advance()

    def _synth_failed(self, generation: int, error: Exception) -> None:
        if generation != self._generation:
            return
        self._speaking = False  # failed takes the place of finished
        self.stop()
        self._report(error)

    def _report(self, error: BaseException) -> None:
        if self._reported:
            return
        self._reported = True
        if isinstance(error, TtsError):
            message = str(error)
        else:
            log.warning("speech failed", exc_info=error)
            message = f"Her voice failed ({type(error).__name__}); the reply is shown as text."
        self.failed.emit(message)

    # ------------------------------------------------------------- playback
    def _tick(self) -> None:
        if self._playback is not None and self._playback.done():
            self._playback.stop()
            self._playback = None
            self._advance()

    def _advance(self) -> None:
        """Start the next ready clip when nothing plays; finish when nothing is left."""
        if self._playback is not None:
            return
        if self._ready:
            audible = has_audio_output() if self._audible is None else self._audible
            self._playback = Playback(self._ready.popleft(), self._clock, audible, self)
            self._timer.start()
            self.clip_started.emit(self._playback.clip.audio, self._playback.clip.text)
            if not self._speaking:
                self._speaking = True
                self.started.emit()
        elif not self._synthesizing:
            self._finish()

    def _finish(self) -> None:
        self._timer.stop()
        if self._speaking:
            self._speaking = False
            self.finished.emit()
