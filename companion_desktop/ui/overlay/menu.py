"""Her right-click menu on the desktop: talk, chat, settings, the toggles, "look at this",
photo mode, do not disturb, hide and quit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from companion_desktop.ui.overlay.window import OverlayWindow


def her_menu(overlay: OverlayWindow) -> QMenu:
    """The menu for ``overlay`` as it is now (its toggles checked as they are)."""
    menu = QMenu(overlay)
    menu.addAction("Talk to her", overlay.show_input)
    menu.addAction("Open chat", overlay.open_chat.emit)
    menu.addAction("Settings…", overlay.open_settings.emit)
    menu.addSeparator()
    top = QAction("Always on top", menu, checkable=True, checked=overlay.always_on_top)
    top.toggled.connect(overlay.set_always_on_top)
    top.setEnabled(not overlay.system_move)  # Wayland keeps no app's window on top
    menu.addAction(top)
    through = QAction("Click through empty space", menu, checkable=True,
                      checked=overlay.click_through)
    through.toggled.connect(overlay.set_click_through)
    menu.addAction(through)
    menu.addAction("Look at this window", lambda: overlay.look_requested.emit("active"))
    menu.addAction("Look at my whole screen", lambda: overlay.look_requested.emit("full"))
    menu.addAction("Photo mode…", overlay.photo_requested.emit)
    if overlay.open_photoboard is not None:
        menu.addAction("Photoboard…", overlay.open_photoboard)
    if overlay.dnd is not None:
        from companion_desktop.ui.dnd import add_dnd_action

        add_dnd_action(menu, overlay.dnd)
    menu.addSeparator()
    menu.addAction("Hide", overlay.hide)
    menu.addAction("Quit", overlay.quit_requested.emit)
    return menu
