"""Where her hearing gets its sound: the microphone, or a file played in its place.

Both sources emit ``chunk(samples)``: float32 mono at 16 kHz (``voice.audio.SAMPLE_RATE``),
a few tens of milliseconds at a time, on the GUI thread. :class:`MicSource` opens a
``QAudioSource`` on the chosen input (16 kHz mono 16-bit or float when the device takes
it, else its own format converted here) only between ``start()`` and ``stop()``; a
device that is missing, refuses to open, stops with an error, stops sending sound (its
sound server gone) or is unplugged gives ``failed(message)`` and closes.
:class:`FileSource` plays samples (a WAV file, an
array) through the same signal at real time or faster; with ``live`` it goes on with
silence once they are played, like a quiet microphone, and ``feed`` adds more.
"""

from __future__ import annotations

import logging
import time
from collections import deque

import numpy as np
from PySide6.QtCore import QByteArray, QObject, QTimer, Signal
from PySide6.QtMultimedia import QAudioDevice, QAudioFormat, QAudioSource, QMediaDevices, QtAudio

from companion_desktop.voice.audio import SAMPLE_RATE as RATE
from companion_desktop.voice.audio import load_audio, resample

log = logging.getLogger(__name__)

READ_MS = 40
NO_MICROPHONE = "No microphone found. Connect one to talk to her; typing works as always."
MIC_GONE = "The microphone was disconnected; she stopped listening."
MIC_SILENT = "The microphone stopped sending sound; she stopped listening."
#: An open microphone sends sound all the time (silence too): none for this long (twice
#: this before its first sound) means it stopped working, however quiet the audio system is.
STALL_S = 2.5


def microphones() -> list[QAudioDevice]:
    """The audio inputs the system offers now (none under Xvfb)."""
    return list(QMediaDevices.audioInputs())


def device_key(device: QAudioDevice) -> str:
    """A device's stored id: its ``id()`` bytes as hex."""
    return bytes(device.id().data()).hex()


def find_microphone(key: str | None) -> QAudioDevice | None:
    """The input stored as ``key``; else the system default; else the first; None when none."""
    inputs = microphones()
    for device in inputs:
        if key and device_key(device) == key:
            return device
    default = QMediaDevices.defaultAudioInput()
    if not default.isNull() and (not key or not inputs):
        return default
    return inputs[0] if inputs else (None if default.isNull() else default)


def _format(rate: int, channels: int, sample: QAudioFormat.SampleFormat) -> QAudioFormat:
    fmt = QAudioFormat()
    fmt.setSampleRate(rate)
    fmt.setChannelCount(channels)
    fmt.setSampleFormat(sample)
    return fmt


def capture_format(device: QAudioDevice) -> QAudioFormat:
    """16 kHz mono 16-bit or float when ``device`` takes it, else its preferred format."""
    for sample in (QAudioFormat.SampleFormat.Int16, QAudioFormat.SampleFormat.Float):
        fmt = _format(RATE, 1, sample)
        if device.isFormatSupported(fmt):
            return fmt
    return device.preferredFormat()


_DTYPES = {
    QAudioFormat.SampleFormat.UInt8: ("u1", 128.0, 128.0),
    QAudioFormat.SampleFormat.Int16: ("<i2", 0.0, 32768.0),
    QAudioFormat.SampleFormat.Int32: ("<i4", 0.0, 2147483648.0),
    QAudioFormat.SampleFormat.Float: ("<f4", 0.0, 1.0),
}


def to_mono_16k(data: bytes, fmt: QAudioFormat) -> np.ndarray:
    """Captured bytes in ``fmt`` as float32 mono samples at 16 kHz (-1..1)."""
    dtype, offset, scale = _DTYPES.get(fmt.sampleFormat(), _DTYPES[QAudioFormat.SampleFormat.Int16])
    channels = max(1, fmt.channelCount())
    raw = np.frombuffer(data, dtype=dtype)
    raw = raw[: raw.size - raw.size % channels]
    samples = ((raw.astype(np.float32) - offset) / scale).reshape(-1, channels).mean(axis=1)
    return np.clip(resample(samples, fmt.sampleRate(), RATE), -1.0, 1.0).astype(np.float32)


def broken(source: QAudioSource) -> bool:
    """True when ``source`` reports an error (could not open, stopped by a fault). Its
    error and state are QtAudio's enums (Qt 6.7 renamed the QAudio namespace): a QAudio
    value never equals them, and every microphone looked broken."""
    return source.error() != QtAudio.Error.NoError


class AudioSource(QObject):
    """What a source offers: ``chunk(float32 array)``, ``failed(message)``, ``ended``."""

    chunk = Signal(object)
    failed = Signal(str)
    ended = Signal()

    @property
    def active(self) -> bool:
        raise NotImplementedError

    def start(self) -> bool:
        raise NotImplementedError

    def stop(self) -> None:
        raise NotImplementedError

    def flush(self) -> None:
        """Emit what was captured but not yet delivered (before a push-to-talk release)."""


