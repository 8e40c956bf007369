"""Audio as the voice code carries it: float32 mono samples at 16 kHz, -1..1.

:func:`load_audio` reads a file (WAV with the standard library, anything else through
faster-whisper's decoder when it is installed); :class:`AudioFileError` says plainly why a
file cannot be used.
"""

from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16000
#: The longest file accepted, in seconds (longer speech is not one turn).
MAX_FILE_SECONDS = 30 * 60


class AudioFileError(Exception):
    """The file cannot be read as audio; ``str(error)`` is a message for the user."""


#: Quiet put before a recording's audio, as the open microphone's pre-roll gives an
#: utterance: a file that starts on its first word otherwise loses that word to Whisper
#: ("Could you…" heard as "or you…").
LEAD_IN_S = 0.3


def with_lead_in(samples: np.ndarray) -> np.ndarray:
    """``samples`` (float32 16 kHz) after :data:`LEAD_IN_S` of silence."""
    return np.concatenate([np.zeros(int(LEAD_IN_S * SAMPLE_RATE), np.float32),
                           np.asarray(samples, np.float32).reshape(-1)])


def pcm16_to_float(data: bytes) -> np.ndarray:
    """Signed 16-bit little-endian PCM as float32 -1..1 (a trailing odd byte is dropped)."""
    usable = len(data) // 2 * 2
    return np.frombuffer(data[:usable], dtype="<i2").astype(np.float32) / 32768.0


def float_to_pcm16(samples: np.ndarray) -> bytes:
    """float32 -1..1 as signed 16-bit little-endian PCM (clipped)."""
    clipped = np.clip(np.asarray(samples, dtype=np.float32), -1.0, 1.0)
    return (clipped * 32767.0).round().astype("<i2").tobytes()


def wav_bytes(samples: np.ndarray, rate: int = SAMPLE_RATE) -> bytes:
    """A 16-bit mono WAV file of ``samples``."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(float_to_pcm16(samples))
    return out.getvalue()


def resample(samples: np.ndarray, rate: int, target: int = SAMPLE_RATE) -> np.ndarray:
    """Linear-interpolation resampling to ``target`` Hz, with a short moving-average
    low-pass first when going down (speech is fine with it)."""
    samples = np.asarray(samples, dtype=np.float32)
    if rate == target or samples.size == 0:
        return samples
    if rate > target:
        width = max(1, round(rate / target))
        if width > 1:
            samples = np.convolve(samples, np.full(width, 1.0 / width, np.float32), "same")
    count = max(1, round(samples.size * target / rate))
    positions = np.arange(count, dtype=np.float64) * (rate / target)
    return np.interp(positions, np.arange(samples.size), samples).astype(np.float32)


def _read_wav(data: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(data), "rb") as wav:
        channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
        if rate <= 0 or wav.getnframes() > MAX_FILE_SECONDS * rate:
            raise AudioFileError(f"The WAV file is longer than {MAX_FILE_SECONDS // 60} minutes "
                                 "or has no sample rate.")
        frames = wav.readframes(wav.getnframes())
    if width == 1:
        samples = (np.frombuffer(frames, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        samples = np.frombuffer(frames[: len(frames) // 2 * 2], "<i2").astype(np.float32) / 32768.0
    elif width in (3, 4):
        raw = np.frombuffer(frames[: len(frames) // width * width], np.uint8).reshape(-1, width)
        top = raw[:, -2:].copy().view("<i2").reshape(-1)  # the two most significant bytes
        samples = top.astype(np.float32) / 32768.0
    else:
        raise AudioFileError(f"The WAV file uses {8 * width}-bit samples, which are not supported.")
    if channels > 1:
        samples = samples[: samples.size // channels * channels].reshape(-1, channels).mean(axis=1)
    return resample(samples, rate)


def _decode_other(path: Path) -> np.ndarray:
    try:
        from faster_whisper import decode_audio
    except ImportError:
        raise AudioFileError(
            f"{path.name} is not a WAV file; reading other formats (FLAC, MP3, ...) needs the "
            "voice packages: pip install 'companion-desktop[voice]'."
        ) from None
    try:
        samples = decode_audio(str(path), sampling_rate=SAMPLE_RATE)
    except Exception as error:  # noqa: BLE001 - PyAV raises many kinds; all mean "unreadable"
        raise AudioFileError(f"{path.name} could not be decoded as audio "
                             f"({type(error).__name__}).") from None
    return np.asarray(samples, dtype=np.float32)


def load_audio(path: str | Path) -> np.ndarray:
    """The file's sound as float32 mono 16 kHz samples; AudioFileError when it cannot be read."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            head = file.read(12)
    except FileNotFoundError:
        raise AudioFileError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise AudioFileError(f"{path} is a folder, not an audio file.") from None
    except OSError as error:
        raise AudioFileError(f"{path} cannot be read ({error.strerror or error}).") from None
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        try:
            samples = _read_wav(path.read_bytes())
        except (wave.Error, EOFError):
            samples = _decode_other(path)  # float or compressed WAV: the full decoder
    else:
        samples = _decode_other(path)
    if samples.size == 0:
        raise AudioFileError(f"{path.name} holds no sound.")
    if samples.size > MAX_FILE_SECONDS * SAMPLE_RATE:
        raise AudioFileError(f"{path.name} is longer than {MAX_FILE_SECONDS // 60} minutes.")
    return np.clip(np.nan_to_num(samples), -1.0, 1.0).astype(np.float32)
