"""The neural voices' one error of their own: a voice file that cannot be used."""

from __future__ import annotations

from companion_desktop.llm.wav import TtsError


class VoiceFileError(TtsError):
    """A voice file was refused (or an imported one no longer loads); ``str(error)`` is
    one line for the user that says why. A :class:`TtsError`, so a caller that catches
    speech failures catches it too."""
