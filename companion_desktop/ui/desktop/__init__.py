"""The desktop side of the app and her life there: the X11 layer, where she stands, walking, out-of-the-way rules, speaking first, idle time, global hotkeys.

What other rooms may use is offered here (``ui.door``); they never import this room's
modules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion_desktop.ui.door import door

if TYPE_CHECKING:
    from .hotkeys import ACTIONS, GlobalHotkeys, HotkeyError, refusal, to_pynput
    from .out_of_way import parse_apps
    from .side import Desktop
    from .x11_probe import x11_unavailable_reason

__all__ = ['ACTIONS', 'GlobalHotkeys', 'HotkeyError', 'refusal', 'to_pynput', 'Desktop', 'parse_apps', 'x11_unavailable_reason']
__getattr__, __dir__ = door(__name__, {
    "ACTIONS": "hotkeys",
    "GlobalHotkeys": "hotkeys",
    "HotkeyError": "hotkeys",
    "refusal": "hotkeys",
    "to_pynput": "hotkeys",
    "Desktop": "side",
    "parse_apps": "out_of_way",
    "x11_unavailable_reason": "x11_probe",
})
