"""Her voice on the desktop: a spoken reply plays (silently here: no sound device),
the talking clip runs, the lips follow the audio, and the flash holds while she speaks."""

from __future__ import annotations

import json
import os
import time

import pytest

from companion_desktop.engine.mood_expression import FLASH_HOLD_S, FLASH_HOLD_SPEAKING_S
from companion_desktop.llm.tts import EspeakBackend
from companion_desktop.storage.settings import VoiceSettings, load_settings, save_settings
from tests.ui.overlay.test_overlay import desktop  # noqa: F401 - fixture
from tests.ui.scripted_provider import Script

pytestmark = [
    pytest.mark.gl,
    pytest.mark.qt,
    pytest.mark.skipif(not os.environ.get("DISPLAY"),
                       reason="needs an X display (Xvfb) for OpenGL windows"),
    pytest.mark.skipif(not EspeakBackend().available(), reason="espeak-ng is not installed"),
]

LINE = "Hello there! It is so good to see you again, I missed our talks."


def voice_on(service) -> None:
    with service.db.session() as session:
        settings = load_settings(session, VoiceSettings)
        settings.enabled = True
        save_settings(session, settings)


def spoken_reply(expression: str | None = "happy") -> list[str]:
    block = {"mood_change": {"emotion": "happy", "intensity_delta": 5}, "expression": expression}
    return ["*smiles* ", f'speak("{LINE}")', "\n\n```json\n" + json.dumps(block) + "\n```"]


def test_spoken_reply_moves_her_lips_and_holds_the_flash(desktop, qtbot, server, service):
    voice_on(service)
    desktop.settings_applied()
    server.scripts.append(Script(spoken_reply(), delay=0.01))
    runtime, director = desktop.host.runtime, desktop.host.director
    assert desktop.send("hi!")
    # her first sentence may start before the reply's end (which flashes its expression)
    # has been read
    qtbot.waitUntil(lambda: desktop.voice.speaking and runtime.layers.flash.name is not None,
                    timeout=20000)
    started, avatar_started = time.monotonic(), runtime.time
    texts = [b.text() for b in desktop.chat.transcript.bubbles()]
    assert any(LINE in t and "speak(" not in t for t in texts)
    assert director.talking  # the talking clip plays while she speaks
    open_frames = samples = 0
    assert runtime.layers.flash.hold_s == FLASH_HOLD_SPEAKING_S  # held while she speaks
    while desktop.voice.speaking and time.monotonic() - started < 15:
        qtbot.wait(40)
        samples += 1
        expected = desktop.voice.voice.mouth()
        if runtime.visemes:
            open_frames += 1
        if expected is None or not any(expected.values()):
            continue
        # the runtime got the weights of the audio being heard (one lip update behind at most)
        assert max(runtime.visemes.values(), default=0.0) > 0.0 or samples < 3
    # a sentence this long outlasts the normal hold
    assert time.monotonic() - started > FLASH_HOLD_S
    spoken_for = runtime.time - avatar_started  # on her clock (frames may lag on software GL)
    assert open_frames >= samples // 3
    # the flash held for as long as she spoke (up to 8 s), then let go
    assert runtime.layers.flash.name == "happy"
    qtbot.waitUntil(lambda: not director.talking, timeout=5000)
    assert runtime.visemes == {}
    hold = runtime.layers.flash.hold_s
    assert FLASH_HOLD_S <= hold <= 8.0
    assert hold >= min(8.0, spoken_for) - 0.25  # held while she spoke, not just the normal 2.5 s


def test_voice_off_keeps_her_quiet(desktop, qtbot, server, service):
    server.scripts.append(Script(spoken_reply(), delay=0.01))
    assert desktop.send("hi!")
    qtbot.waitUntil(lambda: not desktop.chat.busy and desktop.chat.pending is None, timeout=15000)
    qtbot.wait(300)
    assert not desktop.voice.speaking and desktop.host.runtime.visemes == {}
    texts = [b.text() for b in desktop.chat.transcript.bubbles()]
    assert any(LINE in t and "speak(" not in t for t in texts)


def test_a_new_message_interrupts_her(desktop, qtbot, server, service):
    voice_on(service)
    server.scripts.append(Script(spoken_reply(), delay=0.01))
    server.scripts.append(Script(spoken_reply(None), delay=0.01))
    assert desktop.send("hi!")
    # she starts speaking while the reply still streams: the turn must be over too
    qtbot.waitUntil(lambda: desktop.voice.speaking and not desktop.chat.busy, timeout=20000)
    assert desktop.send("wait, one more thing")
    assert not desktop.voice.speaking


def test_a_fired_reminder_is_spoken(desktop, qtbot, server, service):
    from datetime import timedelta

    from companion_desktop.storage import reminders as store
    from tests.conftest import T0

    voice_on(service)
    with service.db.session() as session:
        store.add_reminder(session, T0 - timedelta(minutes=1), "stretch",
                           T0 - timedelta(hours=1), None)
    server.scripts.append(Script(spoken_reply(), delay=0.01))
    desktop.poller.poll()
    qtbot.waitUntil(lambda: desktop.voice.speaking, timeout=20000)
    assert (LINE in desktop.overlay.bubble.label.text()
            and "speak(" not in desktop.overlay.bubble.label.text())
