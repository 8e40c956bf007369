"""The real app (``companion_desktop.cli.main``) plus what a test cannot do from
outside: type a message (``--send TEXT``: once she is up, it goes through the chat
window's input and Send button), stage a photo for the next message (``--photo PATH``:
as the paperclip does; "photo staged" is printed) and choose Quit in her menu (when the
file named by ``--quit-flag`` appears, the overlay's Quit action fires, as if the user
chose it). "she speaks" is printed when her voice starts speaking a reply.

    python tests/ui/quit_driver.py --quit-flag FILE [--send TEXT] [--photo PATH] -- ARGS
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from companion_desktop.cli import main


def chat_window():  # noqa: ANN201
    """The chat window once her desktop (overlay, reminders) is up, else None."""
    for widget in QApplication.topLevelWidgets():
        if getattr(widget, "desktop", None) is not None:
            return widget
    return None


def choose_quit() -> None:
    window = chat_window()
    if window is None:
        QApplication.quit()
    else:
        window.desktop.overlay.quit_requested.emit()  # what her menu's Quit does


if __name__ == "__main__":
    split = sys.argv.index("--")
    flag = Path(sys.argv[sys.argv.index("--quit-flag") + 1])
    app = QApplication(sys.argv[:1])
    options = sys.argv[:split]
    message = [options[options.index("--send") + 1]] if "--send" in options else []
    photo = [Path(options[options.index("--photo") + 1])] if "--photo" in options else []
    speaking = []

    def look() -> None:
        window = chat_window()
        if photo and window is not None:
            path = photo.pop()
            window.stage_image(str(path), path.name)  # prepared off the GUI thread
            print("photo staged", flush=True)
        if message and window is not None:
            window.input.setPlainText(message.pop())
            window.send_button.click()
        if not speaking and window is not None and window.desktop.voice.speaking:
            speaking.append(True)
            print("she speaks", flush=True)
        if flag.exists():
            watcher.stop()
            choose_quit()

    watcher = QTimer(interval=50, timeout=look)
    watcher.start()
    raise SystemExit(main(sys.argv[split + 1:]))
