"""Reading audio files costs what the sound in them is worth: a header's sample rate is
checked before any work, a long file is refused as soon as it passes the limit, and
nothing is read whole (peak memory measured in a fresh process on real files)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from companion_desktop.voice.audio import (
    MAX_FILE_SECONDS,
    SAMPLE_RATE,
    AudioFileError,
    load_audio,
    resample,
)
from companion_desktop.voice.resample import StreamResampler
from tests.voice.sounds import MISSING

ROOT = Path(__file__).resolve().parents[2]
needs_proc = pytest.mark.skipif(not Path("/proc/self/status").is_file(),
                                reason="peak memory is read from /proc (Linux)")
needs_av = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def write_wav(path: Path, samples: np.ndarray, rate: int,
              claimed_bytes: int | None = None) -> Path:
    """A 16-bit mono WAV of ``samples`` whose header says ``rate`` Hz (any 32-bit value) and
    ``claimed_bytes`` of samples (default: the true size)."""
    data = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    path.write_bytes(header(rate, len(data), claimed_bytes) + data)
    return path


def header(rate: int, size: int, claimed_bytes: int | None = None, kind: int = 1,
           width: int = 2) -> bytes:
    """A mono WAV header: ``kind`` 1 is integer PCM, 3 float; ``width`` bytes a sample."""
    fmt = struct.pack("<HHIIHH", kind, 1, rate, min(width * rate, 0xFFFFFFFF), width, 8 * width)
    return (b"RIFF" + struct.pack("<I", min(36 + size, 0xFFFFFFFF)) + b"WAVEfmt "
            + struct.pack("<I", 16) + fmt + b"data"
            + struct.pack("<I", size if claimed_bytes is None else claimed_bytes))


def silent_wav(path: Path, seconds: float, claimed_bytes: int | None = None) -> Path:
    """A 16 kHz WAV of ``seconds`` of digital silence, written sparse (no disk used)."""
    size = int(seconds * SAMPLE_RATE) * 2
    with path.open("wb") as file:
        file.write(header(SAMPLE_RATE, size, claimed_bytes))
        file.truncate(44 + size)
    return path


def peak_of_loading(path: Path) -> dict:
    """``load_audio(path)`` in a fresh process: how much its peak memory grew (MB; the
    kernel's high-water mark of this process, VmHWM, which unlike ``ru_maxrss`` does not
    start at the forking parent's size), and the samples it gave or the message it refused
    with."""
    code = f"""
import json
from companion_desktop.voice.audio import AudioFileError, load_audio
import av  # loaded before the baseline, as in the app

def peak_mb():
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024

before = peak_mb()
try:
    result = {{"samples": int(load_audio({str(path)!r}).size)}}
except AudioFileError as error:
    result = {{"refused": str(error)}}
result["grew_mb"] = peak_mb() - before
print(json.dumps(result))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("rate", [4_000_000_000, 384_001, 3_999, 1])
def test_a_wav_whose_rate_is_outside_4_to_384_khz_is_refused_at_once(tmp_path, rate):
    """2 MB claiming 4 GHz took 39 s in the resampler before it was refused."""
    path = write_wav(tmp_path / "odd.wav", np.zeros(1_000_000, np.float32), rate)
    started = time.perf_counter()
    with pytest.raises(AudioFileError) as caught:
        load_audio(path)
    assert time.perf_counter() - started < 1.0
    assert str(caught.value) == (f"odd.wav has a sample rate of {rate} Hz; only 4-384 kHz "
                                 "is accepted.")


@needs_av
@pytest.mark.parametrize("rate", [500_000, 3_000])
def test_a_float_wav_read_by_the_full_decoder_has_its_rate_checked_too(tmp_path, rate):
    data = np.zeros(200_000, "<f4").tobytes()  # not for the wave module: PyAV reads it
    path = tmp_path / "float.wav"
    path.write_bytes(header(rate, len(data), kind=3, width=4) + data)
    with pytest.raises(AudioFileError, match=f"float.wav has a sample rate of {rate} Hz"):
        load_audio(path)


@pytest.mark.parametrize("rate", [4_000, 384_000])
def test_the_rates_at_the_ends_of_the_range_are_read(tmp_path, rate):
    t = np.arange(rate // 2) / rate
    path = write_wav(tmp_path / "tone.wav", 0.5 * np.sin(2 * np.pi * 440 * t), rate)
    samples = load_audio(path)
    assert samples.size == SAMPLE_RATE // 2
    spectrum = np.abs(np.fft.rfft(samples))
    assert np.argmax(spectrum) * SAMPLE_RATE / samples.size == pytest.approx(440, abs=4)


@needs_proc
def test_a_long_wav_is_refused_from_its_header_without_being_read(tmp_path):
    path = silent_wav(tmp_path / "long.wav", MAX_FILE_SECONDS + 10 * 60)  # 77 MB of samples
    loaded = peak_of_loading(path)
    assert loaded["grew_mb"] < 20, loaded
    assert loaded.get("refused") == "long.wav is longer than 30 minutes."


def test_a_wav_header_that_overstates_its_length_is_read_to_the_end(tmp_path):
    """Streamed WAVs (espeak-ng --stdout) give 0x7FFFFFFF as the length."""
    path = silent_wav(tmp_path / "streamed.wav", 1.5, claimed_bytes=0x7FFFFFFF)
    assert load_audio(path).size == int(1.5 * SAMPLE_RATE)


@needs_proc
def test_a_wav_longer_than_its_header_says_is_stopped_at_the_limit(tmp_path):
    path = silent_wav(tmp_path / "lying.wav", MAX_FILE_SECONDS + 60, claimed_bytes=0xFFFFFFF0)
    loaded = peak_of_loading(path)
    assert loaded.get("refused") == "lying.wav is longer than 30 minutes."
    # no more than the 30 minutes kept (float32 at 16 kHz: 115 MB), never the file whole
    assert loaded["grew_mb"] < 160, loaded


def flac_of_silence(path: Path, seconds: int, rate: int = SAMPLE_RATE) -> Path:
    import av

    with av.open(str(path), "w") as out:
        stream = out.add_stream("flac", rate=rate, layout="mono")
        minute = av.AudioFrame.from_ndarray(np.zeros((1, 60 * rate), np.int16), format="s16",
                                            layout="mono")
        minute.sample_rate = rate
        for _ in range(seconds // 60):
            for packet in stream.encode(minute):
                out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


@needs_av
@needs_proc
def test_hours_of_compressed_silence_stop_at_the_limit_without_being_decoded_whole(tmp_path):
    """A 1.3 MB FLAC of two hours of silence was decoded whole (1.2 GB) before the check."""
    path = flac_of_silence(tmp_path / "hours.flac", 2 * 3600)
    assert path.stat().st_size < 2_000_000
    loaded = peak_of_loading(path)
    assert loaded["grew_mb"] < 250, loaded
    assert loaded.get("refused") == "hours.flac is longer than 30 minutes."


@needs_av
def test_compressed_audio_within_the_limit_is_read_whole(tmp_path):
    path = flac_of_silence(tmp_path / "minute.flac", 60, rate=48_000)
    assert load_audio(path).size == pytest.approx(60 * SAMPLE_RATE, abs=SAMPLE_RATE // 100)


@pytest.mark.parametrize("rate", [4_000, 11_025, 22_050, 44_100, 48_000, 192_000, 384_000])
def test_resampling_in_pieces_gives_what_the_whole_gives(rate):
    rng = np.random.default_rng(rate)
    samples = rng.standard_normal(3 * rate // 2).astype(np.float32)
    stream = StreamResampler(rate, SAMPLE_RATE)
    pieces, start = [], 0
    while start < samples.size:
        size = int(rng.integers(1, 5000))
        pieces.append(stream.feed(samples[start:start + size]))
        start += size
    whole = resample(samples, rate)
    assert whole.size == round(samples.size * SAMPLE_RATE / rate)
    np.testing.assert_allclose(np.concatenate([*pieces, stream.end()]), whole, atol=1e-6)
