"""Where a backup in progress works, and how the leftovers of a killed one are found.

A backup copies the database into a work folder inside the data folder,
``.backup-work-<12 hex>/``, and writes the archive to a partial file next to its
target (``.companion-backup-<random>.partial``, so the last step is a rename on one
disk). The work folder holds a marker, ``WORK``: locked while the backup runs (an OS
lock that ends with the process) and naming the partial file.

Only what this code made is ever removed: a folder with that exact name whose marker
says so and whose lock nobody holds (its backup was killed), and the partial file
that marker names, when its name has the partial pattern. A user's own folders, in
the data folder or next to a target they chose, are never touched.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .locks import try_lock

log = logging.getLogger(__name__)

PREFIX = ".backup-work-"
MARKER = "WORK"
KIND = "companion-desktop-backup-work"
PARTIAL_PREFIX, PARTIAL_SUFFIX = ".companion-backup-", ".partial"
_FOLDER = re.compile(r"\.backup-work-[0-9a-f]{12}")
_PARTIAL = re.compile(r"\.companion-backup-[A-Za-z0-9_]+\.partial")


@dataclass(frozen=True)
class Work:
    """A backup's work folder (inside the data folder) and its partial archive file."""

    folder: Path
    partial: Path


@contextlib.contextmanager
def work_folder(data_dir: Path, target: Path) -> Iterator[Work]:
    """A locked work folder in ``data_dir`` and a partial file beside ``target``; both
    are gone afterwards (the caller renames the partial file to ``target`` first)."""
    drop_leftovers(data_dir)
    folder = data_dir / f"{PREFIX}{uuid.uuid4().hex[:12]}"
    folder.mkdir(mode=0o700)
    lock = None
    partial: Path | None = None
    try:
        lock = try_lock(folder / MARKER)
        if lock is None:  # a fresh, random name: nobody else can hold it
            raise OSError(f"cannot lock {folder / MARKER}")
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=PARTIAL_PREFIX,
                                    suffix=PARTIAL_SUFFIX)
        os.close(fd)
        partial = Path(name)
        # Written under the lock: a marker without this text is not recognised as ours.
        lock.write(json.dumps({"kind": KIND, "partial": str(partial)}).encode())
        lock.flush()
        yield Work(folder, partial)
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)
        if lock is not None:
            lock.close()
        shutil.rmtree(folder, ignore_errors=True)


def _marker(folder: Path) -> dict | None:
    """The marker's content when ``folder`` is one of ours, else None."""
    if not _FOLDER.fullmatch(folder.name) or not folder.is_dir() or folder.is_symlink():
        return None
    try:
        data = json.loads((folder / MARKER).read_bytes()[:4096])
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("kind") == KIND else None


def drop_leftovers(data_dir: Path) -> list[Path]:
    """Remove the work folders (and partial files) of backups that were killed; returns
    the folders removed. A folder whose backup still runs (its lock is held) stays."""
    gone = []
    for folder in sorted(data_dir.glob(f"{PREFIX}*")):
        marker = _marker(folder)
        if marker is None:
            continue
        try:
            lock = try_lock(folder / MARKER)
        except OSError:
            continue
        if lock is None:
            continue  # its backup is running
        lock.close()
        partial = Path(str(marker.get("partial") or ""))
        if partial.name and _PARTIAL.fullmatch(partial.name) and partial.is_file():
            partial.unlink(missing_ok=True)
        shutil.rmtree(folder, ignore_errors=True)
        log.info("removed the leftovers of a backup that did not finish: %s", folder)
        gone.append(folder)
    return gone
