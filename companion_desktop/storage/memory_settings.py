"""Settings > Memory > Memory model: which embedding model memory uses.

``model``: "auto" (the multilingual model when this computer can run it, else the
English one), "multilingual" or "english" (``memory.choice``). A change re-embeds the
facts with the new model in the background.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from .settings import SettingsSection

__all__ = ["MemorySettings"]


class MemorySettings(SettingsSection):
    SECTION: ClassVar[str] = "memory"
    model: Literal["auto", "multilingual", "english"] = "auto"
