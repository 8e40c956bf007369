"""Out of the way: she hides while the active window is fullscreen (a game, a video).

Per-application rules, matched on the application name (WM_CLASS, any case): "never hide
for" keeps her shown even over that application's fullscreen window; "always hide for"
hides her whenever that application's window is the active one, fullscreen or not.
Hidden here, the overlay draws nothing (a hidden window is not rendered); she comes back
when the rule no longer holds, unless she was hidden by the user meanwhile.
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from companion_desktop.ui.desktop.x11 import DesktopX11


def parse_apps(text: str) -> list[str]:
    """Application names typed as a comma- or line-separated list, cleaned and de-duplicated."""
    seen: list[str] = []
    for part in text.replace("\n", ",").split(","):
        name = part.strip()
        if name and name.lower() not in (s.lower() for s in seen):
            seen.append(name[:100])
    return seen[:200]


def should_hide(active: tuple[str, str, bool] | None, hide_fullscreen: bool,
                always: list[str], never: list[str]) -> bool:
    """Whether she hides for the active window ``(app, title, fullscreen)``."""
    if active is None:
        return False
    app = active[0].lower()
    if app and app in (a.lower() for a in never):
        return False
    if app and app in (a.lower() for a in always):
        return True
    return hide_fullscreen and active[2]


class FullscreenGuard(QObject):
    """Hides ``widget`` while ``should_hide`` holds for the active window."""

    def __init__(self, widget: QWidget, desk: DesktopX11) -> None:
        super().__init__(widget)
        self.widget = widget
        self.desk = desk
        self.hide_fullscreen = False
        self.always: list[str] = []
        self.never: list[str] = []
        self.hiding = False  # she is hidden by this guard (the app still counts her shown)
        desk.active_changed.connect(self.check)

    def configure(self, hide_fullscreen: bool, always: list[str], never: list[str]) -> None:
        self.hide_fullscreen, self.always, self.never = hide_fullscreen, always, never
        self.desk.want("fullscreen", hide_fullscreen or bool(always))
        self.check()

    def check(self) -> None:
        hide = self.desk.running and should_hide(self.desk.active_window(), self.hide_fullscreen,
                                                 self.always, self.never)
        if hide and not self.hiding and self.widget.isVisible():
            self.hiding = True
            self.widget.hide()
        elif not hide and self.hiding:
            self.hiding = False
            self.widget.show()

    def user_toggled(self) -> None:
        """The user showed or hid her: that wins until the next change of window."""
        self.hiding = False
