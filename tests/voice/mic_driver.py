"""Run by test_mic_capture in its own process, with a sound server that offers a test
microphone: the app's real capture (QAudioSource through ``ui.mic``), Settings > Voice >
Hearing's picker and meter, her hearing hands-free, and the sound server lost in use, while
``paplay`` plays a spoken WAV into the room the microphone hears. Prints one JSON line of
what happened.

Her own voice: HER_WAV is played into the room as she would play it (its samples handed
to her hearing as she starts), after the GUI thread was busy for a moment, so the
microphone's sound waits unread; none of it may be taken for the user.

Usage: python -m tests.voice.mic_driver DATA_DIR MODEL_CACHE WAV SINK HER_WAV HER_TEXT
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def qt_wait(app, ms: int, until=lambda: False) -> None:  # noqa: ANN001
    """Run ``app``'s events for ``ms`` milliseconds, or until ``until()`` is true."""
    from PySide6.QtCore import QTimer

    timer = QTimer(singleShot=True)
    timer.start(ms)
    while timer.isActive() and not until():
        app.processEvents()


def main() -> None:
    data_dir, cache, wav, sink = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    her_wav, her_text = sys.argv[5], sys.argv[6]
    import numpy as np
    from PySide6.QtWidgets import QApplication

    app = QApplication([])

    def wait(ms: int, until=lambda: False) -> None:  # noqa: ANN001
        qt_wait(app, ms, until)

    def play(path: str = wav) -> subprocess.Popen:
        return subprocess.Popen(["paplay", "-d", sink, path])

    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.storage.db import Database
    from companion_desktop.storage.settings import HearingSettings, save_settings
    from companion_desktop.ui.voice.mic import MicSource, capture_format, microphones

    out: dict = {"devices": [d.description() for d in microphones()]}
    # the capture itself
    source, got, problems = MicSource(None), [], []
    source.chunk.connect(got.append)
    source.failed.connect(problems.append)
    out["opened"] = source.start()
    if source.device is not None:
        fmt = capture_format(source.device)
        out["format"] = [fmt.sampleRate(), fmt.channelCount()]
    player = play()
    wait(4000, lambda: player.poll() is not None)
    wait(600)
    source.stop()
    samples = np.concatenate(got) if got else np.zeros(0, np.float32)
    out.update(problems=problems, seconds=samples.size / 16000,
               peak=float(np.abs(samples).max()) if samples.size else 0.0,
               dtype=str(samples.dtype))
    # the settings section: the picker lists it, the meter moves while the room speaks
    db = Database.open(data_dir)
    service = CompanionService(db)
    from companion_desktop.ui.settings.voice.hearing_section import HearingSection

    section = HearingSection(service)
    section.show()
    wait(300)
    out["picker"] = [section.device.itemText(i) for i in range(section.device.count())]
    out["meter_open"] = section.meter_source is not None and section.meter_source.active
    levels: list[int] = []
    section.meter.valueChanged.connect(levels.append)
    player = play()
    wait(4000, lambda: player.poll() is not None)
    out["meter_peak"] = max(levels, default=0)
    section.hide()
    out["meter_closed"] = section.meter_source is None
    # her hearing, hands-free, through the same source
    from companion_desktop.ui.voice.hearing import Hearing

    with service.db.session() as session:
        save_settings(session, HearingSettings(mode="hands_free", language="en"))
    hearing = Hearing(service, cache_dir=cache)
    heard: list[str] = []
    hearing.heard.connect(heard.append)
    hearing.problem.connect(problems.append)
    wait(30000, lambda: hearing._transcriber is not None)
    out["state_before"] = hearing.state
    player = play()
    wait(30000, lambda: bool(heard))
    out["heard"] = list(heard)
    # her own voice from the speakers, just after the GUI thread was busy
    import time

    from companion_desktop.voice.audio import load_audio

    her, started = load_audio(her_wav), []
    hearing.speech_started.connect(lambda: started.append(True))
    wait(1500)
    heard.clear()
    time.sleep(0.6)  # a busy moment: the microphone's sound queues up unread
    hearing.her_voice(her, her_text)
    player = play(her_wav)
    wait(15000, lambda: player.poll() is not None)
    wait(2000)
    echo = hearing.echo
    out.update(her_started=len(started), her_heard=list(heard), echo_delay=echo._delay,
               echo_free=echo.echo_free, dropped_as_hers=hearing.dropped_as_hers)
    hearing.close()
    out["closed"] = hearing.source is None
    # the chosen microphone is unplugged before it opens: refused, and said
    key = next(bytes(d.id()).decode() for d in microphones()
               if d.description() == "Test_microphone")
    chosen, refused = MicSource(key), []
    chosen.failed.connect(refused.append)
    modules = subprocess.run(["pactl", "list", "short", "modules"], capture_output=True,
                             text=True, check=True).stdout
    subprocess.run(["pactl", "unload-module", next(line.split()[0] for line in modules.splitlines()
                                                   if "module-virtual-source" in line)], check=True)
    wait(500)
    out.update(unplugged_opened=chosen.start(), unplugged=refused)
    subprocess.run(["pactl", "load-module", "module-virtual-source", "source_name=testmic",
                    "master=room.monitor", "source_properties=device.description=Test_microphone"],
                   check=True, capture_output=True)  # plugged in again
    subprocess.run(["pactl", "set-default-source", "testmic"], check=True)
    wait(500)
    # the sound server goes away while the microphone is in use (last: it does not return)
    source, gone = MicSource(None), []
    source.failed.connect(gone.append)
    source.start()
    wait(500)
    subprocess.run(["pactl", "exit"], check=True)
    wait(6000, lambda: bool(gone))
    out.update(lost=gone, lost_closed=not source.active)
    db.close()
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
