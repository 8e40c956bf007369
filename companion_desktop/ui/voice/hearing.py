"""Her hearing in the app: a sound source, the listener and speech to text, on the GUI side.

:class:`Hearing` follows the saved ``HearingSettings``. In "hands_free" the source (the
microphone, or a ``FileSource``) is open while the mode is on and not paused; in
"push_to_talk" only between ``press()`` and ``release()``; in "off" never. Chunks go to
``voice.listener.Listener`` on the GUI thread (voice activity is cheap); an utterance is
recognised on the UI's background pool (``ui.background``: quitting waits for it a
bounded time), one at a time. The model is made ready (``voice.whisper_files``, the
first time assembled with progress) as soon as a mode is turned on.

Signals: ``changed`` (settings applied), ``state_changed(state)`` with :data:`STATES`;
``level(rms 0..1)`` while open;
``speech_started`` (the barge-in trigger); ``heard(text)``; ``problem(message)`` for the
user (no microphone, a device gone, a missing or damaged model, a server error);
``progress(text)`` while the model is prepared ("" once it is ready).
``her_voice(samples, text)`` registers what she plays, so the echo canceller removes it
from what is heard, and an utterance made of her words while she spoke (her voice that got
past the canceller: slow speakers, the canceller settling) is dropped, never sent as a turn.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Signal

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.hearing import hearing_options, make_transcriber
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import HearingSettings, load_settings
from companion_desktop.ui.background import run_in_background
from companion_desktop.voice.her_words import HerWords, said_by_her

if TYPE_CHECKING:
    from companion_desktop.ui.voice.mic import AudioSource

log = logging.getLogger(__name__)

#: off: nothing open; ready: push-to-talk waiting for a press; paused: hands-free switched
#: off at the mic button; listening: the source is open; hearing: speech under way;
#: recognising: an utterance is being turned into text.
STATES = ("off", "ready", "paused", "listening", "hearing", "recognising")
SourceFactory = Callable[[HearingSettings], "AudioSource"]


def cache_folder(service: CompanionService) -> Path:
    """Where the assembled speech model lives: the data folder's ``cache``."""
    return Path(service.db.path).parent / "cache"


def microphone(settings: HearingSettings) -> AudioSource:
    """The chosen microphone (Qt Multimedia is loaded here, when hearing is first on)."""
    from companion_desktop.ui.voice.mic import MicSource

    return MicSource(settings.device_id)


