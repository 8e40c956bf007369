"""Her voice reaches a real speaker: ``ui.voice.Playback`` on a sound server started for the
test, whose test microphone hears the speaker (no sound hardware needed; skipped when the
sound server's programs are not installed). Before, every clip played silently: the
sink's error was compared with a value of the QAudio name that Qt 6.7 replaced by QtAudio,
so the sink was dropped as refused the moment it started."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.voice.test_mic_capture import ROOT, sound_server  # noqa: F401 - the fixture


def test_her_clip_plays_on_the_speaker_and_is_heard(sound_server):  # noqa: F811
    env = {**sound_server, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "tests.voice.speaker_driver"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["output"] and out["mic"], out
    assert out["sink"], out  # the speaker was kept, not dropped as refused
    assert out["done"] and out["position"] >= 1.4, out
    assert 1.3 <= out["seconds"] < 4.0, out  # played in real time, not skipped
    assert out["heard_peak"] > 0.1, out  # the tone came out of the speaker
