"""She speaks while her reply is still streaming: the real desktop, the real VoiceOut with
espeak-ng (played silently: no sound device here), a model on 127.0.0.1 writing a token
every 0.1 s (a CPU model at 10 tokens/s). Her first words play before the reply is
complete; she says exactly the words of the final reply, once; Stop, a failed stream and
the user talking over her silence her and drop what was still to come."""

from __future__ import annotations

import time

import pytest

from companion_desktop.engine.character import MoodState
from companion_desktop.engine.parse import parse_response
from companion_desktop.engine.speech import split_speech
from companion_desktop.engine.speech_stream import spoken_words
from companion_desktop.engine.voice_mood import mood_rate
from companion_desktop.llm.tts import EspeakBackend, VoiceOptions
from companion_desktop.storage import repository
from companion_desktop.storage.settings import VoiceSettings, load_settings, save_settings
from tests.conftest import T0
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script, reply_with_block
from tests.ui.voice.test_desktop_voice import pytestmark  # noqa: F401 - GL, Qt, espeak-ng

REPLY = "Oh, hello there! I missed you today. How was the long walk? Tell me all about it."
SPEED = 1.8  # the user's speed setting (short clips keep the tests short)
TOKEN_S = 0.1


def voice_on(service, rate: float = SPEED) -> None:
    with service.db.session() as session:
        settings = load_settings(session, VoiceSettings)
        settings.enabled, settings.rate = True, rate
        save_settings(session, settings)


def set_mood(service, emotion: str, intensity: int) -> None:
    with service.db.session() as session:
        state = repository.load_or_create_character(session, T0)
        repository.save_character(session, state.copy(mood=MoodState(emotion, intensity)))


class Ear:
    """What her voice and the turn did, with times (monotonic seconds)."""

    def __init__(self, desktop) -> None:  # noqa: ANN001
        self.clips: list[tuple[float, str, float]] = []  # (when, words, seconds of audio)
        self.texts: list[tuple[float, str]] = []
        self.done_at: float | None = None
        self.failed_at: float | None = None
        self.result = None
        controller = desktop.backend.controller
        desktop.voice.voice.clip_started.connect(
            lambda audio, text: self.clips.append((time.monotonic(), text, audio.duration)))
        controller.text.connect(lambda text: self.texts.append((time.monotonic(), text)))
        controller.done.connect(self._done)
        controller.failed.connect(lambda *_: setattr(self, "failed_at", time.monotonic()))

    def _done(self, result) -> None:  # noqa: ANN001
        self.done_at, self.result = time.monotonic(), result

    def words(self) -> list[str]:
        return [word for _, text, _ in self.clips for word in text.split()]

    def first_text_with(self, fragment: str) -> float:
        return next(when for when, text in self.texts if fragment in text)


def start(desktop, server, qtbot, script: Script) -> Ear:  # noqa: ANN001
    desktop.settings_applied()
    ear = Ear(desktop)
    server.scripts.append(script)
    assert desktop.send("I'm back from my walk!")
    return ear


def slow(reply: str = REPLY, delay: float = TOKEN_S, **options) -> Script:
    return Script(reply_with_block(reply), delay=delay, **options)


def test_she_starts_before_the_reply_is_complete_and_says_each_word_once(
        desktop, qtbot, server, service):
    voice_on(service)
    set_mood(service, "excited", 100)  # a little faster while this reply streams
    ear = start(desktop, server, qtbot, slow())
    qtbot.waitUntil(lambda: ear.result is not None, timeout=20000)
    assert ear.clips, "she said nothing while the reply streamed"
    assert ear.clips[0][0] < ear.done_at  # her first words came before the reply was complete
    # the first sentence was final when the second began; she spoke soon after
    assert ear.clips[0][0] - ear.first_text_with("there! I") < 1.5
    qtbot.waitUntil(lambda: not desktop.voice.busy, timeout=20000)
    final = split_speech(parse_response("".join(reply_with_block(REPLY))).text)[1]
    assert spoken_words(final) == spoken_words(ear.result.speech)
    assert [w.strip(",.!?").lower() for w in ear.words()] == spoken_words(final)
    # streamed sentences in the mood the turn began in, the rest in the mood after it
    espeak = EspeakBackend()
    first = espeak.synthesize(ear.clips[0][1], None,
                              VoiceOptions(SPEED * mood_rate("excited", 100)))
    assert ear.clips[0][2] == pytest.approx(first.duration, abs=0.02)
    mood = ear.result.mood
    last = espeak.synthesize(ear.clips[-1][1], None,
                             VoiceOptions(SPEED * mood_rate(mood.primary, mood.intensity)))
    assert ear.clips[-1][1] == "Tell me all about it."  # final only when the reply was
    assert ear.clips[-1][2] == pytest.approx(last.duration, abs=0.02)


