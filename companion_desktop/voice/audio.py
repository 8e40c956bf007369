"""Audio as the voice code carries it: float32 mono samples at 16 kHz, -1..1.

:func:`load_audio` reads a file (WAV with the standard library, anything else through
PyAV, which the voice packages bring), a piece at a time: a file is refused as soon as it
passes :data:`MAX_FILE_SECONDS`, and one whose sample rate is outside :data:`MIN_RATE`..
:data:`MAX_RATE` before any of it is decoded. :class:`AudioFileError` says plainly why a
file cannot be used.
"""

from __future__ import annotations

import io
import wave
from itertools import chain
from pathlib import Path

import numpy as np

from companion_desktop.voice.resample import StreamResampler
from companion_desktop.voice.resample import resample as _resample

SAMPLE_RATE = 16000
#: The longest file accepted, in seconds (longer speech is not one turn).
MAX_FILE_SECONDS = 30 * 60
#: The sample rates a file may have, in Hz: a header's rate sets the resampler's work
#: (far above, a small file costs minutes) and its output's size (far below, gigabytes).
MIN_RATE, MAX_RATE = 4_000, 384_000
#: Bytes of a WAV file's samples read at a time.
WAV_BLOCK_BYTES = 1 << 20


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
    """``samples`` (float32 mono at ``rate`` Hz) at ``target`` Hz: linear interpolation, with
    a short moving-average low-pass first when going down (speech is fine with it)."""
    return _resample(samples, rate, target)


def check_rate(rate: int, name: str) -> None:
    """AudioFileError unless ``rate`` (Hz) is within :data:`MIN_RATE`..:data:`MAX_RATE`."""
    if not MIN_RATE <= rate <= MAX_RATE:
        raise AudioFileError(f"{name} has a sample rate of {rate} Hz; only "
                             f"{MIN_RATE // 1000}-{MAX_RATE // 1000} kHz is accepted.")


def _too_long(name: str) -> AudioFileError:
    return AudioFileError(f"{name} is longer than {MAX_FILE_SECONDS // 60} minutes.")


def _pcm_floats(frames: bytes, width: int, channels: int) -> np.ndarray:
    """Whole frames of ``width``-byte integer PCM as float32 mono -1..1."""
    frames = frames[: len(frames) // (width * channels) * width * channels]
    if width == 1:
        samples = (np.frombuffer(frames, np.uint8).astype(np.float32) - 128.0) / 128.0
    elif width == 2:
        samples = np.frombuffer(frames, "<i2").astype(np.float32) / 32768.0
    else:
        raw = np.frombuffer(frames, np.uint8).reshape(-1, width)
        top = raw[:, -2:].copy().view("<i2").reshape(-1)  # the two most significant bytes
        samples = top.astype(np.float32) / 32768.0
    return samples.reshape(-1, channels).mean(axis=1) if channels > 1 else samples


def _read_wav(path: Path) -> np.ndarray:
    """An integer-PCM WAV file read :data:`WAV_BLOCK_BYTES` at a time and resampled as it
    goes, so neither the file nor its samples at their own rate are held whole; refused
    past :data:`MAX_FILE_SECONDS` (at once when the header says so and the file is that
    long; a header claiming more than the file holds, as streamed WAVs do, is read on)."""
    with wave.open(str(path), "rb") as wav:
        channels, width, rate = wav.getnchannels(), wav.getsampwidth(), wav.getframerate()
        check_rate(rate, path.name)
        if width not in (1, 2, 3, 4):
            raise AudioFileError(f"{path.name} uses {8 * width}-bit samples, which are not "
                                 "supported.")
        limit = MAX_FILE_SECONDS * rate
        if wav.getnframes() > limit and wav.getnframes() * channels * width <= path.stat().st_size:
            raise _too_long(path.name)
        stream, pieces, frames_read = StreamResampler(rate, SAMPLE_RATE), [], 0
        while frames := wav.readframes(max(1, WAV_BLOCK_BYTES // (channels * width))):
            samples = _pcm_floats(frames, width, channels)
            frames_read += samples.size
            if frames_read > limit:
                raise _too_long(path.name)
            pieces.append(stream.feed(samples))
        pieces.append(stream.end())
    return np.concatenate(pieces)


def _frames(container, invalid: type[Exception]):
    """The first audio stream's decoded frames, skipping those that fail as ``invalid``."""
    frames = container.decode(audio=0)
    while True:
        try:
            yield next(frames)
        except StopIteration:
            return
        except invalid:
            continue


def _decode_other(path: Path) -> np.ndarray:
    """Any format FFmpeg reads, through PyAV (which faster-whisper brings): decoded and
    resampled a frame at a time, and stopped as soon as it passes :data:`MAX_FILE_SECONDS`
    (a small compressed file can hold hours of sound)."""
    try:
        import av
    except ImportError:
        raise AudioFileError(
            f"{path.name} is not a WAV file; reading other formats (FLAC, MP3, ...) needs the "
            "voice packages: pip install 'companion-desktop[voice]'."
        ) from None
    pieces: list[np.ndarray] = []
    total, limit = 0, MAX_FILE_SECONDS * SAMPLE_RATE
    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            resampler = av.AudioResampler(format="s16", layout="mono", rate=SAMPLE_RATE)
            for frame in chain(_frames(container, av.error.InvalidDataError), [None]):
                if frame is not None:
                    check_rate(frame.sample_rate, path.name)
                for out in resampler.resample(frame):  # None: what the resampler still holds
                    pieces.append(out.to_ndarray().reshape(-1))
                    total += pieces[-1].size
                if total > limit:
                    raise _too_long(path.name)
    except AudioFileError:
        raise
    except Exception as error:  # noqa: BLE001 - PyAV raises many kinds; all mean "unreadable"
        raise AudioFileError(f"{path.name} could not be decoded as audio "
                             f"({type(error).__name__}).") from None
    if not pieces:
        return np.zeros(0, np.float32)
    return np.concatenate(pieces).astype(np.float32) / 32768.0


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
            samples = _read_wav(path)
        except (wave.Error, EOFError):
            samples = _decode_other(path)  # float or compressed WAV: the full decoder
    else:
        samples = _decode_other(path)
    if samples.size == 0:
        raise AudioFileError(f"{path.name} holds no sound.")
    if samples.size > MAX_FILE_SECONDS * SAMPLE_RATE:
        raise _too_long(path.name)
    return np.clip(np.nan_to_num(samples), -1.0, 1.0).astype(np.float32)