class MicSource(AudioSource):
    """The microphone stored as ``key`` (None: the system default)."""

    def __init__(self, key: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.key = key
        self.device: QAudioDevice | None = None
        self._source: QAudioSource | None = None
        self._io = None
        self._format: QAudioFormat | None = None
        self._heard_at = 0.0
        self._timer = QTimer(self, interval=READ_MS, timeout=self.flush)
        self._devices = QMediaDevices(self)
        self._devices.audioInputsChanged.connect(self._inputs_changed)

    @property
    def active(self) -> bool:
        return self._source is not None

    def start(self) -> bool:
        """Open the microphone; False (and ``failed``) when there is none or it refuses."""
        if self._source is not None:
            return True
        device = find_microphone(self.key)
        if device is None:
            self.failed.emit(NO_MICROPHONE)
            return False
        fmt = capture_format(device)
        source = QAudioSource(device, fmt, self)
        io = source.start()
        if io is None or broken(source):
            source.deleteLater()
            self.failed.emit(f"The microphone “{device.description()}” could not be opened "
                             "(in use by another program, unplugged, or not allowed).")
            return False
        self.device, self._source, self._io, self._format = device, source, io, fmt
        self._heard_at = time.monotonic() + STALL_S  # a slow start is not a stall
        self._timer.start()
        log.info("microphone open: %s, %d Hz, %d ch", device.description(), fmt.sampleRate(),
                 fmt.channelCount())
        return True

    def stop(self) -> None:
        self._timer.stop()
        source, self._source, self._io = self._source, None, None
        if source is not None:
            source.stop()
            source.deleteLater()

    def flush(self) -> None:
        """Deliver what was captured; a source that stopped with an error, or sent nothing
        for :data:`STALL_S`, fails. (Its state is read here: PySide cannot pass
        ``stateChanged``'s argument to Python, and a lost sound server is not reported.)"""
        source = self._source
        if source is None or self._io is None or self._format is None:
            return
        data: QByteArray = self._io.readAll()
        if data.size():
            self._heard_at = time.monotonic()
            self.chunk.emit(to_mono_16k(bytes(data.data()), self._format))
        if source is not self._source:  # stopped while the chunk was heard
            return
        if source.state() == QtAudio.State.StoppedState and broken(source):
            self._fail(f"The microphone stopped working ({source.error().name}); "
                       "she stopped listening.")
        elif time.monotonic() - self._heard_at > STALL_S:
            self._fail(MIC_SILENT)

    def _inputs_changed(self) -> None:
        if self.device is not None and self._source is not None and not any(
                device.id() == self.device.id() for device in microphones()):
            self._fail(MIC_GONE)

    def _fail(self, message: str) -> None:
        self.stop()
        self.failed.emit(message)


class FileSource(AudioSource):
    """Plays float32 16 kHz ``samples`` as if heard, ``speed`` times real time.

    ``live``: once played, silence follows until ``stop`` (a quiet room), and ``feed``
    queues more; otherwise ``ended`` fires after the last chunk and it stops.
    """

    def __init__(self, samples: np.ndarray | None = None, speed: float = 1.0,
                 live: bool = False, chunk_ms: int = READ_MS,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.speed = max(0.1, float(speed))
        self.live = live
        self.chunk_size = RATE * chunk_ms // 1000
        self._queue: deque[np.ndarray] = deque()
        self.played = 0  # samples emitted so far (the capture timeline)
        self._timer = QTimer(self, interval=max(1, round(chunk_ms / self.speed)),
                             timeout=self._tick)
        if samples is not None:
            self.feed(samples)

    @classmethod
    def from_file(cls, path: str, **options) -> FileSource:  # noqa: ANN003
        """A WAV (or FLAC/MP3 where the decoder allows) file; ``voice.audio.AudioFileError``."""
        return cls(load_audio(path), **options)

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    @property
    def pending_s(self) -> float:
        """Seconds queued and not yet played."""
        return sum(part.size for part in self._queue) / RATE

    def feed(self, samples: np.ndarray) -> None:
        data = np.asarray(samples, dtype=np.float32).reshape(-1)
        for start in range(0, data.size, self.chunk_size):
            self._queue.append(data[start:start + self.chunk_size])

    def mix(self, samples: np.ndarray, delay_s: float = 0.0, gain: float = 1.0) -> None:
        """Add ``samples`` to what is still to play, ``delay_s`` from now (two sounds in one
        room: her voice from the speakers and the user talking over it)."""
        data = np.asarray(samples, dtype=np.float32).reshape(-1) * gain
        queued = np.concatenate(list(self._queue)) if self._queue else np.zeros(0, np.float32)
        start = round(delay_s * RATE)
        total = np.zeros(max(queued.size, start + data.size), np.float32)
        total[:queued.size] = queued
        total[start:start + data.size] += data
        self._queue.clear()
        self.feed(np.clip(total, -1.0, 1.0))

    def start(self) -> bool:
        self._timer.start()
        return True

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        if self._queue or self.live:
            chunk = self._queue.popleft() if self._queue else np.zeros(self.chunk_size, np.float32)
            self.played += chunk.size
            self.chunk.emit(chunk)
        else:
            self.stop()
            self.ended.emit()
