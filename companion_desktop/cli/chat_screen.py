"""``chat --screen active|full``: one picture of the user's screen, shown before it is sent.

The same capture as the window's eye button (``ui.desktop.take_screenshot``: X11, the
window-awareness deny-list applied, a denied active window never captured, denied windows
blacked out in a full capture), prepared by the photo path (scaled, metadata stripped).
Before anything leaves the machine the terminal says what was captured and asks; ``--yes``
skips the question. The picture is kept on the photoboard only with ``--keep``.
"""

from __future__ import annotations

import sys
from dataclasses import replace

from companion_desktop.cli.common import CliError, terminal_text
from companion_desktop.pipeline.companion import CompanionService
from companion_desktop.pipeline.images import ImageRefused, PreparedImage, prepare_image_bytes
from companion_desktop.storage.settings import ProactiveSettings, load_settings


def screen_picture(service: CompanionService, mode: str, *, keep: bool = False,
                   ask: bool = True) -> PreparedImage:
    """The capture as a prepared picture; CliError when it is refused, fails, or the user
    says no (then nothing is sent)."""
    from PySide6.QtWidgets import QApplication

    from companion_desktop.ui.desktop import ScreenRefused, take_screenshot
    from companion_desktop.ui.photos import as_path_or_bytes

    with service.db.read_session() as session:
        deny = load_settings(session, ProactiveSettings).window_deny
    _app = QApplication.instance() or QApplication(sys.argv[:1])
    try:
        shot = take_screenshot(mode, deny, None, mine=[])
        data = as_path_or_bytes(shot.image)
        assert isinstance(data, bytes)
        image = prepare_image_bytes(data, shot.name)
    except (ScreenRefused, ImageRefused) as error:
        raise CliError(terminal_text(str(error))) from None
    image = replace(image, screen=shot.label, keep=keep)
    hidden = f"; blacked out: {', '.join(shot.hidden)}" if shot.hidden else ""
    what = shot.name[:1].lower() + shot.name[1:]  # "your screen (Firefox)"
    print(f"Captured {what}: {image.width} × {image.height}{hidden}.",
          file=sys.stderr, flush=True)
    if ask and not _agreed():
        raise CliError("Not sent: nothing left this computer.")
    return image


def _agreed() -> bool:
    """Ask on the terminal (not stdin, which may carry the messages)."""
    try:
        with open("/dev/tty", "r+", encoding="utf-8") as tty:
            tty.write("Send it to her? [y/N] ")
            tty.flush()
            return tty.readline().strip().lower() in ("y", "yes")
    except OSError:
        raise CliError("No terminal to ask on: add --yes to send the picture without "
                       "asking.") from None
