"""Her voice on the avatar: speech playback drives the talking clip, the lips and
how long the flash expression holds.

``VoiceLink`` sits between ``VoiceOut`` (synthesis + playback) and the
``AvatarHost``: while she speaks, the talking clip plays, the lip-sync weights of
the audio being heard reach the runtime every frame, and a flash started with
``speaking=True`` holds (up to 8 s, as the runtime's flash rules say) until the
speech ends.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer

from companion_desktop.engine.speech import SpokenPart
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
        self._lips = QTimer(self, interval=LIPS_MS, timeout=self._move_lips)
        self.voice.started.connect(self._on_started)
        self.voice.finished.connect(self._on_finished)
        self.voice.failed.connect(self._on_failed)

    @property
    def speaking(self) -> bool:
        return bool(self.voice.speaking)

    def say(self, parts: list[SpokenPart], expression: str | None = None) -> bool:
        """Speak ``parts``; the model's ``expression`` flashes and holds while she speaks.
        False when there is nothing to say (the caller shows the flash itself)."""
        parts = [p for p in parts if p.text.strip()]
        if not parts:
            return False
        runtime = self.host.runtime
        if runtime is not None and expression:
            runtime.flash(expression, speaking=True)
        self.voice.say(parts)
        return True

    def stop(self) -> None:
        self.voice.stop()

    def reload(self) -> None:
        """Voice settings changed: the next reply uses the new backend and voice."""
        self.voice.reload()

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
