"""Her life on the desktop, put together for the overlay: the desktop as the window
manager sees it (``DesktopX11``), where she stands (``Placement``) and when she steps out
of the way (``FullscreenGuard``), all following Settings > Desktop > On the desktop.

``walker`` (``ui.walker``, when there is an animation director) walks her along her
surface now and then, with Settings > Desktop > Walking and gravity on. ``windows`` is the
active window for speaking first ("not while fullscreen") and window awareness
(``engine.proactive.ActiveWindowSource``). With gravity, hiding, speaking first and window
awareness all off, the desktop is not read at all.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from companion_desktop.engine.proactive import ActiveWindow
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.errors import StorageError
from companion_desktop.storage.settings import (
    DesktopLifeSettings,
    ProactiveSettings,
    WalkingSettings,
    load_settings,
)
from companion_desktop.ui.desktop.out_of_way import FullscreenGuard
from companion_desktop.ui.desktop.placement import Placement
from companion_desktop.ui.desktop.x11 import DesktopX11


class DesktopLife(QObject):
    """``desk``: the window manager's view (``active_window()``, ``active_changed``) for
    other behaviours too; ``placement``: where she stands (and the hooks for walking)."""

    def __init__(self, overlay, service: CompanionService, host=None) -> None:  # noqa: ANN001
        super().__init__(overlay)
        self.service = service
        self.desk = DesktopX11(self)
        self.placement = Placement(overlay, self.desk, feet_inset=overlay.feet_inset,
                                   avatar_height=overlay.avatar_height)
        self.guard = FullscreenGuard(overlay, self.desk)
        overlay.drag_started.connect(self.placement.grabbed)
        overlay.drag_ended.connect(self.placement.released)
        overlay.rescaled.connect(self.placement.keep_footing)
        self.placement.landed.connect(overlay.remember_position)
        self.windows = ActiveWindows(self.desk, self)
        self.walker = None  # she walks along her surface now and then (with a director)
        director = getattr(host, "director", None)
        if director is not None:
            from companion_desktop.ui.desktop.walker import DirectorPlayer, Walker

            self.walker = Walker(self.placement, DirectorPlayer(director, host.poke),
                                 busy=lambda: None if overlay.isVisible() else "hidden",
                                 enabled=False, parent=self)
            overlay.drag_started.connect(self.walker.interrupt)

    def reload(self) -> None:
        """Take Settings > Desktop > On the desktop as saved now."""
        try:
            with self.service.db.read_session() as session:
                settings = load_settings(session, DesktopLifeSettings)
                talk = load_settings(session, ProactiveSettings)
                walking = load_settings(session, WalkingSettings)
        except StorageError:
            settings, talk, walking = DesktopLifeSettings(), ProactiveSettings(), WalkingSettings()
        self.apply(settings)
        if self.walker is not None:  # walking needs gravity: a surface to walk along
            self.walker.set_enabled(walking.enabled and self.placement.active)
        # speaking first (unless turned off) waits out fullscreen; awareness names the window
        self.desk.want("speaking", talk.speak_first is not False or talk.window_awareness
                       or talk.glance)  # a glance too waits out fullscreen

    def apply(self, settings: DesktopLifeSettings) -> None:
        self.guard.configure(settings.hide_fullscreen, settings.always_hide, settings.never_hide)
        self.placement.set_gravity(settings.gravity)


class ActiveWindows(QObject):
    """The active window as ``ActiveWindow`` (None when unknown or not read), and
    ``active_window_changed(object)`` when it changes."""

    active_window_changed = Signal(object)

    def __init__(self, desk: DesktopX11, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.desk = desk
        desk.active_changed.connect(lambda: self.active_window_changed.emit(self.active_window()))

    def active_window(self) -> ActiveWindow | None:
        active = self.desk.active_window()
        return None if active is None else ActiveWindow(*active)
