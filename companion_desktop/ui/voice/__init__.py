"""Her voice and her hearing in the app: playback with lip-sync, the microphone, the mic button.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .avatar_link import VoiceLink
    from .hearing import Hearing
    from .hearing_desktop import DesktopHearing
    from .hearing_view import ChatHearing, ListenLine, MicButton, key_of
    from .mic import NO_MICROPHONE, MicSource, device_key, microphones
    from .output import BoundVoice, VoiceOut

__all__ = [
    "BoundVoice", "ChatHearing", "DesktopHearing", "device_key", "Hearing", "key_of", "ListenLine",
    "MicButton", "microphones", "MicSource", "NO_MICROPHONE", "VoiceLink", "VoiceOut",
]
__getattr__, __dir__ = door(__name__, {
    "BoundVoice": "output",
    "ChatHearing": "hearing_view",
    "DesktopHearing": "hearing_desktop",
    "device_key": "mic",
    "Hearing": "hearing",
    "key_of": "hearing_view",
    "ListenLine": "hearing_view",
    "MicButton": "hearing_view",
    "microphones": "mic",
    "MicSource": "mic",
    "NO_MICROPHONE": "mic",
    "VoiceLink": "avatar_link",
    "VoiceOut": "output",
})
