"""Her voice on the avatar: speech playback drives the talking clip, the lips and
how long the flash expression holds.

``VoiceLink`` sits between ``VoiceOut`` (synthesis + playback) and the
``AvatarHost``: while she speaks, the talking clip plays, the lip-sync weights of
the audio being heard reach the runtime every frame, and a flash started with
``speaking=True`` holds (up to 8 s, as the runtime's flash rules say) until the
speech ends.

Every reply goes to her voice one way: :meth:`VoiceLink.begin` when a turn starts,
:meth:`~VoiceLink.add` for each sentence that became final while the reply streams (said
at once), :meth:`~VoiceLink.end` with the finished reply's parts (what they still hold
after what was said: ``engine.speech_stream.remaining_speech``). A reply that arrives
whole (a reminder, her speaking first) is :meth:`~VoiceLink.say`: a turn with nothing
streamed. :meth:`~VoiceLink.stop` (a new message, Stop, a failed turn, the user talking
over her) silences her and drops the rest of that turn. Her mood sets her speed
(``engine.voice_mood``): the mood the turn began in for streamed sentences, the mood
after the turn (what the state panel shows then) for the rest.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from companion_desktop.engine.speech import SpokenPart
from companion_desktop.engine.speech_stream import remaining_speech
from companion_desktop.engine.voice_mood import voice_rate
from companion_desktop.llm import keys
from companion_desktop.llm.tts import TtsError
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.key_hold import held_message, held_url
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import VOICE_KEY_ID, VoiceSettings, load_settings
from companion_desktop.ui.avatar.host import AvatarHost
from companion_desktop.ui.voice.output import BoundVoice, VoiceOut

log = logging.getLogger(__name__)
LIPS_MS = 33  # lip-sync updates while she speaks (about 30 per second)


def tts_factory(service: CompanionService) -> Callable[[], object | None]:
    """Builds the configured speech backend on demand (None while voice is off; TtsError
    when its key would go to an address a restored backup brought, not yet confirmed)."""

    def make() -> object | None:
        try:
            with service.db.read_session() as session:
                settings = load_settings(session, VoiceSettings)
        except StorageError:
            return None
        if not settings.enabled:
            return None
        key = keys.get_key(VOICE_KEY_ID) if settings.backend == "openai" else None
        held = held_url(settings)
        if key and held:  # a restored backup's address: no key until the user confirms it
            raise TtsError(held_message("voice", held))
        return BoundVoice.from_settings(settings, key)  # her saved voice and speed

    return make


class VoiceLink(QObject):
    """Plays her replies aloud on the avatar; ``failed`` messages go to ``report``."""

    def __init__(self, service: CompanionService, host: AvatarHost,
                 report: Callable[[str], None] | None = None,
                 voice: VoiceOut | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.host = host
        self.voice = voice or VoiceOut(tts_factory(service), self)
        self.report = report
        self._said: list[SpokenPart] = []  # what this turn's reply has said so far
        self._lips = QTimer(self, interval=LIPS_MS, timeout=self._move_lips)
        self.voice.started.connect(self._on_started)
        self.voice.finished.connect(self._on_finished)
        self.voice.failed.connect(self._on_failed)

    @property
    def speaking(self) -> bool:
        return bool(self.voice.speaking)

    @property
    def busy(self) -> bool:
        """She speaks, or a part of hers is being synthesized or waits to play."""
        return bool(self.voice.speaking or self.voice.busy)

    def begin(self) -> None:
        """A turn began: what she was saying stops; its reply's sentences follow."""
        self.voice.begin()
        self._said = []

    def add(self, parts: list[SpokenPart], mood: object = None) -> None:
        """Sentences of the streaming reply that became final: said at once (after those
        before them), at the speed of ``mood`` (a ``MoodState``). Dropped once the turn
        was stopped or she was interrupted."""
        parts = [p for p in parts if p.text.strip()]
        if parts and self.voice.taking_parts:
            self._said += parts
            self.voice.add(parts, voice_rate(mood))

    def end(self, parts: list[SpokenPart], expression: str | None = None,
            mood: object = None) -> bool:
        """The reply is complete and ``parts`` is all it says: what was not said yet is
        said (none of it twice), at the speed of ``mood``; the model's ``expression``
        flashes and holds while she speaks. False when she says nothing more (the caller
        shows the flash itself); nothing is said once the turn was stopped."""
        if not self.voice.taking_parts:
            return False
        final = [p for p in parts if p.text.strip()]
        self.voice.add(remaining_speech(self._said, final), voice_rate(mood))
        self._said = []
        speaking = self.voice.busy
        runtime = self.host.runtime
        if speaking and runtime is not None and expression:
            runtime.flash(expression, speaking=True)
        self.voice.end()
        return speaking

    def say(self, parts: list[SpokenPart], expression: str | None = None,
            mood: object = None) -> bool:
        """A reply that came whole: ``parts`` said now (what she was saying stops); as
        :meth:`end`."""
        self.begin()
        return self.end(parts, expression, mood)

    def stop(self) -> None:
        """Silent now; the rest of this turn's reply is not said."""
        self.voice.stop()

    def reload(self) -> None:
        """Voice settings changed: the next reply uses the new backend and voice, which
        loads now when voice output is on."""
        self.voice.reload()
        self.voice.prepare()

    def _on_started(self) -> None:
        if self.host.director is not None:
            self.host.director.text_started()
        self._lips.start()

    def _move_lips(self) -> None:
        runtime = self.host.runtime
        if runtime is None:
            return
        runtime.set_visemes(self.voice.mouth())
        self.host.poke(0.5)

    def _on_finished(self) -> None:
        self._lips.stop()
        runtime = self.host.runtime
        if runtime is not None:
            runtime.set_visemes(None)
            runtime.speaking_ended()
        if self.host.director is not None:
            self.host.director.turn_ended()
        self.host.poke(2.0)

    def _on_failed(self, message: str) -> None:
        self._on_finished()
        if self.report is not None:
            self.report(message)
