"""The chat window: the conversation, the message box, her state beside it, tools and scenes.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .backend import ChatBackend
    from .window import ChatWindow

__all__ = [
    "ChatBackend", "ChatWindow",
]
__getattr__, __dir__ = door(__name__, {
    "ChatBackend": "backend",
    "ChatWindow": "window",
})
