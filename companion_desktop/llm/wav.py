"""Speech audio as the app carries it, and WAV decoding.

:class:`SpeechAudio` is raw signed 16-bit little-endian mono PCM and its sample rate
(no numpy here; ``array`` assumes a little-endian machine, as every supported one is).
:func:`decode_wav` turns any common WAV file into it. :class:`TtsError` is the speech
failure (its message fit to show the user); :mod:`~companion_desktop.llm.tts`
re-exports all three.
"""

from __future__ import annotations

import struct
from array import array
from dataclasses import dataclass

from companion_desktop.voice.audio import MAX_RATE, MIN_RATE

#: Content types a WAV body may be labelled with.
WAV_TYPES = ("audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave")


class TtsError(Exception):
    """Speech failed; ``str(error)`` is a message for the user (never contains a key)."""


@dataclass(frozen=True)
class SpeechAudio:
    """Signed 16-bit little-endian mono PCM at ``sample_rate`` Hz."""

    pcm: bytes
    sample_rate: int

    @property
    def duration(self) -> float:
        """Length in seconds."""
        return len(self.pcm) // 2 / self.sample_rate if self.sample_rate > 0 else 0.0


def decode_wav(data: bytes) -> SpeechAudio:
    """16-bit mono PCM from a WAV file: 8/16/24/32-bit integer or 32-bit float samples,
    1-16 channels (averaged), 4-384 kHz (the player and her hearing resample it). A data
    length past the end of the file (espeak-ng's ``--stdout`` writes 0x7FFFFFFF) means "up
    to the end"."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise TtsError(f"The audio is not a WAV file (it starts with {bytes(data[:4])!r}).")
    fmt: bytes | None = None
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = struct.unpack_from("<4sI", data, pos)
        pos += 8
        if chunk == b"fmt ":
            fmt = bytes(data[pos:pos + size])
        elif chunk == b"data":
            if fmt is None or len(fmt) < 16:
                raise TtsError("The WAV audio has no format header before its samples.")
            return _wav_samples(fmt, bytes(data[pos:min(len(data), pos + size)]))
        pos += size + (size & 1)
    raise TtsError("The WAV audio has no samples.")


def _wav_samples(fmt: bytes, data: bytes) -> SpeechAudio:
    kind, channels, rate, _, _, bits = struct.unpack_from("<HHIIHH", fmt)
    if kind == 0xFFFE and len(fmt) >= 26:  # WAVE_FORMAT_EXTENSIBLE: the sub-format's tag
        kind = struct.unpack_from("<H", fmt, 24)[0]
    if (kind, bits) not in ((1, 8), (1, 16), (1, 24), (1, 32), (3, 32)):
        raise TtsError(f"The WAV audio uses an unsupported sample format "
                       f"(format {kind}, {bits} bits).")
    if not 1 <= channels <= 16 or not MIN_RATE <= rate <= MAX_RATE:  # the rate sets resampling
        raise TtsError(f"The WAV audio has {channels} channels at {rate} Hz; "
                       f"that cannot be played (1-16 channels at {MIN_RATE // 1000}-"
                       f"{MAX_RATE // 1000} kHz can).")
    width = bits // 8
    data = data[: len(data) // (width * channels) * width * channels]
    if kind == 3:  # float: clipped to -1..1, NaN as silence
        pcm = array("h", (0 if x != x else round(max(-1.0, min(1.0, x)) * 32767)
                          for x in array("f", data))).tobytes()
    elif width == 1:  # unsigned 8-bit: flip the sign bit, use as the high byte
        pcm16 = bytearray(2 * len(data))
        pcm16[1::2] = data.translate(bytes((b ^ 0x80) for b in range(256)))
        pcm = bytes(pcm16)
    else:  # keep the two most significant bytes of each little-endian sample
        pcm16 = bytearray(2 * (len(data) // width))
        pcm16[0::2], pcm16[1::2] = data[width - 2::width], data[width - 1::width]
        pcm = bytes(pcm16)
    return SpeechAudio(_mono(pcm, channels), rate)


def _mono(pcm: bytes, channels: int) -> bytes:
    """Interleaved 16-bit little-endian PCM averaged down to one channel."""
    if channels == 1:
        return pcm
    samples = array("h", pcm)
    lanes = [samples[c::channels] for c in range(channels)]
    frames = zip(*lanes, strict=False)  # a partial last frame is dropped
    return array("h", (sum(frame) // channels for frame in frames)).tobytes()


def decode_wav_from(data: bytes, source: str) -> SpeechAudio:
    """:func:`decode_wav`, its error message starting with what sent ``data``."""
    try:
        return decode_wav(data)
    except TtsError as exc:
        raise TtsError(f"{source} sent audio that could not be read. {exc}") from None
