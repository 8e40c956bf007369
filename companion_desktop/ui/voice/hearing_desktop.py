"""Her hearing on the desktop: barge-in, her own voice taken out, and the overlay's share.

``DesktopHearing`` joins the chat window's ``Hearing`` to her voice and the overlay:

- speech that starts while she speaks stops her voice at once (barge-in); the chat
  window's ``ChatHearing`` then stops a running turn and sends the new one;
- every clip she starts playing goes to the echo canceller with its words
  (``Hearing.her_voice``), so her own voice from the speakers is not taken for the user's;
- the overlay's mic button presses and toggles like the chat's, its bubble shows
  "Listening…", "Hearing…", "Recognising…" while she listens, and a problem there.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject

from companion_desktop.voice.audio import SAMPLE_RATE, pcm16_to_float, resample

#: Bubble phases for the hearing states (``ui.shimmer.phase_text`` words them).
BUBBLE_PHASES = {"listening": "listening", "hearing": "hearing", "recognising": "recognising"}


def clip_samples(audio) -> np.ndarray:  # noqa: ANN001 - llm.tts.SpeechAudio
    """A synthesized clip (16-bit mono at its own rate) as float32 at 16 kHz."""
    return resample(pcm16_to_float(audio.pcm), audio.sample_rate, SAMPLE_RATE)


class DesktopHearing(QObject):
    def __init__(self, hearing, overlay, voice, parent: QObject | None = None) -> None:  # noqa: ANN001
        super().__init__(parent)
        self.hearing = hearing
        self.overlay = overlay
        self.voice = voice  # ui.voice_link.VoiceLink
        self.barged_in = 0  # how often speech cut her off (tests, bench)
        self._phase_shown = False
        hearing.speech_started.connect(self.barge_in)
        voice.voice.clip_started.connect(
            lambda audio, text: hearing.her_voice(clip_samples(audio), text))
        button = overlay.mic_button
        button.held.connect(hearing.press)
        button.let_go.connect(hearing.release)
        button.toggled_listening.connect(lambda on: hearing.set_paused(not on))
        hearing.changed.connect(self.show_mode)
        hearing.state_changed.connect(self._state)
        hearing.problem.connect(self._problem)
        from companion_desktop.ui.voice.hearing_view import PushToTalkKey

        self.key = PushToTalkKey(hearing, overlay)
        self.show_mode()

    def barge_in(self) -> None:
        """The user began to speak: her voice stops now, and what the turn still streams
        is not said (the sentences queued are dropped)."""
        was_speaking = self.voice.busy
        self.voice.stop()
        if was_speaking:
            self.hearing.her_voice_stopped()
            self.barged_in += 1

    def show_mode(self) -> None:
        self.overlay.mic_button.set_mode(self.hearing.mode, self.hearing.settings.ptt_key)
        self._state(self.hearing.state)
        self.overlay.place_mic()

    def _state(self, state: str) -> None:
        self.overlay.mic_button.set_state(state)
        bubble = self.overlay.bubble
        phase = BUBBLE_PHASES.get(state)
        if phase is not None and (state != "listening" or self._phase_shown
                                  or not bubble.isVisible()):
            self.overlay.on_phase(phase)
            self._phase_shown = True
        elif phase is None and self._phase_shown:
            self._phase_shown = False
            if bubble.phase.isVisible():
                bubble.hide()

    def _problem(self, message: str) -> None:
        self._phase_shown = False
        if self.overlay.isVisible():
            self.overlay.on_failed(message)
