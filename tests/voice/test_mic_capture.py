"""The real microphone path: ``ui.mic`` through QAudioSource, on a sound server started for
the test with a test microphone that hears what is played into a silent speaker (no sound
hardware needed; skipped when the sound server's programs are not installed). Before, every
microphone was "could not be opened": QAudioSource's errors were compared with values of
the QAudio name that Qt 6.7 replaced by QtAudio.

Her own voice is played into the room after the GUI thread was busy for 0.6 s: before her
hearing read the waiting sound first, most of her sentence came back as a turn. Now the
echo is found (50-125 ms here); in some runs a fragment of her voice still gets past the
canceller. Made of her words it is dropped (``voice.her_words``); misheard as other words it
is not, so only "not her sentence" is asserted."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion_desktop.ui.voice.mic import MIC_SILENT
from tests.voice.sounds import needs_espeak, needs_voice

ROOT = Path(__file__).resolve().parents[2]
HER = "Hello there! It is so good to see you again, I missed our talks so much."
SAY = "Please remind me to water the plants tomorrow morning."
SERVER_CONFIG = """\
load-module module-null-sink sink_name=room sink_properties=device.description=Room
load-module module-virtual-source source_name=testmic master=room.monitor \
source_properties=device.description=Test_microphone
load-module module-native-protocol-unix
set-default-source testmic
"""


@pytest.fixture
def sound_server(tmp_path):
    """A private sound server (its own runtime folder) with a test microphone."""
    if not all(shutil.which(tool) for tool in ("pulseaudio", "paplay", "pactl")):
        pytest.skip("pulseaudio, paplay and pactl are not installed")
    home = tmp_path / "sound"
    home.mkdir()
    (home / "server.pa").write_text(SERVER_CONFIG)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(home), "HOME": str(home)}
    server = subprocess.Popen(["pulseaudio", "-n", "-F", str(home / "server.pa"),
                               "--exit-idle-time=-1", "--daemonize=no"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 15
    while subprocess.run(["pactl", "info"], env=env, capture_output=True,
                         check=False).returncode != 0:
        if server.poll() is not None or time.monotonic() > deadline:
            server.kill()
            pytest.skip("the sound server did not start here")
        time.sleep(0.2)
    yield env
    server.terminate()
    server.wait(10)


def words(text: str) -> set[str]:
    return {w.strip(".,!?").lower() for w in text.split() if len(w.strip(".,!?")) > 3}


@needs_voice
@needs_espeak
def test_the_microphone_is_heard_through_qt_the_settings_meter_her_hearing_and_its_loss(
        sound_server, voice_data, tmp_path):
    wav, her = tmp_path / "said.wav", tmp_path / "her.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), SAY], check=True, timeout=30)
    subprocess.run(["espeak-ng", "-v", "en-us+f3", "-w", str(her), HER], check=True, timeout=30)
    env = {**sound_server, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "tests.voice.mic_driver", str(tmp_path / "data"),
                           str(voice_data["cache"]), str(wav), "room", str(her), HER],
                          cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Test_microphone" in out["devices"]
    assert out["opened"] is True and out["problems"] == [], out
    assert out["format"] == [16000, 1]  # asked of the device as 16 kHz mono
    assert out["dtype"] == "float32" and 1.5 < out["seconds"] < 6.0 and out["peak"] > 0.05
    assert "Test_microphone" in out["picker"] and out["meter_open"] and out["meter_peak"] > 5
    assert out["meter_closed"]  # the meter's microphone closes with the section
    assert out["state_before"] == "listening"
    assert len(out["heard"]) == 1 and "plants" in out["heard"][0].lower(), out
    # her voice is not taken for a turn. A fragment of it may slip past the canceller when
    # the sound server's latency shifts mid-sentence; made of her words it is dropped, but
    # misheard as other words it gets through (a known gap, about 1 run in 6 here)
    heard_of_her = [words(text) & words(HER) for text in out["her_heard"]]
    assert all(len(shared) < 3 for shared in heard_of_her), (out["her_heard"], out["echo_delay"])
    assert out["closed"]
    assert out["unplugged_opened"] is False and len(out["unplugged"]) == 1, out
    assert "“Test_microphone” could not be opened" in out["unplugged"][0]
    assert out["lost"] == [MIC_SILENT] and out["lost_closed"]  # said, and closed
