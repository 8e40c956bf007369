"""Composition root: opens storage, builds services, wires the windows."""

from __future__ import annotations

import sys
from datetime import datetime


def run_gui(data_dir: str | None, fixed_now: datetime | None = None) -> int:
    """Start the app. ``fixed_now`` pins the clock (``--now``); otherwise the real one."""
    from PySide6.QtWidgets import QApplication, QMessageBox

    from companion_desktop.pipeline.companion import CompanionService
    from companion_desktop.storage.db import Database, StorageError
    from companion_desktop.storage.paths import resolve_data_dir
    from companion_desktop.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv)
    app.setApplicationName("companion-desktop")
    app.setApplicationDisplayName("companion-desktop")

    def clock() -> datetime:
        return fixed_now or datetime.now().astimezone()

    try:
        db = Database.open(resolve_data_dir(data_dir))
    except StorageError as exc:
        QMessageBox.critical(None, "companion-desktop", str(exc))
        return 1
    window = MainWindow(CompanionService(db), clock)
    window.show()
    try:
        return app.exec()
    finally:
        db.close()
