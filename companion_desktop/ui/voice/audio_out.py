"""Fitting her speech to the audio output: most outputs take the synthesized clip as it is
(16-bit mono at its own rate); one that does not gets it resampled to its preferred rate
and channel count, as 16-bit or float samples, so she is heard instead of falling silent.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtMultimedia import QAudioDevice, QAudioFormat

Int16 = QAudioFormat.SampleFormat.Int16
Float = QAudioFormat.SampleFormat.Float


def audio_format(rate: int, channels: int = 1, sample_format: QAudioFormat.SampleFormat = Int16
                 ) -> QAudioFormat:
    fmt = QAudioFormat()
    fmt.setSampleRate(rate)
    fmt.setChannelCount(channels)
    fmt.setSampleFormat(sample_format)
    return fmt


def convert_pcm(pcm: bytes, rate: int, to_rate: int, channels: int = 1,
                as_float: bool = False) -> bytes:
    """16-bit mono ``pcm`` at ``rate`` Hz as ``channels`` interleaved channels at ``to_rate``
    Hz (linear interpolation: speech needs nothing finer), 16-bit or 32-bit float."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    if to_rate != rate and samples.size:
        count = max(1, round(samples.size * to_rate / rate))
        positions = np.arange(count, dtype=np.float64) * (rate / to_rate)
        samples = np.interp(positions, np.arange(samples.size), samples).astype(np.float32)
    frames = np.repeat(samples[:, None], max(1, channels), axis=1)
    if as_float:
        return frames.astype("<f4").tobytes()
    return np.clip(np.round(frames * 32768.0), -32768, 32767).astype("<i2").tobytes()


def fit_to_device(pcm: bytes, rate: int, device: QAudioDevice) -> tuple[bytes, QAudioFormat] | None:
    """The clip and the format to play it in on ``device``; None when it takes neither the
    clip's own format nor its preferred rate and channels as 16-bit or float samples."""
    own = audio_format(rate)
    if device.isFormatSupported(own):
        return pcm, own
    preferred = device.preferredFormat()
    to_rate, channels = preferred.sampleRate(), max(1, preferred.channelCount())
    for sample_format in (Int16, Float):
        fmt = audio_format(to_rate, channels, sample_format)
        if device.isFormatSupported(fmt):
            return convert_pcm(pcm, rate, to_rate, channels, sample_format == Float), fmt
    return None
