"""Spoken turns end to end: espeak-ng speech played through the file-backed capture path,
heard by the real listener, recognised by the real local Whisper model, sent as a turn
to the 127.0.0.1 model server; a spoken turn stops the one in flight; speech while she
speaks cuts her off (barge-in); her own voice from the speakers produces no turn."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import Qt

from companion_desktop.llm.tts import EspeakBackend
from tests.ui.chat.test_show_image import vision_chat  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script, reply_with_block
from tests.ui.voice.hearing_fixtures import (  # noqa: F401 - fixture
    SAY,
    listen_to_file,
    model_cache,
    needs_voice,
    save_hearing,
    silence,
    spoken,
)

pytestmark = [pytest.mark.qt, needs_voice,
              pytest.mark.skipif(not os.environ.get("DISPLAY"), reason="needs an X display (Xvfb)")]
WAIT_MS = 60000


def hands_free(chat, cache, speed: float = 3.0):  # noqa: ANN001
    source = listen_to_file(chat.hearing, cache, speed=speed)
    save_hearing(chat.service, mode="hands_free", language="en")
    chat.settings_saved()
    return source


def test_a_spoken_turn_goes_the_typed_way(qtbot, chat, server, tmp_path, model_cache):
    source = hands_free(chat, model_cache)
    assert chat.mic_button.isVisible() and chat.listen_line.text == "Listening…"
    chat.input.setPlainText("a draft I am typing")
    server.scripts.append(Script(["It looks sunny!"]))
    source.feed(silence(0.5))
    source.feed(spoken(SAY, tmp_path))
    qtbot.waitUntil(lambda: chat.hearing.state in ("hearing", "recognising"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(server.user_messages()) == 1, timeout=WAIT_MS)
    assert "weather" in server.user_messages()[0].lower()
    qtbot.waitUntil(lambda: not chat.busy and chat.pending is None, timeout=WAIT_MS)
    texts = [bubble.text() for bubble in chat.transcript.bubbles()]
    assert any("weather" in t.lower() for t in texts) and any("sunny" in t for t in texts)
    assert chat.input.toPlainText() == "a draft I am typing"  # the box is left alone
    assert chat.hearing.state == "listening" and source.active  # still listening


def test_silence_and_noise_make_no_turn(qtbot, chat, server, model_cache):
    import numpy as np

    source = hands_free(chat, model_cache, speed=4.0)
    source.feed(silence(1.0))
    source.feed(np.random.default_rng(3).normal(0, 0.01, 32000).astype(np.float32))
    qtbot.waitUntil(lambda: source.pending_s == 0, timeout=WAIT_MS)
    qtbot.wait(800)
    assert server.user_messages() == [] and not chat.busy


def test_push_to_talk_held_on_the_mic_button(qtbot, chat, server, tmp_path, model_cache):
    source = listen_to_file(chat.hearing, model_cache, speed=4.0)
    save_hearing(chat.service, mode="push_to_talk", language="en")
    chat.settings_saved()
    assert chat.hearing.source is None  # closed until held
    source.feed(spoken(SAY, tmp_path))  # what the room will sound like once it is open
    qtbot.mousePress(chat.mic_button, Qt.MouseButton.LeftButton)
    assert chat.hearing.state == "hearing" and source.active
    assert chat.listen_line.text == "Hearing you…"
    qtbot.waitUntil(lambda: source.pending_s == 0, timeout=WAIT_MS)
    qtbot.wait(200)
    qtbot.mouseRelease(chat.mic_button, Qt.MouseButton.LeftButton)
    assert chat.hearing.source is None  # the microphone closes with the release
    qtbot.waitUntil(lambda: len(server.user_messages()) == 1, timeout=WAIT_MS)
    assert "weather" in server.user_messages()[0].lower()


def test_a_spoken_turn_stops_the_one_in_flight(qtbot, chat, server, tmp_path, model_cache):
    source = hands_free(chat, model_cache)
    server.scripts.append(Script(["word "] * 400, delay=0.05))  # 20 s of reply
    server.scripts.append(Script(["About the weather: sunny."]))
    chat.submit("tell me a long story")
    qtbot.waitUntil(lambda: bool(chat.transcript.bubbles("her")), timeout=WAIT_MS)
    source.feed(spoken(SAY, tmp_path))
    qtbot.waitUntil(lambda: len(server.user_messages()) == 2, timeout=WAIT_MS)
    assert "weather" in server.user_messages()[1].lower()
    qtbot.waitUntil(lambda: not chat.busy, timeout=WAIT_MS)
    texts = [bubble.text() for bubble in chat.transcript.bubbles()]
    assert any("About the weather" in t for t in texts)


REMIND_AND_LOOK = "Look at this photo. Remind me in ten minutes to stretch."


def test_a_spoken_turn_takes_the_staged_photo_and_sets_a_reminder(qtbot, vision_chat, server,
                                                                   tmp_path, model_cache):
    from companion_desktop.storage.reminders import pending_reminders
    from tests.ui.chat.test_show_image import wait_ready, write_photo
    from tests.ui.scripted_provider import reply_with_block

    chat = vision_chat
    source = hands_free(chat, model_cache)
    chat.stage_image(str(write_photo(tmp_path / "garden.jpg")), "garden.jpg")
    wait_ready(qtbot, chat)
    server.scripts.append(Script(reply_with_block("Pretty! And I will tell you to stretch.")))
    source.feed(silence(0.5))
    source.feed(spoken(REMIND_AND_LOOK, tmp_path))
    qtbot.waitUntil(lambda: len(server.user_messages()) == 1, timeout=WAIT_MS)
    sent = server.user_messages()[0]
    # the photo went with what was said ("stretch", the last word, may be misheard)
    assert "image_url" in sent and "photo" in sent.lower() and "remind" in sent.lower()
    qtbot.waitUntil(lambda: not chat.busy, timeout=WAIT_MS)
    assert not chat.photo.staged
    with chat.service.db.read_session() as session:
        reminders = pending_reminders(session)
    # said aloud, set as if typed (the last word may be misheard: its words are not checked)
    assert len(reminders) == 1 and reminders[0].content
    assert abs((reminders[0].trigger_at - reminders[0].created_at).total_seconds() - 600) < 5


HER_SAYS = "It is so good to see you again, I missed our long talks about the stars."


@pytest.mark.parametrize("lag_s,told,outcome", [
    (0.45, False, "unheard"),  # Bluetooth-like speakers: the canceller finds and removes her
    (0.75, True, "dropped"),  # later than it looks: her words keep her sound from a turn
    (0.75, False, "sent"),  # told no words, the same sound is a turn: what the guard stops
])
def test_her_voice_from_slow_speakers_makes_no_turn(qtbot, chat, server, tmp_path,
                                                    model_cache, lag_s, told, outcome):
    source = hands_free(chat, model_cache, speed=2.0)
    server.scripts.append(Script(["Mm?"]))
    started = []
    chat.hearing.speech_started.connect(lambda: started.append(True))
    her = spoken(HER_SAYS, tmp_path, voice="en-us+f3")
    chat.hearing.her_voice(her, HER_SAYS if told else "")
    source.mix(her, lag_s, 0.6)
    qtbot.waitUntil(lambda: source.pending_s == 0, timeout=WAIT_MS)
    if outcome == "sent":
        qtbot.waitUntil(lambda: len(server.user_messages()) == 1, timeout=WAIT_MS)
        assert chat.hearing.dropped_as_hers == 0
        return
    if outcome == "dropped":
        qtbot.waitUntil(lambda: chat.hearing.dropped_as_hers == 1, timeout=WAIT_MS)
    qtbot.wait(1500)  # the silence that would end an utterance, and its recognition
    assert server.user_messages() == [] and not chat.busy
    assert chat.hearing.state == "listening"  # still listening for the user
    if outcome == "unheard":
        assert started == [] and chat.hearing.dropped_as_hers == 0  # no barge-in either


# ------------------------------------------------------------------ her voice (the desktop)
from tests.ui.overlay.test_overlay import desktop  # noqa: E402, F401 - fixture
from tests.ui.voice.test_desktop_voice import spoken_reply, voice_on  # noqa: E402

ROOM_GAIN, ROOM_DELAY_S = 0.6, 0.04  # her voice reaches the microphone quieter and later


def in_the_room(desktop, source) -> None:  # noqa: ANN001
    """Every clip she plays is heard by the (file-backed) microphone too (no headphones),
    and when her voice is cut off, the rest of her clip is no longer heard. The speakers
    play her clips one after the other: when the (timer-driven) microphone runs behind
    the wall clock, the next clip still follows the last one in the room."""
    from companion_desktop.ui.voice.hearing_desktop import clip_samples

    playing: dict = {}

    def started(audio, _text: str = "") -> None:  # noqa: ANN001
        samples = clip_samples(audio)
        at = max(source.played, playing.get("end", 0))
        playing.update(samples=samples, at=at, end=at + samples.size)
        source.mix(samples, ROOM_DELAY_S + (at - source.played) / 16000, ROOM_GAIN)

    def cut_off() -> None:
        if playing and not desktop.voice.speaking:  # barge-in stopped her just now
            gone = source.played - playing["at"] - round(ROOM_DELAY_S * 16000)
            rest = playing["samples"][max(0, gone):]
            source.mix(-rest, max(0.0, -gone / 16000), ROOM_GAIN)  # the speakers fall silent
            playing.clear()

    desktop.voice.voice.clip_started.connect(started)
    desktop.chat.hearing.speech_started.connect(cut_off)  # after the barge-in itself


@pytest.mark.gl
@pytest.mark.skipif(not EspeakBackend().available(), reason="espeak-ng is not installed")
@pytest.mark.parametrize("reply", [
    spoken_reply(),  # one speak() call: said a sentence at a time
    reply_with_block("Oh, hello there! I missed you today. How was your long walk?"),
], ids=["speak", "plain sentences streamed"])
def test_her_own_voice_makes_no_turn(qtbot, desktop, server, service, model_cache, reply):
    voice_on(service)
    desktop.settings_applied()
    source = hands_free(desktop.chat, model_cache, speed=1.0)
    in_the_room(desktop, source)
    heard, started = [], []
    desktop.chat.hearing.heard.connect(heard.append)
    desktop.chat.hearing.speech_started.connect(lambda: started.append(True))
    overlay = desktop.overlay
    assert overlay.mic_button.isVisible() and overlay.bubble.phase.text() == "Listening…"
    server.scripts.append(Script(reply, delay=0.05))
    assert desktop.send("hi!")
    qtbot.waitUntil(lambda: desktop.voice.speaking, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not desktop.voice.speaking, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: source.pending_s == 0, timeout=WAIT_MS)
    qtbot.wait(1500)  # the silence that would end an utterance, and its recognition
    assert started == [] and heard == [] and desktop.hearing.barged_in == 0
    assert len(server.user_messages()) == 1


@pytest.mark.gl
@pytest.mark.skipif(not EspeakBackend().available(), reason="espeak-ng is not installed")
def test_speaking_over_her_stops_her_voice_and_starts_a_turn(qtbot, desktop, server, service,
                                                             tmp_path, model_cache):
    voice_on(service)
    desktop.settings_applied()
    source = hands_free(desktop.chat, model_cache, speed=1.0)
    in_the_room(desktop, source)
    server.scripts.append(Script(spoken_reply(), delay=0.01))
    server.scripts.append(Script(["Sunny all day."]))
    assert desktop.send("hi!")
    qtbot.waitUntil(lambda: desktop.voice.speaking, timeout=WAIT_MS)
    qtbot.wait(1200)
    source.mix(spoken(SAY, tmp_path, voice="en-us+m3"))
    qtbot.waitUntil(lambda: desktop.hearing.barged_in == 1, timeout=WAIT_MS)
    assert not desktop.voice.speaking  # stopped at once
    assert desktop.overlay.bubble.phase.text() == "Hearing…"  # her bubble: she listens
    qtbot.waitUntil(lambda: len(server.user_messages()) == 2, timeout=WAIT_MS)
    assert "like today" in server.user_messages()[1].lower()  # her echo may blur a word


@pytest.mark.gl
def test_push_to_talk_on_her_mic_button_her_key_and_the_global_key(qtbot, desktop, model_cache):
    """The overlay's mic button, the key while she has the focus and the global push-to-talk
    hotkey each open the microphone while held; her bubble says she is hearing."""
    chat, overlay = desktop.chat, desktop.overlay
    source = listen_to_file(chat.hearing, model_cache)
    save_hearing(chat.service, mode="push_to_talk", ptt_key="F8")
    chat.settings_saved()
    assert overlay.mic_button.isVisible() and "F8" in overlay.mic_button.toolTip()
    assert chat.hearing.source is None  # closed until held
    qtbot.mousePress(overlay.mic_button, Qt.MouseButton.LeftButton)
    assert chat.hearing.state == "hearing" and source.active
    assert overlay.bubble.phase.text() == "Hearing…"
    qtbot.mouseRelease(overlay.mic_button, Qt.MouseButton.LeftButton)
    assert chat.hearing.source is None and chat.hearing.state == "ready"
    qtbot.keyPress(overlay, Qt.Key.Key_F8)
    assert chat.hearing.state == "hearing" and source.active
    qtbot.keyRelease(overlay, Qt.Key.Key_F8)
    assert chat.hearing.source is None
    desktop.hotkeys.talk.emit(True)  # the key that works in every program
    assert chat.hearing.state == "hearing" and source.active
    desktop.hotkeys.talk.emit(False)
    assert chat.hearing.source is None and chat.hearing.state == "ready"
