"""A screen picture on Wayland without X11: the desktop portal's Screenshot call over D-Bus.

Wayland lets no app read the screen itself; the desktop portal
(``org.freedesktop.portal.Screenshot``) asks the user (interactive: they choose the
screen or window, so the deny-list is theirs to apply there) and answers with a file.
The file is read into memory and deleted at once: nothing of it is kept. Her own windows
are hidden for the call and shown again after. Where no portal answers on the session
bus, :class:`ScreenRefused` says so in one clear line.

Written from the portal's published interface; the tests run it against a portal on a
private session bus that speaks that interface (``tests/ui/wayland/test_portal.py``).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from PySide6.QtCore import QEventLoop, QObject, QTimer, QUrl, Slot
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QWidget

from companion_desktop.ui.desktop.screen.capture import ScreenRefused

PORTAL = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
SCREENSHOT = "org.freedesktop.portal.Screenshot"
REQUEST = "org.freedesktop.portal.Request"
WAIT_MS = 120_000  # the user may take a while choosing in the portal's dialog
NO_PORTAL = ("I can't look at your screen here: this Wayland session has no desktop portal "
             "for screenshots. You can still type.")


def portal_available() -> bool:
    """Whether the desktop portal is registered on the session bus."""
    from PySide6.QtDBus import QDBusConnection

    bus = QDBusConnection.sessionBus()
    if not bus.isConnected():
        return False
    interface = bus.interface()
    if interface is None:
        return False
    reply = interface.isServiceRegistered(PORTAL)
    return bool(reply.value()) if reply.isValid() else False


class _Response(QObject):
    def __init__(self, loop: QEventLoop) -> None:
        super().__init__()
        self.loop = loop
        self.code: int | None = None
        self.uri = ""

    @Slot("uint", "QVariantMap")
    def answered(self, code: int, results: dict) -> None:
        self.code, self.uri = int(code), str(results.get("uri", ""))
        self.loop.quit()


def portal_screenshot(mine: list[QWidget]) -> QImage:
    """A picture through the portal, her windows ``mine`` hidden meanwhile; ScreenRefused
    when there is no portal, the user cancelled, or the picture could not be read."""
    if not portal_available():
        raise ScreenRefused(NO_PORTAL)
    from PySide6.QtCore import SLOT
    from PySide6.QtDBus import QDBusConnection, QDBusInterface

    bus = QDBusConnection.sessionBus()
    token = "companion_" + secrets.token_hex(6)
    sender = bus.baseService().lstrip(":").replace(".", "_")
    request = f"{PATH}/request/{sender}/{token}"
    loop = QEventLoop()
    response = _Response(loop)
    bus.connect(PORTAL, request, REQUEST, "Response", response, SLOT("answered(uint,QVariantMap)"))
    shown = [w for w in mine if w.isVisible()]
    for widget in shown:
        widget.hide()
    try:
        portal = QDBusInterface(PORTAL, PATH, SCREENSHOT, bus)
        reply = portal.call("Screenshot", "", {"handle_token": token, "interactive": True})
        if reply.errorName():
            raise ScreenRefused(f"The desktop portal refused the screenshot "
                                f"({reply.errorMessage()}). You can still type.")
        QTimer.singleShot(WAIT_MS, loop.quit)
        loop.exec()
    finally:
        for widget in shown:
            widget.show()
    if response.code != 0 or not response.uri:
        raise ScreenRefused("No screenshot was taken (cancelled, or the portal gave none). "
                            "You can still type.")
    path = Path(QUrl(response.uri).toLocalFile())
    image = QImage(str(path))
    try:
        path.unlink()  # the portal saved it; we keep nothing
    except OSError:
        pass
    if image.isNull():
        raise ScreenRefused("I couldn't read the screenshot the portal gave me.")
    return image
