"""Settings > Desktop: how she lives on the desktop beyond her own window. Gravity, riding
on windows and getting out of the way (``desktop_life_section``), walking
(``walking_section``), the global hotkeys (``hotkeys_section``), and quiet time with
speaking first and window awareness (``proactive_section``)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.ui.settings.desktop.hotkeys_section import HotkeysSection
from companion_desktop.ui.settings.desktop.life_section import DesktopLifeSection
from companion_desktop.ui.settings.desktop.proactive_section import ProactiveSection
from companion_desktop.ui.settings.desktop.walking_section import WalkingSection
from companion_desktop.ui.settings.llm_page import name_labels, new_form


class DesktopPage(QWidget):
    """``check()`` refuses a key that cannot be a hotkey or a bad deny-list; ``apply()``
    saves every section."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Desktop", objectName="pageTitle"))
        layout.addWidget(QLabel(
            "How she lives on your desktop: standing on windows, walking about, keys that "
            "work in every window, and when she keeps quiet or speaks first.",
            objectName="pageHint", wordWrap=True))
        layout.addSpacing(10)
        form = new_form()
        self.desktop_life = DesktopLifeSection(service)
        form.addRow("On the desktop", self.desktop_life)
        self.walking = WalkingSection(service)
        form.addRow("Walking", self.walking)
        self.hotkeys = HotkeysSection(service)
        form.addRow("Global hotkeys", self.hotkeys)
        name_labels(form)
        layout.addLayout(form)
        self.proactive = ProactiveSection(service)
        layout.addWidget(self.proactive)
        layout.addStretch(1)

    def check(self) -> None:
        """SettingsProblem for a global hotkey that cannot be one, or a deny-list too long."""
        self.hotkeys.check()
        self.proactive.check()

    def apply(self) -> None:
        self.hotkeys.apply()
        self.desktop_life.apply()
        self.walking.apply()
        self.proactive.apply()
