"""Her voice: speech synthesized off the GUI thread, played back to back, with lip-sync.

:class:`VoiceOut` takes the parts of a reply (``engine.speech.SpokenPart``), synthesizes
them in order on the UI's background pool (the first plays as soon as it is ready
while the next one synthesizes) and plays them on the default audio output
(``playback.Playback``: the mouth follows what is heard; without an audio output, as in
CI, a clip plays "silently" on a monotonic clock).

A reply comes whole (:meth:`VoiceOut.say`) or a sentence at a time while it streams
(:meth:`~VoiceOut.begin`, :meth:`~VoiceOut.add` as each is final, :meth:`~VoiceOut.end`
when the reply is complete): each part is synthesized as soon as it is added, behind the
ones before it, so she speaks while the rest is still being written. Each part may carry
a speed factor (her mood) on top of the user's speed and its own ``rate``.

``started`` fires when the first clip of a reply begins, ``finished`` when the last one
ends (after ``end``: while a streaming reply is open, she waits for its next part in
silence) or speech is stopped (only after a ``started``). ``failed(message)`` fires at most
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
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from companion_desktop.avatar.lipsync import mouth_track
from companion_desktop.engine.speech import SpokenPart
from companion_desktop.engine.speech_stream import lead_clause
from companion_desktop.llm.tts import SpeechAudio, TtsError, Voice, VoiceOptions, create_tts
from companion_desktop.ui.background import run_in_background
from companion_desktop.ui.voice.playback import Clip, Playback, has_audio_output

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

    def prepare(self) -> None:
        """Load the backend's model and the chosen voice now, where it has such a thing
        (her natural voice); returns when loaded."""
        prepare = getattr(self.backend, "prepare", None)
        if prepare is not None:
            prepare(self.voice)

    def synthesize(self, text: str, voice: str | None = None,
                   options: VoiceOptions | None = None) -> SpeechAudio:
        options = options or VoiceOptions()
        return self.backend.synthesize(
            text, voice or self.voice, VoiceOptions(options.rate * self.rate, options.pitch))


def render_part(backend: TtsBackend, part: SpokenPart, factor: float = 1.0) -> Clip:
    """Synthesize ``part`` with ``backend`` and compute its mouth track (a pool thread).

    ``factor`` (her mood) multiplies the part's rate and the user's speed; the product
    is clamped to 0.5-2.0 once, where the backend's options are made."""
    if isinstance(backend, BoundVoice):
        backend = replace(backend, rate=backend.rate * factor)
        factor = 1.0
    options = VoiceOptions(rate=part.rate * factor, pitch=part.pitch)
    audio = backend.synthesize(part.text, None, options)
    return Clip(audio, mouth_track(audio.pcm, audio.sample_rate, fps=MOUTH_FPS), part.text)


def attempt(backend: TtsBackend, part: SpokenPart, factor: float = 1.0) -> Clip | Exception:
    """:func:`render_part`, with a failure returned instead of raised (and without its
    traceback, whose frames would keep the pool's job objects alive)."""
    try:
        return render_part(backend, part, factor)
    except Exception as error:  # noqa: BLE001 - reported on the GUI thread
        return error.with_traceback(None)


