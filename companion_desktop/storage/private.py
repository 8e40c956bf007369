"""Her data is the user's alone: the data folder and every folder in it 0700, every file
she writes there 0600, whatever the umask.

Each writer creates its folders with :func:`private_dir` and its files with mode 0600
(``tempfile.mkstemp`` does; a copied file gets :func:`private_file`). A data folder made
by an older version, or loosened by hand, is tightened when the database opens
(:func:`tighten`), with a log line. On Windows, where modes mean little, nothing is done.
"""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

log = logging.getLogger(__name__)

DIR_MODE, FILE_MODE = 0o700, 0o600
_POSIX = os.name == "posix"


def _loose(mode: int) -> bool:
    return bool(stat.S_IMODE(mode) & 0o077)


def private_dir(path: Path) -> Path:
    """``path`` as a folder, made 0700 when missing (a umask can only take bits away;
    missing parents get the usual mode). One that exists is left to :func:`tighten`."""
    path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    return path


def private_file(path: Path) -> Path:
    """Take the group's and others' access away from the existing file ``path`` (a new
    file of 0644 becomes 0600; a read-only one stays read-only)."""
    if _POSIX:
        _fix(path)
    return path


def tighten(data_dir: Path) -> int:
    """Take the group's and others' access away from ``data_dir`` and, when it had some
    (an older version, a umask of 022), from everything in it (the owner's own bits stay:
    a read-only folder stays read-only); returns how many were changed (logged). A
    folder already private has only its own files checked (cheap at every open)."""
    if not _POSIX or not data_dir.is_dir():
        return 0
    changed = 0
    mode = data_dir.stat().st_mode
    if _loose(mode):
        os.chmod(data_dir, _owner_only(mode))
        changed = 1 + _tighten_below(data_dir, recursive=True)
    else:
        changed = _tighten_below(data_dir, recursive=False)
    if changed:
        log.info("made %d files and folders in %s private to you (they were readable by "
                 "others)", changed, data_dir)
    return changed


def _tighten_below(folder: Path, *, recursive: bool) -> int:
    changed = 0
    for root, dirs, files in os.walk(folder):
        for name in files:
            changed += _fix(Path(root) / name)
        for name in dirs:
            if recursive:
                changed += _fix(Path(root) / name)
        if not recursive:
            break
    return changed


def _owner_only(mode: int) -> int:
    """``mode`` without the group's and others' bits (the owner's stay as they were)."""
    return stat.S_IMODE(mode) & ~0o077


def _fix(path: Path) -> int:
    """Tighten one path we own (never following a link); 1 when it changed."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or not _loose(info.st_mode):
            return 0
        os.chmod(path, _owner_only(info.st_mode))
    except OSError:
        return 0
    return 1
