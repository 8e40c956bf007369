"""Her life on the desktop: X11, where she stands, walking, speaking first, hotkeys, the tray.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .hotkeys import ACTIONS, GlobalHotkeys, HotkeyError, refusal, to_pynput
    from .out_of_way import parse_apps
    from .screen.capture import ScreenRefused, ScreenShot, take_screenshot
    from .side import Desktop
    from .x11_probe import x11_unavailable_reason

__all__ = [
    "ACTIONS", "Desktop", "GlobalHotkeys", "HotkeyError", "parse_apps", "refusal",
    "ScreenRefused", "ScreenShot", "take_screenshot", "to_pynput", "x11_unavailable_reason",
]
__getattr__, __dir__ = door(__name__, {
    "ACTIONS": "hotkeys",
    "Desktop": "side",
    "GlobalHotkeys": "hotkeys",
    "HotkeyError": "hotkeys",
    "parse_apps": "out_of_way",
    "refusal": "hotkeys",
    "ScreenRefused": "screen.capture",
    "ScreenShot": "screen.capture",
    "take_screenshot": "screen.capture",
    "to_pynput": "hotkeys",
    "x11_unavailable_reason": "x11_probe",
})