class VoiceOut(QObject):
    """Speaks replies; ``backend_factory()`` gives the TTS backend, or None when voice is off.

    The backend is created on first use and cached until :meth:`reload`. ``clock`` is a
    monotonic time in seconds (used when there is no audio output). ``audible`` None
    looks for an audio output at each clip; False always plays silently.
    """

    started = Signal()
    finished = Signal()
    #: The backend's model and voice are loaded (after :meth:`prepare`).
    prepared = Signal()
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
        self._pending: deque[tuple[SpokenPart, float]] = deque()  # (part, speed factor)
        self._ready: deque[Clip] = deque()
        self._synthesizing = False
        self._playback: Playback | None = None
        self._speaking = False
        self._reported = False
        self._live = False  # a reply takes parts (from begin until end, stop or failure)
        self._leading = False  # the next part added is the reply's first
        self._open = False  # more parts may come (from begin until end)
        self._timer = QTimer(self, interval=TICK_MS, timeout=self._tick)
        self.ready = False  # the backend's model is loaded (see prepare)

    @property
    def speaking(self) -> bool:
        """True from ``started`` until ``finished``."""
        return self._speaking

    @property
    def busy(self) -> bool:
        """True while a reply is being synthesized or played."""
        return self._synthesizing or self._playback is not None or bool(self._ready)

    @property
    def taking_parts(self) -> bool:
        """True while the reply begun last takes parts (not ended, stopped or failed)."""
        return self._live and self._open

    def reload(self) -> None:
        """The voice settings changed: the next reply creates a fresh backend."""
        self._backend = None
        self.ready = False

    def prepare(self) -> None:
        """With voice output on, load its model and voice now, off the GUI thread (her
        natural voice takes seconds to load; her first reply should not wait for that);
        ``prepared`` fires when done. A failure is logged, never shown: the first reply
        that needs the voice reports it."""
        backend = self._get_backend() if self._factory_allows() else None
        if backend is None or not hasattr(backend, "prepare"):
            return

        def loaded(_: object) -> None:
            if self._backend is backend:
                self.ready = True
                self.prepared.emit()

        run_in_background(self, backend.prepare, loaded,
                          lambda error: log.info("her voice did not load ahead: %s", error))

    def _factory_allows(self) -> bool:
        """True unless the backend could not be made (no error shown for a preparation)."""
        if self._backend is not None:
            return True
        try:
            self._backend = self._factory()
        except Exception as error:  # noqa: BLE001 - the first reply reports it
            log.info("her voice is not ready: %s", error)
            return False
        return self._backend is not None

    def say(self, parts: Sequence[SpokenPart], factor: float = 1.0) -> None:
        """Speak ``parts`` in order (stopping any speech in progress); ``factor`` multiplies
        their speed (her mood)."""
        self.begin()
        self.add(parts, factor)
        self.end()

    def begin(self) -> None:
        """A reply whose parts come while it streams: stops any speech in progress."""
        self.stop()
        self._reported = False
        self._live = self._open = True
        self._leading = True  # the reply's first part is cut after its first clause

    def add(self, parts: Sequence[SpokenPart], factor: float = 1.0) -> None:
        """Speak ``parts`` after those added before (ignored after ``end``, ``stop`` or a
        failure); synthesis starts now, off the GUI thread."""
        kept = [part for part in parts if part.text.strip()]
        if not kept or not self.taking_parts:
            return
        if self._leading:  # her voice starts with a short clause while it makes the rest
            kept, self._leading = lead_clause(kept), False
        wanted = [(part, factor) for part in kept]
        backend = self._get_backend()
        if backend is None:  # voice off, or its backend failed (reported)
            self._live = False
            return
        self._pending.extend(wanted)
        if not self._synthesizing:
            self._synth_next(backend)

    def end(self) -> None:
        """No more parts come: ``finished`` follows the last clip (at once when all of
        them have played)."""
        self._open = False
        self._advance()

    def stop(self) -> None:
        """Stop speaking now and drop the parts not yet played; the reply takes no more."""
        self._generation += 1
        self._live = self._open = False
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
        part, factor = self._pending.popleft()
        generation = self._generation
        self._synthesizing = True
        run_in_background(
            self, lambda: attempt(backend, part, factor),
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
        """Start the next ready clip when nothing plays; finish when nothing is left and no
        more can come (while a streaming reply is open, wait for its next part)."""
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
        elif self._synthesizing or (self._live and self._open):
            self._timer.stop()  # nothing to play until the next part is ready
        else:
            self._finish()

    def _finish(self) -> None:
        self._timer.stop()
        if self._speaking:
            self._speaking = False
            self.finished.emit()
