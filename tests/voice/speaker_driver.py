"""Run by test_speaker_output in its own process, with a sound server whose test microphone
hears its speaker: one clip of her voice played through ``ui.voice.Playback`` on the
default output while ``ui.mic`` listens. Prints one JSON line of what happened.

Usage: python -m tests.voice.speaker_driver
"""

from __future__ import annotations

import json
import time


def main() -> None:
    import numpy as np
    from PySide6.QtWidgets import QApplication

    from tests.voice.mic_driver import qt_wait

    app = QApplication([])

    def wait(ms: int, until=lambda: False) -> None:  # noqa: ANN001
        qt_wait(app, ms, until)

    from companion_desktop.avatar.lipsync import mouth_track
    from companion_desktop.llm.wav import SpeechAudio
    from companion_desktop.ui.voice.mic import MicSource
    from companion_desktop.ui.voice.playback import Clip, Playback, has_audio_output

    rate = 22050
    t = np.arange(int(1.5 * rate)) / rate
    tone = (0.5 * np.sin(2 * np.pi * 440 * t) * 32767).astype("<i2").tobytes()
    audio = SpeechAudio(tone, rate)
    clip = Clip(audio, mouth_track(audio.pcm, rate))
    out: dict = {"output": has_audio_output()}
    mic, heard = MicSource(None), []
    mic.chunk.connect(heard.append)
    out["mic"] = mic.start()
    wait(300)
    heard.clear()
    started = time.monotonic()
    playback = Playback(clip, time.monotonic, audible=True)
    out["sink"] = playback.sink is not None
    wait(5000, playback.done)
    out["done"] = playback.done()
    out["seconds"] = round(time.monotonic() - started, 2)
    out["position"] = round(playback.position(), 2)
    wait(400)
    mic.stop()
    samples = np.concatenate(heard) if heard else np.zeros(0, np.float32)
    out["heard_peak"] = round(float(np.abs(samples).max()) if samples.size else 0.0, 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
