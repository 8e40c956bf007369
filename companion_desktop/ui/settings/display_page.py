"""Settings > Display: her mood faces, personalized moments, the overlay's frame rate,
whether other programs (a local language model) go first for the CPU, and how the app
starts: with the computer (an XDG autostart entry, Linux only) and what shows at start.
In a Wayland session, "Use native Wayland windows" (read at the next start) with what it
gives up; while she runs as native Wayland windows, one line says what this session
cannot do (``ui.start.session.limits``).
Her life on the desktop and the global hotkeys are on Settings > Desktop
(``desktop_page``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSlider, QVBoxLayout, QWidget

from companion_desktop import desktop_entry
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import (
    AvatarSettings,
    DisplaySettings,
    load_settings,
    save_settings,
)
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form
from companion_desktop.ui.start import session
from companion_desktop.ui.switch import Switch

#: Settings > Display > At start: the stored value and what the user reads.
START_HIDDEN = (("no", "Show the chat window"), ("overlay", "Only her, on the desktop"),
                ("tray", "Nothing: only the tray icon"))


class DisplayPage(QWidget):
    """``apply()`` saves the display and frame-rate settings."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            display = load_settings(session, DisplaySettings)
            avatar = load_settings(session, AvatarSettings)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("Display", objectName="pageTitle"))
        layout.addWidget(QLabel("How she shows what she feels, and how smoothly she moves.",
                                objectName="pageHint", wordWrap=True))
        layout.addSpacing(10)
        form = new_form()
        self.mood_faces = _switch(
            form, "Face", "Mood expressions", "moodFacesSwitch", display.mood_expressions,
            "Her resting face follows her mood, and her replies can flash a reaction. "
            "Off: a calm face, whatever she feels.")
        self.moments = Switch("Personalized moments")
        self.moments.setObjectName("momentsSwitch")
        self.moments.setChecked(display.personalized_moments)
        form.addRow("Events", self.moments)
        self.fps = QSlider(Qt.Orientation.Horizontal, objectName="fpsSlider")
        self.fps.setRange(10, 60)
        self.fps.setValue(avatar.fps)
        self.fps_label = QLabel(objectName="fpsLabel")
        self.fps.valueChanged.connect(lambda v: self.fps_label.setText(f"{v} frames a second"))
        self.fps_label.setText(f"{avatar.fps} frames a second")
        row = QHBoxLayout()
        row.addWidget(self.fps, 1)
        row.addWidget(self.fps_label)
        form.addRow("Frame rate", row)
        self.yield_cpu = _switch(
            form, "Priority", "Let other programs go first", "yieldCpuSwitch", display.yield_cpu,
            "She runs at a lower priority, so a language model on this computer keeps its "
            "speed; she may move less smoothly while it works. Takes effect the next time the "
            "app starts.")
        self._start_rows(form, display)
        self._wayland_rows(form, display)
        name_labels(form)
        layout.addLayout(form)
        layout.addStretch(1)

    def _start_rows(self, form, display: DisplaySettings) -> None:  # noqa: ANN001
        supported = desktop_entry.autostart_supported()
        self._autostart_was = display.autostart  # an entry this folder wrote, to remove
        self.autostart = _switch(
            form, "Start", "Start with my computer", "autostartSwitch",
            display.autostart and supported,
            "She starts when you log in." if supported else
            "Not supported on this system yet: only Linux desktops for now.")
        self.autostart.setEnabled(supported)
        self.start_hidden = QComboBox(objectName="startHiddenCombo")
        for value, text in START_HIDDEN:
            self.start_hidden.addItem(text, value)
        self.start_hidden.setCurrentIndex(self.start_hidden.findData(display.start_hidden))
        column = QVBoxLayout()
        column.addWidget(self.start_hidden)
        column.addWidget(QLabel("What shows when the app starts. Hidden, she is one click "
                                "away on the tray icon.", objectName="pageHint", wordWrap=True))
        form.addRow("At start", column)

    def _wayland_rows(self, form, display: DisplaySettings) -> None:  # noqa: ANN001
        self.native_wayland = _switch(
            form, "Wayland", "Use native Wayland windows", "nativeWaylandSwitch",
            display.native_wayland,
            "Off (best): in a Wayland session she runs through XWayland, so she stays on "
            "top, stands where you put her, sees other apps' windows and hears the global "
            "hotkeys. On: native Wayland windows, which give all of that up. Takes effect "
            "the next time the app starts.")
        limits = session.limits()
        self.limits = QLabel(limits or "", objectName="waylandLimits", wordWrap=True)
        self.limits.setVisible(limits is not None)
        form.addRow("", self.limits)

    def check(self) -> None:
        """Nothing on this page can be refused before saving."""

    def apply(self) -> None:
        """Saves the page; SettingsProblem (nothing of this page saved) when the autostart
        entry cannot be written."""
        autostart = self.autostart.isChecked() and desktop_entry.autostart_supported()
        if desktop_entry.autostart_supported() and (autostart or self._autostart_was):
            try:
                desktop_entry.set_autostart(autostart, self.service.db.path.parent)
            except OSError as error:
                raise SettingsProblem(
                    f"Start with my computer: {desktop_entry.autostart_path()} could not be "
                    f"written ({error.strerror or error}).") from None
        with self.service.db.session() as session:
            display = load_settings(session, DisplaySettings)
            display.mood_expressions = self.mood_faces.isChecked()
            display.personalized_moments = self.moments.isChecked()
            display.yield_cpu = self.yield_cpu.isChecked()
            display.autostart = autostart
            display.start_hidden = self.start_hidden.currentData()
            display.native_wayland = self.native_wayland.isChecked()
            self._autostart_was = autostart
            save_settings(session, display)
            avatar = load_settings(session, AvatarSettings)
            avatar.fps = self.fps.value()
            save_settings(session, avatar)


def _switch(form, label: str, text: str, name: str, checked: bool, hint: str) -> Switch:  # noqa: ANN001
    """A switch with its explanation under it, as one row of ``form``."""
    switch = Switch(text)
    switch.setObjectName(name)
    switch.setChecked(checked)
    column = QVBoxLayout()
    column.addWidget(switch)
    column.addWidget(QLabel(hint, objectName="pageHint", wordWrap=True))
    form.addRow(label, column)
    return switch
