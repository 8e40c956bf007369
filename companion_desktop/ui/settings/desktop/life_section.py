"""Settings > Desktop > On the desktop: gravity (and riding on windows), hiding for
fullscreen windows, and the per-application hide rules. Under them, a line says whether
this desktop can be read (X11) or why not, so a switch that does nothing is explained."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QLineEdit, QVBoxLayout, QWidget

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import DesktopLifeSettings, load_settings, save_settings
from companion_desktop.ui.desktop import parse_apps, x11_unavailable_reason
from companion_desktop.ui.start.session import xwayland_note
from companion_desktop.ui.switch import Switch

APPS_HINT = ("Application names, separated by commas, as the window manager knows them "
             "(for example: firefox, mpv, steam). Any case.")


class DesktopLifeSection(QWidget):
    """A column for the Desktop page's form; ``apply()`` saves it."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            settings = load_settings(session, DesktopLifeSettings)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.gravity = Switch("She stands on windows and falls when let go")
        self.gravity.setObjectName("gravitySwitch")
        self.gravity.setChecked(settings.gravity)
        column.addWidget(self.gravity)
        column.addWidget(_hint("Dropped in the air, she falls onto the window or the bottom of "
                               "the screen below her, and rides along on a window that moves. "
                               "Off: she stays exactly where you put her."))
        self.hide_fullscreen = Switch("Hide while a fullscreen window is active")
        self.hide_fullscreen.setObjectName("hideFullscreenSwitch")
        self.hide_fullscreen.setChecked(settings.hide_fullscreen)
        column.addWidget(self.hide_fullscreen)
        column.addWidget(_hint("A game or a video in fullscreen: she steps away and comes back "
                               "when you leave it."))
        self.always = QLineEdit(", ".join(settings.always_hide), objectName="alwaysHideEdit")
        self.always.setPlaceholderText("e.g. steam, zoom")
        column.addWidget(QLabel("Always hide while these are active (fullscreen or not):"))
        column.addWidget(self.always)
        self.never = QLineEdit(", ".join(settings.never_hide), objectName="neverHideEdit")
        self.never.setPlaceholderText("e.g. mpv")
        column.addWidget(QLabel("Never hide for these, even fullscreen:"))
        column.addWidget(self.never)
        column.addWidget(_hint(APPS_HINT))
        reason = x11_unavailable_reason()
        works = "Works on this desktop." if reason is None else \
            f"Not available here: {reason} She stays where you put her."
        note = xwayland_note() if reason is None else None  # XWayland sees X11 apps only
        self.status = _hint(works if note is None else f"{works} {note}")
        self.status.setObjectName("desktopLifeStatus")
        column.addWidget(self.status)

    def apply(self) -> None:
        with self.service.db.session() as session:
            settings = load_settings(session, DesktopLifeSettings)
            settings.gravity = self.gravity.isChecked()
            settings.hide_fullscreen = self.hide_fullscreen.isChecked()
            settings.always_hide = parse_apps(self.always.text())
            settings.never_hide = parse_apps(self.never.text())
            save_settings(session, settings)


def _hint(text: str) -> QLabel:
    return QLabel(text, objectName="pageHint", wordWrap=True)
