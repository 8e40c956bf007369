"""An OS lock on a file: held while the process lives, gone when it ends (a crash too).

Used for the app's one-instance lock and to tell a backup in progress from the
leftovers of one that was killed: whoever can take the lock knows its owner is gone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO


def try_lock(path: Path) -> IO[bytes] | None:
    """``path`` opened (created when missing, mode 0600) and locked; None when another
    process holds the lock. Closing the handle lets the lock go. OSError when the
    file cannot be opened."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    handle = os.fdopen(fd, "a+b")
    try:
        if sys.platform == "win32":
            import msvcrt

            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle
