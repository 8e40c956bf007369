"""Playing one clip of her speech: on the default audio output when there is one, else
"silently" on a monotonic clock (CI, Xvfb), so timing and the mouth work the same.

:class:`Clip` is one synthesized part with its mouth track; :class:`Playback` plays it and
says how much of it has been heard (``QAudioSink.processedUSecs``), so the lips follow
what is heard.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject
from PySide6.QtMultimedia import QAudioSink, QMediaDevices, QtAudio

from companion_desktop.avatar.lipsync import MouthTrack
from companion_desktop.llm.tts import SpeechAudio
from companion_desktop.ui.voice.audio_out import fit_to_device

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Clip:
    """One synthesized part: its audio and the mouth weights over its duration."""

    audio: SpeechAudio
    track: MouthTrack
    text: str = ""  # what she says in it (her hearing knows her own words)


def has_audio_output() -> bool:
    """True when the system offers an audio output device."""
    return bool(QMediaDevices.audioOutputs())


class Playback(QObject):
    """Plays one clip: on the default output when there is one, else on ``clock``.

    ``position()`` is the seconds heard so far (0..duration); ``done()`` is True once the
    whole clip was played.
    """

    def __init__(self, clip: Clip, clock: Callable[[], float], audible: bool,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.clip = clip
        self.clock = clock
        self.duration = len(clip.audio.pcm) / 2 / max(1, clip.audio.sample_rate)
        self.sink: QAudioSink | None = None
        self.buffer: QBuffer | None = None
        self.t0 = clock()
        if audible:
            self._open_sink()

    def _open_sink(self) -> None:
        device = QMediaDevices.defaultAudioOutput()
        fitted = None if device.isNull() else fit_to_device(self.clip.audio.pcm,
                                                             self.clip.audio.sample_rate, device)
        if fitted is None:
            log.info("no audio output for %d Hz speech; speaking silently",
                     self.clip.audio.sample_rate)
            return
        data, fmt = fitted
        self.buffer = QBuffer(self)
        self.buffer.setData(QByteArray(data))
        self.buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        self.sink = QAudioSink(device, fmt, self)
        self.sink.start(self.buffer)
        if self.sink.error() != QtAudio.Error.NoError:
            log.info("audio output refused the clip (%s); speaking silently", self.sink.error())
            self._drop_sink()
        self.t0 = self.clock()

    def _drop_sink(self) -> None:
        if self.sink is not None:
            self.sink.stop()
            self.sink.deleteLater()
            self.sink = None

    def position(self) -> float:
        """Seconds of the clip heard so far, 0..duration."""
        if self.sink is not None:
            heard = self.sink.processedUSecs() / 1e6
        else:
            heard = self.clock() - self.t0
        return min(self.duration, max(0.0, heard))

    def done(self) -> bool:
        if self.sink is None:
            return self.clock() - self.t0 >= self.duration
        state = self.sink.state()
        drained = self.buffer is not None and self.buffer.atEnd()
        if state == QtAudio.State.StoppedState and self.sink.error() != QtAudio.Error.NoError:
            log.info("audio output failed mid-clip (%s); speaking silently", self.sink.error())
            self._drop_sink()
            return self.done()
        return (state == QtAudio.State.IdleState and drained) or state == QtAudio.State.StoppedState

    def stop(self) -> None:
        self._drop_sink()
        self.deleteLater()