class Hearing(QObject):
    changed = Signal()  # the settings were (re)applied: the mode may be another
    state_changed = Signal(str)
    level = Signal(float)
    speech_started = Signal()
    heard = Signal(str)
    problem = Signal(str)
    progress = Signal(str)

    def __init__(self, service: CompanionService, parent: QObject | None = None,
                 source_factory: SourceFactory | None = None,
                 cache_dir: Path | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.source_factory: SourceFactory = source_factory or microphone
        self.cache_dir = cache_dir or cache_folder(service)
        self.settings = HearingSettings()
        self.state = "off"
        self.paused = False
        self.source: AudioSource | None = None
        self.listener = None
        self.echo = None
        self._transcriber: object | None = None
        self._made_for: tuple | None = None
        self._lock = threading.Lock()
        self._queue: list[tuple[np.ndarray, list[str]]] = []  # (utterance, what she said)
        self.her_words = HerWords()
        self.dropped_as_hers = 0  # utterances of her own words left unsent (tests, logs)
        self._recognising = False
        self._generation = 0
        #: The last problem said (a view made after it shows it too); None once all is well.
        self.last_problem: str | None = None
        self.problem.connect(self._remember_problem)
        self.reload()

    def _remember_problem(self, message: str) -> None:
        self.last_problem = message

    @property
    def mode(self) -> str:
        return self.settings.mode

    # ------------------------------------------------------------ settings
    def reload(self) -> None:
        """Read the saved settings again and apply them."""
        try:
            with self.service.db.read_session() as session:
                settings = load_settings(session, HearingSettings)
        except StorageError as error:
            log.warning("hearing settings unreadable: %s", error)
            settings = HearingSettings()
        self.apply(settings)

    def apply(self, settings: HearingSettings) -> None:
        """Use ``settings`` from now on: the source closes and reopens as the mode says."""
        self._close_source()
        self.listener = None
        self._generation += 1
        self._queue.clear()
        self._recognising = False
        if _recogniser_key(settings) != self._made_for or settings.backend == "server":
            self._transcriber = None  # a server's key may have changed too
        self.settings = settings
        self.paused = False
        self.last_problem = None
        if settings.mode == "off":
            self._set_state("off")
        else:
            self.prepare()
            if settings.mode == "hands_free":
                self._open()
            else:
                self._set_state("ready")
        self.changed.emit()

    def set_paused(self, paused: bool) -> None:
        """Hands-free only: stop listening (the microphone closes) or listen again."""
        if self.mode != "hands_free":
            return
        self.paused = paused
        if paused:
            self._close_source()
            self._set_state("paused")
        else:
            self._open()

    # ------------------------------------------------------------ push-to-talk
    def press(self) -> None:
        """The push-to-talk button or key went down: the microphone opens."""
        if self.mode != "push_to_talk" or (self.source is not None and self.source.active):
            return
        if self._open():
            self._set_state("hearing")
            self._handle(self.listener.press())  # speech_started: she stops talking

    def release(self) -> None:
        """It came up: what was said is recognised and the microphone closes."""
        if self.mode != "push_to_talk" or self.source is None:
            return
        self.source.flush()
        events = self.listener.release() if self.listener is not None else None
        self._handle(events or [])
        self._close_source()
        if self.state == "hearing":
            self._set_state("ready")

    # ------------------------------------------------------------ her voice
    def her_voice(self, samples: np.ndarray, text: str = "") -> None:
        """She starts playing ``samples`` (float32 16 kHz), saying ``text``: heard back,
        they are removed, and her words are not taken for the user's. What the microphone
        captured and not yet delivered is heard first, so her voice is placed at now on
        the capture's timeline (after a busy moment the unread sound would put it too
        early, her echo beyond the delay the canceller looks for)."""
        if self.echo is not None:
            if self.source is not None and self.source.active:
                self.source.flush()
            self.echo.play(np.asarray(samples, dtype=np.float32))
        if self.listener is not None:
            self.her_words.said(self.listener.position, int(np.size(samples)), text)

    def her_voice_stopped(self) -> None:
        """Her playback was cut off (barge-in): the rest of it will not be heard."""
        if self.echo is not None:
            self.echo.stop()
        if self.listener is not None:
            self.her_words.cut(self.listener.position)

    # ------------------------------------------------------------ source
    def _make_listener(self) -> bool:
        if self.listener is not None:
            return True
        from companion_desktop.voice.echo import EchoCanceller
        from companion_desktop.voice.listener import Listener
        from companion_desktop.voice.vad import SpeechDetector, VadUnavailable

        settings = self.settings
        try:
            detector = SpeechDetector()
        except VadUnavailable as error:
            self._fail(str(error))
            return False
        self.echo = self.echo or EchoCanceller()
        self.listener = Listener(hearing_options(settings), detector, echo=self.echo)
        self.her_words = HerWords()  # a new listener starts a new timeline
        return True

    def _open(self) -> bool:
        if not self._make_listener():
            return False
        if self.source is None:
            self.source = self.source_factory(self.settings)
            self.source.chunk.connect(self._on_chunk)
            self.source.failed.connect(self._source_failed)
        if not self.source.active and not self.source.start():
            self._close_source()
            return False
        self.last_problem = None
        if self.mode == "hands_free":
            self._set_state("listening")
        return True

    def _close_source(self) -> None:
        source, self.source = self.source, None
        if source is not None:
            source.chunk.disconnect(self._on_chunk)
            source.failed.disconnect(self._source_failed)
            source.stop()
            source.deleteLater()
        if self.listener is not None:
            self.listener.reset()

    def _source_failed(self, message: str) -> None:
        self._close_source()
        self._fail(message)

    def _fail(self, message: str) -> None:
        self._set_state("paused" if self.mode == "hands_free" else
                        "ready" if self.mode == "push_to_talk" else "off")
        if self.mode == "hands_free":
            self.paused = True
        self.problem.emit(message)

    def close(self) -> None:
        """The microphone closes and pending recognitions are dropped (at quit)."""
        self._generation += 1
        self._close_source()

    # ------------------------------------------------------------ events
    def _on_chunk(self, samples: np.ndarray) -> None:
        if self.listener is not None:
            self._handle(self.listener.feed(samples))

    def _handle(self, events: list) -> None:
        for event in events:
            kind = event.kind
            if kind == "level":
                self.level.emit(float(getattr(event, "rms", getattr(event, "level", 0.0))))
            elif kind == "speech_started":
                self._set_state("hearing")
                self.speech_started.emit()
            elif kind == "utterance":
                start = event.position - int(np.size(event.audio))
                self._queue.append((event.audio, self.her_words.during(start, event.position)))
                self._next()
            elif kind == "discarded" and self.state == "hearing":
                self._set_state(self._resting())

    def _resting(self) -> str:
        if self._recognising:
            return "recognising"
        if self.mode == "hands_free":
            return "listening" if self.source is not None else "paused"
        return "ready" if self.mode == "push_to_talk" else "off"

    def _set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    # ------------------------------------------------------------ recognition
    def prepare(self) -> None:
        """Make the recogniser ready in the background (assembling the model the first time)."""
        if self._transcriber is not None or self.settings.backend != "local":
            return
        settings = self.settings
        run_in_background(self, lambda: self._recogniser(settings),
                          lambda _t: self.progress.emit(""),
                          lambda error: self._recognition_failed(self._generation, error))

    def _recogniser(self, settings: HearingSettings) -> object:
        """The recogniser for ``settings`` (a pool thread; made once, then kept)."""
        key = _recogniser_key(settings)
        with self._lock:
            if self._transcriber is None or self._made_for != key:
                self._transcriber = make_transcriber(settings, self.cache_dir, self._report)
                self._made_for = key
            return self._transcriber

    def _report(self, fraction: float, text: str) -> None:
        """The model's first-time preparation (a pool thread; the signal crosses over)."""
        try:
            self.progress.emit(text if fraction < 1.0 else "")
        except RuntimeError:  # this object is gone (quitting): nobody to tell
            pass

    def _next(self) -> None:
        if self._recognising or not self._queue:
            return
        audio, hers = self._queue.pop(0)
        self._recognising = True
        self._set_state("recognising")
        settings, generation = self.settings, self._generation

        def work() -> str:
            transcriber = self._recogniser(settings)
            return transcriber.transcribe(audio, settings.language or None).text

        run_in_background(self, work, lambda text: self._recognised(generation, text, hers),
                          lambda error: self._recognition_failed(generation, error))

    def _recognised(self, generation: int, text: str, hers: list[str] | None = None) -> None:
        if generation != self._generation:
            return
        self._recognising = False
        self._set_state(self._resting())
        if text.strip() and said_by_her(text, hers or []):
            self.dropped_as_hers += 1
            log.info("an utterance of her own words was heard while she spoke; not sent")
        elif text.strip():
            self.heard.emit(text.strip())
        self._next()

    def _recognition_failed(self, generation: int, error: Exception) -> None:
        if generation != self._generation:
            return
        self._recognising = False
        self._queue.clear()
        self._set_state(self._resting())
        from companion_desktop.voice.stt import SttError

        if isinstance(error, SttError):
            self.problem.emit(str(error))
        else:
            log.warning("recognition failed", exc_info=error)
            self.problem.emit(f"Recognition failed ({type(error).__name__}); "
                              "typing works as always.")


def _recogniser_key(settings: HearingSettings) -> tuple:
    return (settings.backend, settings.base_url, settings.model)
