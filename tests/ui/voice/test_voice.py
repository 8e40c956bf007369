"""VoiceOut with real espeak-ng synthesis, played "silently" (no audio device here)."""

from __future__ import annotations

import shutil
import time

import pytest

from companion_desktop.avatar.lipsync import VISEMES, mouth_track
from companion_desktop.engine.speech import SpokenPart
from companion_desktop.llm.tts import EspeakBackend, VoiceOptions
from companion_desktop.ui.voice.output import MOUTH_FPS, BoundVoice, VoiceOut, render_part

pytestmark = [
    pytest.mark.qt,
    pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng is not installed"),
]

HELLO = "Hello there, it is lovely to see you again today."
SECOND = "Shall we talk?"


class ManualClock:
    """A monotonic clock the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def make_voice(qtbot):
    """Builds VoiceOuts that outlive the test body: their pending background relays are
    deleted (events processed) before the voices themselves go."""
    made: list[VoiceOut] = []

    def make(factory, **options) -> VoiceOut:
        made.append(VoiceOut(factory, audible=False, **options))
        return made[-1]

    yield make
    for voice in made:
        voice.stop()
    qtbot.wait(20)
    made.clear()


def espeak(voice: str | None = "en", rate: float = 1.0) -> BoundVoice:
    return BoundVoice(EspeakBackend(), voice, rate)


def record(voice: VoiceOut) -> list[str]:
    events: list[str] = []
    voice.started.connect(lambda: events.append("started"))
    voice.finished.connect(lambda: events.append("finished"))
    voice.failed.connect(lambda message: events.append(f"failed: {message}"))
    return events


def test_speaks_parts_back_to_back_in_about_their_duration(qtbot, make_voice):
    backend = espeak()
    first = "Hello there, nice to see you."
    expected = sum(backend.synthesize(text, None, VoiceOptions()).duration
                   for text in (first, SECOND))
    voice = make_voice(lambda: backend)
    events = record(voice)
    mouths: list[dict[str, float] | None] = []
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart(first), SpokenPart(SECOND)])
    began = time.monotonic()
    assert voice.speaking
    while voice.speaking and time.monotonic() - began < 15:
        mouths.append(voice.mouth())
        qtbot.wait(20)
    took = time.monotonic() - began
    assert events == ["started", "finished"]
    assert expected * 0.6 <= took <= expected * 1.4, (took, expected)
    open_frames = [m for m in mouths if m and max(m.values()) > 0.1]
    assert len(open_frames) > len(mouths) / 4  # the mouth moved for much of the speech
    assert voice.mouth() is None and not voice.speaking


def test_mouth_follows_the_heard_position(qtbot, make_voice):
    clock = ManualClock()
    backend = espeak()
    text = "It is so lovely to see you again today."  # one clause: one clip
    audio = backend.synthesize(text, None, VoiceOptions())
    track = mouth_track(audio.pcm, audio.sample_rate, fps=MOUTH_FPS)
    voice = make_voice(lambda: backend, clock=clock)
    assert voice.mouth() is None
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart(text)])
    start = clock.now
    seen = []
    for t in (0.05, 0.3, 0.62, 1.0, 1.37, audio.duration - 0.2):
        clock.now = start + t
        mouth = voice.mouth()
        assert mouth is not None and set(mouth) == set(VISEMES)
        assert mouth == pytest.approx(track.at(t), abs=1e-9)
        seen.append(sum(mouth.values()))
    assert max(seen) > 0.2 and max(seen) - min(seen) > 0.1  # it opens and closes
    assert voice.speaking  # the clock, not wall time, decides when the clip ends
    with qtbot.waitSignal(voice.finished, timeout=2_000):
        clock.now = start + audio.duration + 0.01
    assert voice.mouth() is None


def test_stop_ends_early_and_cancels_pending_parts(qtbot, make_voice):
    clock = ManualClock()
    voice = make_voice(espeak, clock=clock)
    events = record(voice)
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart(HELLO), SpokenPart(SECOND), SpokenPart(HELLO)])
    clock.now += 0.4
    assert voice.mouth() is not None
    voice.stop()
    assert events == ["started", "finished"]
    assert not voice.speaking and voice.mouth() is None and not voice.busy
    clock.now += 60
    qtbot.wait(300)  # parts synthesizing at stop() never play
    assert events == ["started", "finished"] and voice.mouth() is None


def test_a_new_reply_replaces_the_one_being_spoken(qtbot, make_voice):
    clock = ManualClock()
    voice = make_voice(espeak, clock=clock)
    events = record(voice)
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart(HELLO)])
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart("A new question for you!")])
    assert events == ["started", "finished", "started"]
    short = EspeakBackend().synthesize("A new question for you!", "en").duration
    with qtbot.waitSignal(voice.finished, timeout=2_000):
        clock.now += short + 0.01
    assert events == ["started", "finished", "started", "finished"]


def test_synthesis_failure_is_reported_once_per_reply(qtbot, make_voice):
    missing = BoundVoice(EspeakBackend(executable="no-such-espeak-program"), "en")
    voice = make_voice(lambda: missing)
    events = record(voice)
    with qtbot.waitSignal(voice.failed, timeout=10_000) as blocker:
        voice.say([SpokenPart("One."), SpokenPart("Two."), SpokenPart("Three.")])
    assert "espeak-ng is not installed" in blocker.args[0]
    qtbot.wait(200)
    assert len(events) == 1 and events[0].startswith("failed")
    assert not voice.speaking and not voice.busy and voice.mouth() is None
    with qtbot.waitSignal(voice.failed, timeout=10_000):
        voice.say([SpokenPart("Again.")])  # the next reply reports again
    assert len(events) == 2


def test_voice_off_is_silent_and_reload_builds_a_new_backend(qtbot, make_voice):
    made: list[BoundVoice | None] = []
    enabled = {"on": False}

    def factory() -> BoundVoice | None:
        made.append(espeak() if enabled["on"] else None)
        return made[-1]

    voice = make_voice(factory)
    events = record(voice)
    voice.say([SpokenPart(HELLO)])
    qtbot.wait(100)
    assert events == [] and not voice.busy and made == [None]
    enabled["on"] = True
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart("Hi.")])
    voice.stop()
    voice.say([SpokenPart("   ")])  # nothing to say: nothing happens
    assert len(made) == 2
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart("Hi.")])
    assert len(made) == 2  # cached
    voice.reload()
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.say([SpokenPart("Hi.")])
    assert len(made) == 3
    voice.stop()


def test_bound_voice_applies_the_chosen_voice_and_speed():
    slow = BoundVoice(EspeakBackend(), "en", 0.6).synthesize(HELLO)
    fast = BoundVoice(EspeakBackend(), "en", 1.6).synthesize(HELLO)
    assert slow.duration > fast.duration * 1.8
    part = BoundVoice(EspeakBackend(), "en", 1.6).synthesize(HELLO, options=VoiceOptions(0.5))
    assert part.duration > fast.duration * 1.3  # the part's own rate multiplies the setting


def test_a_streaming_reply_plays_parts_as_they_come_and_finishes_after_its_end(
        qtbot, make_voice):
    clock = ManualClock()
    voice = make_voice(espeak, clock=clock)
    events = record(voice)
    voice.begin()
    assert voice.taking_parts and not voice.busy and not voice.speaking
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.add([SpokenPart("Hi there.")])
    clock.now += EspeakBackend().synthesize("Hi there.", "en").duration + 0.01
    qtbot.waitUntil(lambda: not voice.busy, timeout=2_000)
    qtbot.wait(50)  # the clip is over, but more may come: she waits, still speaking
    assert events == ["started"] and voice.speaking and voice.mouth() is None
    with qtbot.waitSignal(voice.clip_started, timeout=10_000):
        voice.add([SpokenPart("And more.")])
    assert events == ["started"]  # one reply: one started
    voice.end()
    assert voice.speaking and not voice.taking_parts
    with qtbot.waitSignal(voice.finished, timeout=2_000):
        clock.now += 60
    voice.add([SpokenPart("Too late.")])  # after its end: not said
    qtbot.wait(200)
    assert events == ["started", "finished"] and not voice.busy


def test_stop_drops_the_queue_and_the_rest_of_a_streaming_reply(qtbot, make_voice):
    clock = ManualClock()
    voice = make_voice(espeak, clock=clock)
    events = record(voice)
    said: list[str] = []
    voice.clip_started.connect(lambda _audio, text: said.append(text))
    voice.begin()
    with qtbot.waitSignal(voice.started, timeout=10_000):
        voice.add([SpokenPart("One."), SpokenPart("Two."), SpokenPart("Three.")])
    voice.stop()
    voice.add([SpokenPart("Four.")])
    voice.end()
    clock.now += 60
    qtbot.wait(300)
    assert said == ["One."] and events == ["started", "finished"] and not voice.busy


def test_a_speed_factor_multiplies_the_setting_and_the_part_clamped_once():
    bound = espeak(rate=1.0)
    fast = render_part(bound, SpokenPart(HELLO), 1.1).audio.duration
    slow = render_part(bound, SpokenPart(HELLO), 0.9).audio.duration
    assert slow > fast * 1.15
    # 2.0 (the part) x 0.8 (the setting) x 1.1 (her mood) = 1.76: clamped once, at the end
    clip = render_part(espeak(rate=0.8), SpokenPart(HELLO, rate=2.0), 1.1)
    alone = EspeakBackend().synthesize(HELLO, "en", VoiceOptions(1.76))
    assert clip.audio.duration == pytest.approx(alone.duration, abs=0.02)
    # a backend without settings takes the factor in its options
    bare = render_part(EspeakBackend(), SpokenPart(HELLO), 1.1).audio.duration
    assert bare == pytest.approx(
        EspeakBackend().synthesize(HELLO, None, VoiceOptions(1.1)).duration, abs=0.02)


def test_a_reply_starts_with_its_first_clause(qtbot, make_voice):
    """Her first clip is the reply's first clause (a slow voice starts sooner), then the
    rest of that sentence and the other parts, every word once, in order."""
    voice = make_voice(espeak)
    heard: list[str] = []
    voice.clip_started.connect(lambda _audio, words: heard.append(words))
    with qtbot.waitSignal(voice.finished, timeout=20_000):
        voice.say([SpokenPart(HELLO), SpokenPart(SECOND)])
    assert heard == ["Hello there,", "it is lovely to see you again today.", SECOND]


class LoadingEspeak(EspeakBackend):
    """espeak-ng with a model to load first, as her natural voice has (0.3 s here)."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded_on: list[str] = []

    def prepare(self, voice: str | None = None) -> None:
        import threading

        time.sleep(0.3)
        self.loaded_on.append(f"{threading.current_thread().name}:{voice}")


