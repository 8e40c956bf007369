"""Her window on the desktop: the frameless overlay, her speech bubble, photo mode.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .photo_mode import PhotoDialog
    from .window import OverlayWindow

__all__ = [
    "OverlayWindow", "PhotoDialog",
]
__getattr__, __dir__ = door(__name__, {
    "OverlayWindow": "window",
    "PhotoDialog": "photo_mode",
})
