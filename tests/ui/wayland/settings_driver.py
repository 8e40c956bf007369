"""The real app (``companion_desktop.cli.main``). Once her desktop is up and the file
named by ``$OPEN_SETTINGS_FLAG`` appears, Settings opens on its Display page and prints
"limits: " with the text of its Wayland line ("limits: none" where the line is hidden).
The app then runs on until it is asked to quit.

    python tests/ui/wayland/settings_driver.py ARGS
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel

from companion_desktop.cli import main


def open_display_page() -> None:
    flag = os.environ.get("OPEN_SETTINGS_FLAG", "")
    if flag and not Path(flag).exists():
        QTimer.singleShot(100, open_display_page)
        return
    for widget in QApplication.topLevelWidgets():
        if getattr(widget, "desktop", None) is not None:
            widget.open_settings()
            QTimer.singleShot(100, report)
            return
    QTimer.singleShot(100, open_display_page)


def report() -> None:
    for widget in QApplication.topLevelWidgets():
        if hasattr(widget, "show_page") and widget.isVisible():
            widget.show_page("Display")
            line = widget.findChild(QLabel, "waylandLimits")
            shown = line is not None and not line.isHidden()
            print("limits:", line.text() if shown else "none", flush=True)
            return
    QTimer.singleShot(100, report)


if __name__ == "__main__":
    QTimer.singleShot(0, open_display_page)  # runs once the app's event loop turns
    raise SystemExit(main())