def test_prepare_loads_her_voice_off_the_gui_thread_once_it_is_on(qtbot, make_voice):
    import threading

    backend = LoadingEspeak()
    voice_on = {"on": False}
    voice = make_voice(lambda: BoundVoice(backend, "en") if voice_on["on"] else None)
    events = record(voice)
    voice.prepare()  # voice output off: nothing loads, nothing is said
    qtbot.wait(400)
    assert backend.loaded_on == [] and not voice.ready
    voice_on["on"] = True
    began = time.monotonic()
    with qtbot.waitSignal(voice.prepared, timeout=5000):
        voice.prepare()
        assert time.monotonic() - began < 0.2  # the window never waits for the load
    assert voice.ready and len(backend.loaded_on) == 1
    assert not backend.loaded_on[0].startswith(threading.current_thread().name)
    assert backend.loaded_on[0].endswith(":en")  # the chosen voice
    voice.reload()  # settings changed: a fresh backend, loaded again
    assert not voice.ready
    assert events == []  # preparing says nothing and reports nothing


def test_a_voice_that_cannot_be_made_is_not_reported_before_a_reply_needs_it(
        qtbot, make_voice):
    def broken():  # noqa: ANN202
        raise RuntimeError("no such backend")

    voice = make_voice(broken)
    events = record(voice)
    voice.prepare()
    qtbot.wait(100)
    assert events == [] and not voice.ready
    voice.say([SpokenPart(SECOND)])  # the reply that needs it says why
    assert events == ["failed: Her voice failed (RuntimeError); the reply is shown as text."]