def test_stop_mid_reply_silences_her_and_nothing_more_is_played(
        desktop, qtbot, server, service):
    voice_on(service)
    before = len(repository_turns(service))
    ear = start(desktop, server, qtbot, slow(REPLY * 2))
    qtbot.waitUntil(lambda: bool(ear.clips), timeout=20000)
    desktop.chat.stop()  # the Stop button
    stopped_at = time.monotonic()
    assert not desktop.voice.busy and not desktop.voice.speaking  # at once
    qtbot.waitUntil(lambda: ear.failed_at is not None, timeout=10000)
    qtbot.wait(800)
    assert all(when <= stopped_at for when, _, _ in ear.clips)
    assert not desktop.voice.busy and ear.result is None
    assert len(repository_turns(service)) == before  # a stopped turn saves nothing


def test_a_stream_that_fails_midway_silences_her(desktop, qtbot, server, service):
    voice_on(service)
    ear = start(desktop, server, qtbot, slow(REPLY * 2, cut_after=14))
    qtbot.waitUntil(lambda: ear.failed_at is not None, timeout=20000)
    assert ear.clips and ear.clips[0][0] < ear.failed_at  # she had begun
    assert not desktop.voice.busy and not desktop.voice.speaking
    qtbot.wait(800)
    assert all(when <= ear.failed_at for when, _, _ in ear.clips)


def test_talking_over_her_drops_what_was_still_to_come(desktop, qtbot, server, service):
    voice_on(service)
    ear = start(desktop, server, qtbot, slow())
    qtbot.waitUntil(lambda: bool(ear.clips), timeout=20000)
    desktop.chat.hearing.speech_started.emit()  # the user starts talking
    cut_at = time.monotonic()
    assert desktop.hearing.barged_in == 1 and not desktop.voice.busy
    qtbot.waitUntil(lambda: ear.result is not None, timeout=20000)  # the turn goes on
    qtbot.wait(800)
    assert all(when <= cut_at for when, _, _ in ear.clips)
    assert not desktop.voice.busy
    assert ear.result.reply.startswith("Oh, hello there!")  # shown and saved as ever


def repository_turns(service) -> list:  # noqa: ANN001
    with service.db.read_session() as session:
        return repository.recent_turns(session, 100)


def test_her_natural_voice_starts_while_the_reply_streams(desktop, qtbot, server, service,
                                                           tmp_path_factory):
    """With her natural voice (Kokoro, the app's default): her first clause plays before
    the reply is complete, and she says each word of it once."""
    from companion_desktop.llm.neural_voice import kokoro_files, kokoro_missing, speaking

    if kokoro_missing():
        pytest.skip(kokoro_missing())
    data = service.db.path.parent
    kokoro_files.model_file(data / "cache")  # joined before: the test is about streaming
    speaking.configure(data)  # as the app does at start
    voice_on(service)
    assert load_voice(service).backend == "neural"  # the default
    voice = desktop.voice.voice
    with qtbot.waitSignal(voice.prepared, timeout=60000):  # as when voice output is turned on
        desktop.settings_applied()
    assert voice.ready
    # a model at 4 tokens/s (her own mind on a slow machine): the reply takes about 8 s,
    # her natural voice a second or two for its first clause on a busy CPU
    ear = start(desktop, server, qtbot, slow(delay=0.25))
    qtbot.waitUntil(lambda: ear.result is not None, timeout=60000)
    assert ear.clips and ear.clips[0][0] < ear.done_at
    assert ear.clips[0][1] == "Oh,"  # the first clause leads
    qtbot.waitUntil(lambda: not desktop.voice.busy, timeout=30000)
    final = split_speech(parse_response("".join(reply_with_block(REPLY))).text)[1]
    assert [w.strip(",.!?").lower() for w in ear.words()] == spoken_words(final)
    assert all(duration > 0.2 for _, _, duration in ear.clips)  # 24 kHz Kokoro audio, heard


def load_voice(service) -> VoiceSettings:  # noqa: ANN001
    with service.db.read_session() as session:
        return load_settings(session, VoiceSettings)
