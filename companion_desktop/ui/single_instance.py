"""One app per data folder: a second launch on the same folder brings the first forward.

``claim(folder)`` takes the folder's lock file (``.instance.lock``, an OS lock that
ends with the process, so a crash leaves nothing that blocks the next start) and
listens on a local socket named after a hash of the resolved folder. When the lock
is taken already, it tells the running app to come forward and returns None: the
caller exits without opening the database. Another folder has another lock and
name, so it runs normally. The command line (``chat``, ``state``, ...) takes no lock:
it works beside the app (SQLite in WAL mode).

On Linux and macOS the socket lives in ``$XDG_RUNTIME_DIR`` when that is a folder of
the user's own that nobody else can enter; elsewhere it has a predictable name in the
temporary folder, so a second launch talks to it only when it is a socket owned by the
same user (another user could have made one of that name first).
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
import time
from pathlib import Path
from typing import IO

from PySide6.QtCore import QDir, QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from companion_desktop.storage.locks import try_lock
from companion_desktop.storage.private import private_dir

log = logging.getLogger(__name__)
LOCK_NAME = ".instance.lock"
#: What the second launch sends (one line).
COME_FORWARD = b"show\n"
#: How long the second launch tries to reach the first (it may still be starting).
REACH_S = 3.0
#: The longest socket path a system takes (sun_path is 104 bytes on macOS, 108 on Linux).
MAX_SOCKET_PATH = 100


def server_name(folder: Path | str) -> str:
    """The local socket's name for ``folder`` (the same for every spelling of it): a
    full path in a private ``$XDG_RUNTIME_DIR`` where there is one, else a bare name
    (Qt puts it in the temporary folder)."""
    resolved = str(Path(folder).expanduser().resolve())
    digest = hashlib.sha256(resolved.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    user = getattr(os, "getuid", lambda: "")()
    name = f"companion-desktop-{user}-{digest}"
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    path = str(Path(runtime) / name)
    short = len(os.fsencode(path)) <= MAX_SOCKET_PATH
    return path if short and _private_folder(runtime) else name


def _private_folder(path: str) -> bool:
    """True for an absolute folder of this user's that nobody else may enter."""
    if os.name != "posix" or not path or not os.path.isabs(path):
        return False
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not stat.S_IMODE(info.st_mode) & 0o077)


def socket_path(name: str) -> str:
    """Where the socket of ``name`` is on disk (POSIX)."""
    return name if "/" in name else os.path.join(QDir.tempPath(), name)


def _socket_state(name: str) -> str:
    """"ours" (a socket of this user's), "missing", or "foreign" (anything else)."""
    if os.name != "posix":
        return "ours"  # a named pipe: Windows checks who may open it
    try:
        info = os.lstat(socket_path(name))
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "foreign"
    return "ours" if stat.S_ISSOCK(info.st_mode) and info.st_uid == os.getuid() else "foreign"


class Instance(QObject):
    """This app's claim on its data folder; ``activated`` when a second launch asks."""

    activated = Signal()

    def __init__(self, name: str, lock: IO[bytes] | None) -> None:
        super().__init__()
        self.name = name
        self._lock = lock
        self.server = QLocalServer(self)
        self.server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(name)  # a socket file a crashed run left behind
        if not self.server.listen(name):
            log.warning("cannot listen for a second launch: %s", self.server.errorString())
        self.server.newConnection.connect(self._connected)

    def _connected(self) -> None:
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            socket.readyRead.connect(self._read)
            socket.disconnected.connect(socket.deleteLater)
            if socket.canReadLine():
                self._heard(socket)

    def _read(self) -> None:
        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._heard(socket)

    def _heard(self, socket: QLocalSocket) -> None:
        if socket.canReadLine() and bytes(socket.readLine().data()) == COME_FORWARD:
            self.activated.emit()

    def release(self) -> None:
        """Stop listening and let the lock go (at quit)."""
        self.server.close()
        if self._lock is not None:
            self._lock.close()  # closing the file releases its lock
            self._lock = None


def ask_to_come_forward(name: str, within_s: float = REACH_S) -> bool:
    """Tell the app listening on ``name`` to come forward; False when none answered."""
    end = time.monotonic() + within_s
    while True:
        state = _socket_state(name)
        if state == "foreign":
            log.warning("%s is not a socket of yours: not talking to it", socket_path(name))
            return False
        if state == "missing":
            if time.monotonic() >= end:
                return False
            time.sleep(0.1)
            continue
        socket = QLocalSocket()
        socket.connectToServer(name)
        if socket.waitForConnected(500):
            socket.write(COME_FORWARD)
            sent = socket.waitForBytesWritten(1000)
            socket.disconnectFromServer()
            return sent
        if time.monotonic() >= end:
            return False
        time.sleep(0.1)


def claim(folder: Path | str) -> Instance | None:
    """This app's ``Instance`` for ``folder``, or None when another app has it (that
    one was asked to come forward). A folder that cannot hold the lock file runs
    unguarded (opening the database then says what is wrong with it)."""
    name = server_name(folder)
    path = Path(folder).expanduser()
    try:
        private_dir(path)
        lock = try_lock(path / LOCK_NAME)
    except OSError as error:
        log.warning("no instance lock in %s: %s", path, error)
        return Instance(name, None)
    if lock is None:
        if not ask_to_come_forward(name):
            log.warning("companion-desktop already runs on %s but did not answer", path)
        return None
    return Instance(name, lock)


def bring_forward(window) -> None:  # noqa: ANN001
    """Show ``window`` (restored if minimised), raised and active."""
    from PySide6.QtCore import Qt

    window.show()
    window.setWindowState(window.windowState() & ~Qt.WindowState.WindowMinimized)
    window.raise_()
    window.activateWindow()
