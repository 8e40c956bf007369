"""Settings > Desktop > Walking: whether she walks along the window or panel she stands
on now and then (and sometimes sits on a window's top edge). On by default."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import WalkingSettings, load_settings, save_settings
from companion_desktop.ui.switch import Switch

HINT = ("Every few minutes, while she has nothing to do, she takes a slow stroll along the "
        "window or panel she stands on, turns round at its end, and sometimes sits down on "
        "a window's top edge for a while. She stays put while you talk, while she listens or "
        "thinks, in photo mode and while you move her.")


class WalkingSection(QWidget):
    """A switch and its explanation; ``apply()`` saves."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            settings = load_settings(session, WalkingSettings)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        self.enabled = Switch("She walks around now and then")
        self.enabled.setObjectName("walkingSwitch")
        self.enabled.setChecked(settings.enabled)
        column.addWidget(self.enabled)
        column.addWidget(QLabel(HINT, objectName="pageHint", wordWrap=True))

    def apply(self) -> None:
        with self.service.db.session() as session:
            settings = load_settings(session, WalkingSettings)
            settings.enabled = self.enabled.isChecked()
            save_settings(session, settings)
