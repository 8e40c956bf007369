"""Settings > Desktop > Quiet time and speaking first: "do not disturb", whether she starts
a conversation herself (and how often), and window awareness with its deny-list.

Each option says what it does in plain words; the numbers are bounded by the spin boxes
(and again by ``ProactiveSettings``). The deny-list is one entry a line; an entry matches
an application's name or a word in a window title, in any case.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from companion_desktop.engine.window_context import DEFAULT_DENY
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.storage.settings import ProactiveSettings, load_settings, save_settings
from companion_desktop.ui.settings.llm_page import SettingsProblem, name_labels, new_form
from companion_desktop.ui.switch import Switch

#: Settings > Speak first: the stored value and what the user reads.
SPEAK_FIRST = ((None, "As the mode decides: on in Dating Sim Mode, off in Companion Mode"),
               (True, "Yes, now and then"), (False, "No, only when I talk to her"))
MAX_DENY_ENTRIES = 200
MAX_DENY_CHARS = 80

DND_HINT = ("She stays quiet: she doesn't speak first, and nothing pops up. Reminders are "
            "still kept and shown in the chat, without a bubble, a tray message or her voice. "
            "Also in her right-click menu, the tray menu and the chat window.")
SPEAK_HINT = ("She greets you when you come back after a long time away, and now and then "
              "says something when you have been at the computer a long while without a "
              "word. Never while \"do not disturb\" is on or a window is fullscreen (a game, "
              "a video). Away means no key or mouse input on the whole desktop (on X11; "
              "elsewhere, in her windows).")
WINDOW_HINT = ("She sees the name of the app you are using and its window title (for "
               "example \"firefox: Train times\") each time she answers or speaks first, so "
               "she can mention it. It is never saved, and nothing else on your screen is "
               "read. Off by default.")
DENY_HINT = ("One entry a line, matching an app's name or words in a window "
             "title (any case). Password managers, banking and private browsing are in "
             "the list from the start. These windows are also never in a picture of your "
             "screen: she refuses to look at them and blacks them out of the whole screen.")
GLANCE_HINT = ("While you are at the computer and she is quiet, she may look at the window "
               "you are in and say something about it, under the limits above (never while "
               "\"do not disturb\" is on or a window is fullscreen). You see each glance: an "
               "eye on her and a line in the chat. The pictures are never kept. Off by "
               "default.")


def _spin(name: str, low: int, high: int, step: int, value: int, suffix: str) -> QSpinBox:
    box = QSpinBox(objectName=name, suffix=suffix)
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setValue(value)
    return box


def _hint(text: str) -> QLabel:
    return QLabel(text, objectName="pageHint", wordWrap=True)


class ProactiveSection(QWidget):
    """Its own titled form; ``check()`` refuses a bad deny-list, ``apply()`` saves."""

    def __init__(self, service: CompanionService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        with service.db.read_session() as session:
            settings = load_settings(session, ProactiveSettings)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 8, 0, 0)
        column.addWidget(QLabel("Quiet time and speaking first", objectName="sectionTitle"))
        form = new_form()
        self.dnd = Switch("Do not disturb")
        self.dnd.setObjectName("dndSwitch")
        self.dnd.setChecked(settings.do_not_disturb)
        # The switch is also in her menu, the tray and the chat header: Save writes it
        # only when it was touched here, so a toggle made elsewhere meanwhile stands.
        self._dnd_touched = False
        self.dnd.toggled.connect(self._touch_dnd)
        form.addRow("Quiet", self._with_hint(self.dnd, DND_HINT))
        self.speak_first = QComboBox(objectName="speakFirstCombo")
        # Long choices must not widen the page past the window: the list shows them whole.
        self.speak_first.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.speak_first.setMinimumContentsLength(24)
        for value, text in SPEAK_FIRST:
            self.speak_first.addItem(text, value)
        self.speak_first.setCurrentIndex(
            next(i for i, (v, _) in enumerate(SPEAK_FIRST) if v is settings.speak_first))
        form.addRow("Speak first", self._with_hint(self.speak_first, SPEAK_HINT))
        self.absence = QDoubleSpinBox(objectName="absenceHours", suffix=" hours", decimals=1)
        self.absence.setRange(0.5, 24.0)
        self.absence.setSingleStep(0.5)
        self.absence.setValue(settings.absence_hours)
        form.addRow("Greet me after", self._row(self.absence, "away"))
        self.silence = _spin("silenceMinutes", 15, 480, 5, settings.silence_minutes, " minutes")
        form.addRow("Say something after", self._row(self.silence, "without a word"))
        self.cap = _spin("dailyCap", 1, 12, 1, settings.daily_cap, " times")
        form.addRow("At most", self._row(self.cap, "a day"))
        self.gap = _spin("gapMinutes", 30, 720, 10, settings.gap_minutes, " minutes")
        form.addRow("At least", self._row(self.gap, "apart"))
        self.window = Switch("Tell her which window I'm using")
        self.window.setObjectName("windowSwitch")
        self.window.setChecked(settings.window_awareness)
        form.addRow("Window awareness", self._with_hint(self.window, WINDOW_HINT))
        self.deny = QPlainTextEdit(objectName="windowDenyEdit")
        self.deny.setPlainText("\n".join(settings.window_deny))
        self.deny.setFixedHeight(110)
        restore = QPushButton("Restore the list", objectName="secondaryButton")
        restore.clicked.connect(lambda: self.deny.setPlainText("\n".join(DEFAULT_DENY)))
        deny_column = QVBoxLayout()
        deny_column.addWidget(self.deny)
        deny_column.addWidget(_hint(DENY_HINT))
        deny_row = QHBoxLayout()
        deny_row.addWidget(restore)
        deny_row.addStretch(1)
        deny_column.addLayout(deny_row)
        form.addRow("Never read", deny_column)
        self.glance = Switch("She may glance at your screen now and then")
        self.glance.setObjectName("glanceSwitch")
        self.glance.setChecked(settings.glance)
        form.addRow("Glances", self._with_hint(self.glance, GLANCE_HINT))
        self.glance_minutes = _spin("glanceMinutes", 5, 120, 5, settings.glance_minutes,
                                    " minutes")
        form.addRow("At most every", self._row(self.glance_minutes, "for a glance"))
        name_labels(form)
        column.addLayout(form)

    @staticmethod
    def _with_hint(widget: QWidget, hint: str) -> QVBoxLayout:
        box = QVBoxLayout()
        box.addWidget(widget)
        box.addWidget(_hint(hint))
        return box

    @staticmethod
    def _row(widget: QWidget, after: str) -> QHBoxLayout:
        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(widget)
        row.addWidget(QLabel(after))
        row.addStretch(1)
        return row

    def deny_entries(self) -> list[str]:
        """The deny-list as typed: blank lines dropped, spaces trimmed, no repeats."""
        seen: dict[str, None] = {}
        for line in self.deny.toPlainText().splitlines():
            entry = " ".join(line.split())
            if entry and entry.casefold() not in {e.casefold() for e in seen}:
                seen[entry] = None
        return list(seen)

    def _touch_dnd(self) -> None:
        self._dnd_touched = True

    def check(self) -> None:
        """SettingsProblem for a deny-list too long to keep."""
        entries = self.deny_entries()
        if len(entries) > MAX_DENY_ENTRIES:
            raise SettingsProblem(f"Window awareness > Never read: at most {MAX_DENY_ENTRIES} "
                                  f"entries (there are {len(entries)}).")
        for entry in entries:
            if len(entry) > MAX_DENY_CHARS:
                raise SettingsProblem(f"Window awareness > Never read: {entry[:30]!r}… is "
                                      f"longer than {MAX_DENY_CHARS} characters.")

    def apply(self) -> None:
        self.check()
        with self.service.db.session() as session:
            settings = load_settings(session, ProactiveSettings)
            if self._dnd_touched:
                settings.do_not_disturb = self.dnd.isChecked()
            settings.speak_first = self.speak_first.currentData()
            settings.absence_hours = self.absence.value()
            settings.silence_minutes = self.silence.value()
            settings.daily_cap = self.cap.value()
            settings.gap_minutes = self.gap.value()
            settings.window_awareness = self.window.isChecked()
            settings.window_deny = self.deny_entries()
            settings.glance = self.glance.isChecked()
            settings.glance_minutes = self.glance_minutes.value()
            save_settings(session, settings)
