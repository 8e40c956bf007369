"""Her life on the desktop, put together for the overlay: the desktop as the window
manager sees it (``DesktopX11``), where she stands (``Placement``) and when she steps out
of the way (``FullscreenGuard``), all following Settings > Display > On the desktop.

With gravity and hiding both off, the desktop is not read at all.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import DesktopLifeSettings, load_settings
from companion_desktop.ui.desktop_x11 import DesktopX11
from companion_desktop.ui.out_of_way import FullscreenGuard
from companion_desktop.ui.placement import Placement


class DesktopLife(QObject):
    """``desk``: the window manager's view (``active_window()``, ``active_changed``) for
    other behaviours too; ``placement``: where she stands (and the hooks for walking)."""

    def __init__(self, overlay, service: CompanionService) -> None:  # noqa: ANN001
        super().__init__(overlay)
        self.service = service
        self.desk = DesktopX11(self)
        self.placement = Placement(overlay, self.desk, feet_inset=overlay.feet_inset)
        self.guard = FullscreenGuard(overlay, self.desk)
        overlay.drag_started.connect(self.placement.grabbed)
        overlay.drag_ended.connect(self.placement.released)
        overlay.rescaled.connect(self.placement.keep_footing)
        self.placement.landed.connect(overlay.remember_position)

    def reload(self) -> None:
        """Take Settings > Display > On the desktop as saved now."""
        try:
            with self.service.db.read_session() as session:
                settings = load_settings(session, DesktopLifeSettings)
        except StorageError:
            settings = DesktopLifeSettings()
        self.apply(settings)

    def apply(self, settings: DesktopLifeSettings) -> None:
        self.guard.configure(settings.hide_fullscreen, settings.always_hide, settings.never_hide)
        self.placement.set_gravity(settings.gravity)
